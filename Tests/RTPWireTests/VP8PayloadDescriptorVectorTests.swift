import Foundation
import Testing
@testable import RTPWire

struct DescriptorVectors {
    var valid: [[String: Any]]
    var errors: [String]
}

func loadDescriptorVectors() throws -> DescriptorVectors {
    let url = vectorsDirectory().appendingPathComponent("vp8_payload_descriptor.json")
    let data = try Data(contentsOf: url)
    let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    return DescriptorVectors(valid: object["valid"] as? [[String: Any]] ?? [],
                             errors: object["error"] as? [String] ?? [])
}

@Suite struct VP8PayloadDescriptorVectorTests {
    @Test func vectorFileIsFound() throws {
        let vectors = try loadDescriptorVectors()
        #expect(vectors.valid.count == 11)
        #expect(vectors.errors.count == 8)
    }

    @Test func everyValidVectorParsesToItsFields() throws {
        for vector in try loadDescriptorVectors().valid {
            let hex = vector["hex"] as? String ?? ""
            let payload = bytes(hex: hex)
            let (descriptor, vp8Data) = try VP8PayloadDescriptor.parse(payload[...])
            let offset = vector["offset"] as? Int ?? -1
            #expect(payload.count - vp8Data.count == offset, "offset \(hex)")
            #expect(descriptor.encodedLength <= offset, "length \(hex)")
            if let s = vector["S"] as? Bool { #expect(descriptor.startOfPartition == s, "S \(hex)") }
            if let n = vector["N"] as? Bool { #expect(descriptor.nonReference == n, "N \(hex)") }
            if let pid = vector["PID"] as? Int { #expect(Int(descriptor.partitionIndex) == pid, "PID \(hex)") }
            if let key = vector["pictureID"] {
                let expected = key as? Int
                #expect(descriptor.pictureID.map { Int($0.value) } == expected, "pictureID \(hex)")
            }
            if let bits = vector["pictureIDBits"] as? Int { #expect(descriptor.pictureID?.bitWidth == bits, "bits \(hex)") }
            if let value = vector["tl0PicIdx"] {
                #expect(descriptor.tl0PicIdx.map { Int($0) } == value as? Int, "tl0 \(hex)")
            }
            if let value = vector["tid"] {
                #expect(descriptor.temporalID.map { Int($0) } == value as? Int, "tid \(hex)")
            }
            if let y = vector["Y"] as? Bool { #expect(descriptor.layerSync == y, "Y \(hex)") }
            if let value = vector["keyIdx"] {
                #expect(descriptor.keyIndex.map { Int($0) } == value as? Int, "keyIdx \(hex)")
            }
            if let key = vector["vp8KeyFrame"] as? Bool {
                #expect(VP8PayloadHeader.isKeyFrame(vp8Data) == key, "vp8KeyFrame \(hex)")
            }
        }
    }

    @Test func everyValidVectorReserializesToAnEqualDescriptor() throws {
        for vector in try loadDescriptorVectors().valid {
            let payload = bytes(hex: vector["hex"] as? String ?? "")
            let (descriptor, _) = try VP8PayloadDescriptor.parse(payload[...])
            var out: [UInt8] = []
            try descriptor.serialize(into: &out)
            #expect(out.count == descriptor.encodedLength)
            let (again, rest) = try VP8PayloadDescriptor.parse(out[...])
            #expect(again == descriptor)
            #expect(rest.isEmpty)
        }
    }

    @Test func everyErrorVectorThrowsWireError() throws {
        for hex in try loadDescriptorVectors().errors {
            let payload = bytes(hex: hex)
            let error = wireError { () throws(WireError) in try VP8PayloadDescriptor.parse(payload[...]) }
            #expect(error != nil, "vector \(hex) must be rejected")
            #expect(error?.name == "truncated", "vector \(hex)")
        }
    }
}
