import Foundation
import Testing
@testable import SFrame

/// RFC 9605 Appendix C: every `header`, `aes_ctr_hmac` and `sframe` vector of the working
/// group's published set (Vectors/README.md says where it comes from), byte for byte.
@Suite struct SFrameVectorTests {
    nonisolated(unsafe) static let vectors: [String: [[String: Any]]] = {  // read-only after load
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Vectors/rfc9605-test-vectors.json")
        guard let data = try? Data(contentsOf: url),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: [[String: Any]]] else { return [:] }
        return json
    }()

    static func hex(_ value: Any?) -> [UInt8] {
        let text = Array((value as? String ?? "").utf8)
        return stride(from: 0, to: text.count - 1, by: 2).map { UInt8(String(decoding: text[$0...$0 + 1], as: UTF8.self), radix: 16)! }
    }

    static func number(_ value: Any?) -> UInt64 { (value as? NSNumber)?.uint64Value ?? 0 }

    @Test func everyHeaderVectorEncodesAndParsesByteForByte() throws {
        let headers = try #require(Self.vectors["header"])
        #expect(headers.count == 289)
        for vector in headers {
            let header = SFrameHeader(keyID: Self.number(vector["kid"]), counter: Self.number(vector["ctr"]))
            let encoded = Self.hex(vector["encoded"])
            #expect(header.encoded == encoded, "kid \(header.keyID) ctr \(header.counter)")
            let parsed = try SFrameHeader.parse(encoded + [0xAB, 0xCD])
            #expect(parsed.header == header && parsed.length == encoded.count)
        }
    }

    @Test func everyAESCTRHMACVectorSealsAndOpens() throws {
        let vectors = try #require(Self.vectors["aes_ctr_hmac"])
        #expect(vectors.map { Self.number($0["cipher_suite"]) } == [1, 2, 3])
        for vector in vectors {
            let suite = try #require(SFrameCipherSuite(rawValue: UInt16(Self.number(vector["cipher_suite"]))))
            let key = Self.hex(vector["key"]), nonce = Self.hex(vector["nonce"]), aad = Self.hex(vector["aad"])
            #expect(Array(key[..<16]) == Self.hex(vector["enc_key"]) && Array(key[16...]) == Self.hex(vector["auth_key"]))
            let sealed = try SFrameAEAD.seal(suite, key: key, nonce: nonce, aad: aad, Self.hex(vector["pt"])[...])
            #expect(sealed == Self.hex(vector["ct"]), "\(suite)")
            #expect(try SFrameAEAD.open(suite, key: key, nonce: nonce, aad: aad, sealed[...]) == Self.hex(vector["pt"]))
        }
    }

    @Test func everySFrameVectorDerivesEncryptsAndDecryptsForSuitesOneToFive() throws {
        let vectors = try #require(Self.vectors["sframe"])
        #expect(vectors.map { Self.number($0["cipher_suite"]) } == [1, 2, 3, 4, 5])
        for vector in vectors {
            let suite = try #require(SFrameCipherSuite(rawValue: UInt16(Self.number(vector["cipher_suite"]))))
            let kid = Self.number(vector["kid"]), ctr = Self.number(vector["ctr"]), baseKey = Self.hex(vector["base_key"])
            #expect(SFrameKey.label("SFrame 1.0 Secret key ", kid, suite) == Self.hex(vector["sframe_key_label"]))
            #expect(SFrameKey.label("SFrame 1.0 Secret salt ", kid, suite) == Self.hex(vector["sframe_salt_label"]))
            #expect(try SFrameCrypto.extract(suite, salt: [], keyMaterial: baseKey) == Self.hex(vector["sframe_secret"]))
            let key = try SFrameKey(suite: suite, keyID: kid, baseKey: baseKey)
            #expect(key.key == Self.hex(vector["sframe_key"]) && key.salt == Self.hex(vector["sframe_salt"]), "\(suite)")
            #expect(key.nonce(counter: ctr) == Self.hex(vector["nonce"]))
            let metadata = Self.hex(vector["metadata"])
            #expect(SFrameHeader(keyID: kid, counter: ctr).encoded + metadata == Self.hex(vector["aad"]))

            // Encryption at that counter gives the published ciphertext; decryption gives the plaintext back.
            let sender = try SFrameSender(suite: suite, keyID: kid, baseKey: baseKey)
            sender.skipCounter(to: ctr)
            let ciphertext = try sender.encrypt(Self.hex(vector["pt"])[...], metadata: metadata)
            #expect(ciphertext == Self.hex(vector["ct"]), "\(suite)")
            let receiver = SFrameReceiver(suite: suite)
            try receiver.setKey(keyID: kid, baseKey: baseKey, nowMilliseconds: 0)
            let opened = try receiver.decrypt(Self.hex(vector["ct"])[...], metadata: metadata, nowMilliseconds: 0)
            #expect(opened.plaintext == Self.hex(vector["pt"]) && opened.header == SFrameHeader(keyID: kid, counter: ctr))
        }
    }
}
