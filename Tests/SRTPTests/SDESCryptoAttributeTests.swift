import Testing
@testable import SRTP

/// RFC 4568 §9.1 a=crypto lines.
@Suite struct SDESCryptoAttributeTests {
    /// The key-salt of RFC 4568's own example (§6.1).
    let rfcKeySalt = "PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR"

    @Test func parsesTheRFCExampleWithoutLifetimeAndMKI() throws {
        let attribute = try SDESCryptoAttribute(parsing: "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKeySalt)")
        #expect(attribute.tag == 1)
        #expect(attribute.suite == .aesCm128HmacSha1_80)
        #expect(Array(attribute.keyingMaterial.secret.bytes)
                == bytes(hex: "3d2d6e40255e7821426a75667239293f2c2335685c603d265d7b71695051"))
        #expect(!String(describing: attribute).contains(rfcKeySalt))
    }

    @Test func acceptsAttributeValueWithoutPrefixAndWithCRLF() throws {
        let attribute = try SDESCryptoAttribute(parsing: "crypto:123456789 AES_CM_128_HMAC_SHA1_32 inline:\(rfcKeySalt)\r\n")
        #expect(attribute.tag == 123_456_789)
        #expect(attribute.suite == .aesCm128HmacSha1_32)
    }

    @Test func parsesGCMKeySalt() throws {
        // 16-byte key + 12-byte salt = 28 bytes: 38 base64 characters, padding left off.
        let line = "a=crypto:2 AEAD_AES_128_GCM inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGw"
        let attribute = try SDESCryptoAttribute(parsing: line)
        #expect(attribute.suite == .aeadAes128Gcm)
        #expect(Array(attribute.keyingMaterial.secret.bytes) == Array(0..<28))
    }

    @Test func lifetimeIsRejected() {
        #expect(throws: SRTPError.badCryptoLine(.lifetimeNotSupported)) {
            try SDESCryptoAttribute(parsing: "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKeySalt)|2^20")
        }
    }

    @Test func mkiIsRejected() {
        #expect(throws: SRTPError.badCryptoLine(.mkiNotSupported)) {
            try SDESCryptoAttribute(parsing: "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKeySalt)|1:4")
        }
        #expect(throws: SRTPError.badCryptoLine(.lifetimeNotSupported)) {
            try SDESCryptoAttribute(parsing: "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKeySalt)|2^20|1:4")
        }
    }

    @Test(arguments: ["AES_CM_128_HMAC_SHA1_81", "aes_cm_128_hmac_sha1_80", "F8_128_HMAC_SHA1_80", "AES_256_CM_HMAC_SHA1_80"])
    func unknownSuiteNameIsRejected(_ name: String) {
        #expect(throws: SRTPError.badCryptoLine(.unknownSuite(name))) {
            try SDESCryptoAttribute(parsing: "a=crypto:1 \(name) inline:\(rfcKeySalt)")
        }
    }

    @Test(arguments: [
        "PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVB!",   // character outside the alphabet
        "PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBRx",  // 41 characters: not whole bytes
        "PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVB=R",  // padding in the middle
        "PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR===",// too much padding
        "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGx",     // non-zero leftover bits
    ])
    func badBase64IsRejected(_ keySalt: String) {
        #expect(throws: SRTPError.badCryptoLine(.badBase64)) {
            try SDESCryptoAttribute(parsing: "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(keySalt)")
        }
    }

    @Test func keyOfTheWrongLengthForTheSuiteIsRejected() {
        #expect(throws: SRTPError.badKeyLength(suite: .aeadAes128Gcm, field: .concatenated, expected: 28, actual: 30)) {
            try SDESCryptoAttribute(parsing: "a=crypto:1 AEAD_AES_128_GCM inline:\(rfcKeySalt)")
        }
    }

    @Test(arguments: [
        "",
        "a=fingerprint:sha-256 00",
        "a=crypto:1 AES_CM_128_HMAC_SHA1_80",
        "a=crypto: AES_CM_128_HMAC_SHA1_80 inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR",
        "a=crypto:x AES_CM_128_HMAC_SHA1_80 inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR",
        "a=crypto:1234567890 AES_CM_128_HMAC_SHA1_80 inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR",
        "a=crypto:1 AES_CM_128_HMAC_SHA1_80 PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR",
    ])
    func malformedLinesAreRejected(_ line: String) {
        #expect {
            try SDESCryptoAttribute(parsing: line)
        } throws: { error in
            guard case .badCryptoLine(.malformed) = error as? SRTPError else { return false }
            return true
        }
    }

    @Test func otherKeyMethodsAreRejected() {
        #expect(throws: SRTPError.badCryptoLine(.unsupportedKeyMethod("uri"))) {
            try SDESCryptoAttribute(parsing: "a=crypto:1 AES_CM_128_HMAC_SHA1_80 uri:https://example.com/key")
        }
    }

    @Test func sessionParametersAndSecondKeysAreRejected() {
        #expect(throws: SRTPError.badCryptoLine(.unsupportedParameters("KDR=1"))) {
            try SDESCryptoAttribute(parsing: "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKeySalt) KDR=1")
        }
        #expect(throws: SRTPError.badCryptoLine(.unsupportedParameters("more than one key-params"))) {
            try SDESCryptoAttribute(parsing: "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKeySalt);inline:\(rfcKeySalt)")
        }
    }

    @Test func keyingMaterialCanBeBuiltStraightFromALine() throws {
        let material = try SRTPKeyingMaterial(cryptoLine: "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKeySalt)")
        #expect(material.suite == .aesCm128HmacSha1_80)
    }
}

@Suite struct Base64Tests {
    @Test(arguments: [("", ""), ("Zg==", "66"), ("Zg", "66"), ("Zm8=", "666f"), ("Zm9v", "666f6f"), ("+/8=", "fbff")])
    func decodesRFC4648Examples(_ text: String, _ hex: String) {
        #expect(Base64.decode(Substring(text)) == bytes(hex: hex))
    }

    @Test(arguments: ["Z", "Zh==", "Zm9v=", "====", "Zm 9v", "Zg=a"])
    func rejectsInvalidInput(_ text: String) {
        #expect(Base64.decode(Substring(text)) == nil)
    }
}
