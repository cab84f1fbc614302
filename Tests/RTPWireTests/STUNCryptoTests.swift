import Testing
@testable import RTPWire

/// The hash and checksum under STUN's MESSAGE-INTEGRITY and FINGERPRINT, against published values.
@Suite struct STUNCryptoTests {
    @Test func sha1MatchesFIPS180Examples() {
        // FIPS 180-2 appendix A: "abc", the two-block message, and one million "a".
        #expect(SHA1.hash(Array("abc".utf8)) == bytes(hex: "a9993e364706816aba3e25717850c26c9cd0d89d"))
        #expect(SHA1.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == bytes(hex: "84983e441c3bd26ebaae4aa1f95129e5e54670f1"))
        #expect(SHA1.hash([UInt8](repeating: 0x61, count: 1_000_000)) == bytes(hex: "34aa973cd4c4daa4f61eeb2bdbad27316534016f"))
        #expect(SHA1.hash([UInt8]()) == bytes(hex: "da39a3ee5e6b4b0d3255bfef95601890afd80709"))
    }

    @Test func hmacSHA1MatchesRFC2202() {
        #expect(SHA1.hmac(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8))
                == bytes(hex: "b617318655057264e28bc0b6fb378c8ef146be00"))
        #expect(SHA1.hmac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
                == bytes(hex: "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"))
        // A key longer than a block is hashed first (case 6).
        #expect(SHA1.hmac(key: [UInt8](repeating: 0xaa, count: 80),
                          message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
                == bytes(hex: "aa4ae5e15272d00e95705637ce8a3b55ed402112"))
    }

    @Test func crc32MatchesTheCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }
}
