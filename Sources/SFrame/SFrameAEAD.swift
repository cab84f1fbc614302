/// The AEAD of an SFrame cipher suite (RFC 9605 §4.5): AES-GCM, or §4.5.1's AES-CTR + HMAC
/// composition (encrypt-then-MAC, the tag cut to `Nt` bytes) for the short-tag suites.
enum SFrameAEAD {
    /// ciphertext || tag of `plaintext` under `key` and `nonce`, authenticating `aad`.
    static func seal(_ suite: SFrameCipherSuite, key: [UInt8], nonce: [UInt8], aad: [UInt8],
                     _ plaintext: ArraySlice<UInt8>) throws(SFrameError) -> [UInt8] {
        guard let keyLength = suite.encryptionKeyLength else {
            return try SFrameCrypto.gcmSeal(key: key, nonce: nonce, aad: aad, plaintext)
        }
        let ciphertext = try SFrameCrypto.aesCTR(key: Array(key[..<keyLength]), counter: nonce + [0, 0, 0, 0], plaintext)
        return ciphertext + (try tag(suite, authenticationKey: Array(key[keyLength...]), nonce: nonce, aad: aad, ciphertext: ciphertext))
    }

    /// The plaintext of `sealed` (ciphertext || tag), or nil when the tag does not verify.
    static func open(_ suite: SFrameCipherSuite, key: [UInt8], nonce: [UInt8], aad: [UInt8],
                     _ sealed: ArraySlice<UInt8>) throws(SFrameError) -> [UInt8]? {
        guard let keyLength = suite.encryptionKeyLength else {
            return try SFrameCrypto.gcmOpen(key: key, nonce: nonce, aad: aad, sealed)
        }
        guard sealed.count >= suite.tagLength else { return nil }
        let ciphertext = Array(sealed.dropLast(suite.tagLength))
        let expected = try tag(suite, authenticationKey: Array(key[keyLength...]), nonce: nonce, aad: aad, ciphertext: ciphertext)
        guard SFrameCrypto.constantTimeEqual(expected, Array(sealed.suffix(suite.tagLength))) else { return nil }
        return try SFrameCrypto.aesCTR(key: Array(key[..<keyLength]), counter: nonce + [0, 0, 0, 0], ciphertext[...])
    }

    /// §4.5.1 `compute_tag`: HMAC over len(aad) || len(ct) || Nt (8 bytes each) || nonce || aad
    /// || ct, cut to `Nt` bytes.
    static func tag(_ suite: SFrameCipherSuite, authenticationKey: [UInt8], nonce: [UInt8], aad: [UInt8],
                    ciphertext: [UInt8]) throws(SFrameError) -> [UInt8] {
        var data: [UInt8] = []
        data.reserveCapacity(24 + nonce.count + aad.count + ciphertext.count)
        SFrameHeader.appendBigEndian(UInt64(aad.count), bytes: 8, to: &data)
        SFrameHeader.appendBigEndian(UInt64(ciphertext.count), bytes: 8, to: &data)
        SFrameHeader.appendBigEndian(UInt64(suite.tagLength), bytes: 8, to: &data)
        data += nonce + aad + ciphertext
        return Array(try SFrameCrypto.hmac(suite, key: authenticationKey, data: data).prefix(suite.tagLength))
    }
}
