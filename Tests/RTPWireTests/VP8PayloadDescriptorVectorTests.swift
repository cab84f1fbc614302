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

/// Vector hex strings, for parameterized tests (one test case per vector). A missing file yields no
/// cases, which `vectorFileIsFound` reports as a failure.
let validVectorHexes: [String] = ((try? loadDescriptorVectors().valid) ?? []).map { $0["hex"] as? String ?? "" }
let errorVectorHexes: [String] = (try? loadDescriptorVectors().errors) ?? []

func validVector(hex: String) throws -> [String: Any] {
    try #require(try loadDescriptorVectors().valid.first { $0["hex"] as? String == hex })
}

@Suite struct VP8PayloadDescriptorVectorTests {
    @Test func vectorFileIsFound() throws {
        let vectors = try loadDescriptorVectors()
        #expect(vectors.valid.count == 11)
        #expect(vectors.errors.count == 8)
    }

    @Test(arguments: validVectorHexes)
    func validVectorParsesToItsFields(hex: String) throws {
        do {
            let vector = try validVector(hex: hex)
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

    @Test(arguments: validVectorHexes)
    func validVectorReserializesToAnEqualDescriptor(hex: String) throws {
        do {
            let payload = bytes(hex: hex)
            let (descriptor, _) = try VP8PayloadDescriptor.parse(payload[...])
            var out: [UInt8] = []
            try descriptor.serialize(into: &out)
            #expect(out.count == descriptor.encodedLength)
            let (again, rest) = try VP8PayloadDescriptor.parse(out[...])
            #expect(again == descriptor)
            #expect(rest.isEmpty)
        }
    }

    @Test(arguments: errorVectorHexes)
    func errorVectorThrowsTruncatedWireError(hex: String) throws {
        do {
            let payload = bytes(hex: hex)
            let error = wireError { () throws(WireError) in try VP8PayloadDescriptor.parse(payload[...]) }
            #expect(error != nil, "vector \(hex) must be rejected")
            #expect(error?.name == "truncated", "vector \(hex)")
        }
    }
}
