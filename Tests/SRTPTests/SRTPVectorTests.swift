import Testing
@testable import SRTP

/// libsrtp's own AES_CM_128_HMAC_SHA1_80 vector must come out byte for byte.
@Suite struct SRTPVectorTests {
    let vector: SRTPVector
    let material: SRTPKeyingMaterial

    init() throws {
        vector = try SRTPVector.load()
        material = try SRTPKeyingMaterial(masterKey: vector.masterKey, masterSalt: vector.masterSalt)
    }

    @Test func protectRTPMatchesVector() throws {
        let session = try SRTPSession(direction: .outbound, keyingMaterial: material)
        var output = [UInt8](repeating: 0, count: 200)
        let length = try session.protectRTP(vector.rtpPlain, into: &output)
        #expect(Array(output[..<length]) == vector.rtpProtected)
        #expect(length == vector.rtpPlain.count + SRTPSuite.aesCm128HmacSha1_80.rtpOverhead)
    }

    @Test func unprotectRTPMatchesVector() throws {
        let session = try SRTPSession(direction: .inbound, keyingMaterial: material)
        var output = [UInt8](repeating: 0, count: 200)
        let length = try session.unprotectRTP(vector.rtpProtected, into: &output)
        #expect(Array(output[..<length]) == vector.rtpPlain)
    }

    @Test func protectRTCPMatchesVector() throws {
        let session = try SRTPSession(direction: .outbound, keyingMaterial: material)
        var output = [UInt8](repeating: 0, count: 200)
        let length = try session.protectRTCP(vector.rtcpPlain, into: &output)
        #expect(Array(output[..<length]) == vector.rtcpProtected)
        #expect(length == vector.rtcpPlain.count + SRTPSuite.aesCm128HmacSha1_80.rtcpOverhead)
    }

    @Test func unprotectRTCPMatchesVector() throws {
        let session = try SRTPSession(direction: .inbound, keyingMaterial: material)
        var output = [UInt8](repeating: 0, count: 200)
        let length = try session.unprotectRTCP(vector.rtcpProtected, into: &output)
        #expect(Array(output[..<length]) == vector.rtcpPlain)
    }

    @Test func cryptoLineCarryingTheVectorKeyProducesTheVector() throws {
        // base64(masterKey || masterSalt) of the vector.
        let line = "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:4fl6DT4Bi+DWT6MsBt5BOQ7Gda1Jiv7rtpYLOqvm\r\n"
        let session = try SRTPSession(direction: .outbound, keyingMaterial: SRTPKeyingMaterial(cryptoLine: line))
        #expect(try protect(vector.rtpPlain, with: session) == vector.rtpProtected)
    }

    @Test func inPlaceProtectMatchesVector() throws {
        let session = try SRTPSession(direction: .outbound, keyingMaterial: material)
        var buffer = vector.rtpPlain + [UInt8](repeating: 0, count: 10)
        let length = try buffer.withUnsafeMutableBytes { raw in
            try session.protectRTP(inPlace: raw, packetLength: vector.rtpPlain.count)
        }
        #expect(Array(buffer[..<length]) == vector.rtpProtected)
    }
}
