import Foundation
import Testing
import RTPWire

/// REMB (draft-alvestrand-rmcat-remb-03 §2.2) bitrate encoding.
@Suite struct RTCPREMBTests {
    struct VectorFile: Decodable {
        struct Case: Decodable {
            let bitrateBps: UInt64
            let numSSRCAndBitrateHex: String
        }
        let cases: [Case]
    }

    /// /work/shared/vectors, found from this file: Tests/RTPWireTests → repo root → ../shared.
    static var vectorURL: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("../shared/vectors/rtcp_remb.json").standardizedFileURL
    }

    @Test func sharedVectorEncodesAndDecodes() throws {
        let file = try JSONDecoder().decode(VectorFile.self, from: Data(contentsOf: Self.vectorURL))
        try #require(!file.cases.isEmpty)
        for vector in file.cases {
            let remb = ReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: vector.bitrateBps, ssrcs: [0xAABB_CCDD])
            let bytes = try RTCPCompoundPacket(packets: [.receiverEstimatedMaxBitrate(remb)]).serialized()
            // Header 4, sender and media SSRC 8, "REMB" 4, then num SSRC + exponent/mantissa.
            #expect(Array(bytes[16..<20]) == rtcpHex(vector.numSSRCAndBitrateHex))
            guard case let .receiverEstimatedMaxBitrate(parsed) = try RTCPCompoundPacket(parsing: bytes).packets.first
            else { Issue.record("not REMB"); continue }
            #expect(parsed.bitrate == vector.bitrateBps)
            #expect(parsed.ssrcs == [0xAABB_CCDD])
        }
    }

    @Test func buildingPicksSmallestExponentThatFits() {
        let exact = ReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: 262_143, ssrcs: [])
        #expect(exact.exponent == 0 && exact.mantissa == 262_143)
        let next = ReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: 262_144, ssrcs: [])
        #expect(next.exponent == 1 && next.mantissa == 131_072)
        let huge = ReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: .max, ssrcs: [])
        #expect(huge.exponent == 46 && huge.mantissa == 262_143)
    }

    @Test func bitrateSaturatesInsteadOfOverflowing() {
        let remb = ReceiverEstimatedMaxBitrate(senderSSRC: 1, exponent: 63, mantissa: 3, ssrcs: [])
        #expect(remb.bitrate == .max)
    }

    @Test func ssrcCountMustMatchLength() {
        var bytes = RTCPSamples.remb
        bytes[16] = 2
        #expect(throws: WireError.invalidValue(field: "REMB octets for 2 SSRCs", value: 4)) {
            try RTCPCompoundPacket(parsing: bytes)
        }
    }
}
