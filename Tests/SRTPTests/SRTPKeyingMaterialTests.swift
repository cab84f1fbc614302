import Testing
@testable import SRTP

@Suite struct SRTPKeyingMaterialTests {
    @Test(arguments: SRTPSuite.allCases)
    func acceptsExactlyTheSuitesLengths(_ suite: SRTPSuite) throws {
        let key = [UInt8](repeating: 1, count: suite.masterKeyLength)
        let salt = [UInt8](repeating: 2, count: suite.masterSaltLength)
        let material = try SRTPKeyingMaterial(suite: suite, masterKey: key, masterSalt: salt)
        #expect(Array(material.secret.bytes) == key + salt)
        #expect(try SRTPKeyingMaterial(suite: suite, keyAndSalt: key + salt).secret.count == suite.keyingMaterialLength)
    }

    @Test func shortMasterKeyIsRejected() {
        #expect(throws: SRTPError.badKeyLength(suite: .aesCm128HmacSha1_80, field: .masterKey, expected: 16, actual: 15)) {
            try SRTPKeyingMaterial(masterKey: Array(repeating: 0, count: 15), masterSalt: Array(repeating: 0, count: 14))
        }
    }

    @Test func longMasterSaltIsRejected() {
        #expect(throws: SRTPError.badKeyLength(suite: .aesCm128HmacSha1_80, field: .masterSalt, expected: 14, actual: 15)) {
            try SRTPKeyingMaterial(masterKey: Array(repeating: 0, count: 16), masterSalt: Array(repeating: 0, count: 15))
        }
    }

    @Test func gcmSaltIsTwelveBytes() {
        #expect(throws: SRTPError.badKeyLength(suite: .aeadAes256Gcm, field: .concatenated, expected: 44, actual: 46)) {
            try SRTPKeyingMaterial(suite: .aeadAes256Gcm, keyAndSalt: Array(repeating: 0, count: 46))
        }
        #expect(throws: SRTPError.badKeyLength(suite: .aeadAes128Gcm, field: .masterSalt, expected: 12, actual: 14)) {
            try SRTPKeyingMaterial(suite: .aeadAes128Gcm, masterKey: Array(repeating: 0, count: 16), masterSalt: Array(repeating: 0, count: 14))
        }
    }

    @Test func emptyKeyIsRejected() {
        #expect(throws: SRTPError.badKeyLength(suite: .aesCm128HmacSha1_32, field: .concatenated, expected: 30, actual: 0)) {
            try SRTPKeyingMaterial(suite: .aesCm128HmacSha1_32, keyAndSalt: [])
        }
    }

    @Test func descriptionDumpAndMirrorNeverShowTheKey() throws {
        let material = try SRTPKeyingMaterial(keyAndSalt: Array(repeating: 0xC3, count: 30))
        var dumped = ""
        dump(material, to: &dumped)
        for text in [String(describing: material), String(reflecting: material), "\(material)", dumped] {
            #expect(text.contains("redacted"))
            #expect(!text.lowercased().contains("c3"))
            #expect(!text.contains("195"))
        }
    }
}
