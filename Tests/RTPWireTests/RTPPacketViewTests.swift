import Testing
@testable import RTPWire

/// `RTPPacketView` (RFC 3550 §5.1, RFC 8285, RFC 7741 §4.2): typed errors for malformed packets,
/// and the same answers as `RTPPacket` on vector, random and mutated packets.
@Suite struct RTPPacketViewTests {
    /// A packet with CSRCs, a one-byte extension block (MID, RID, abs-send-time, transport-cc),
    /// a VP8 payload with `descriptor` and optional padding.
    static func packet(descriptor: [UInt8] = [0x90, 0x80, 0x84, 0xD2], data: [UInt8] = [1, 2, 3, 4],
                       csrcs: [UInt32] = [], padding: UInt8 = 0) throws -> [UInt8] {
        let map = RTPHeaderExtensionMap.defaults
        let extensions = try RTPHeaderExtensions(elements: [
            RTPHeaderExtensionElement(try MediaIdentifier("0"), map: map),
            RTPHeaderExtensionElement(try RTPStreamID("h"), map: map),
            RTPHeaderExtensionElement(try AbsSendTime(rawValue: 0x12_3456), map: map),
            RTPHeaderExtensionElement(TransportSequenceNumber(0xBEEF), map: map),
        ])
        let header = RTPHeader(marker: true, payloadType: 96, sequenceNumber: 4321, timestamp: 90_000,
                               ssrc: 0x1234_5678, csrcs: csrcs, extensions: extensions)
        return try RTPPacket(header: header, payload: descriptor + data, paddingLength: padding).serialized()
    }

    @Test func readsEveryFieldWithoutCopying() throws {
        let bytes = try Self.packet(csrcs: [7, 8], padding: 3)
        let view = try RTPPacketView(bytes)
        #expect(view.marker && view.payloadType == 96 && view.sequenceNumber == 4321)
        #expect(view.timestamp == 90_000 && view.ssrc == 0x1234_5678)
        #expect(view.csrcCount == 2 && view.csrc(0) == 7 && view.csrc(1) == 8 && view.csrc(2) == nil)
        #expect(view.paddingLength == 3 && view.payload.count == 8)
        #expect(view.extensionProfile == RTPHeaderExtensions.oneByteProfile)
        let map = RTPHeaderExtensionMap.defaults
        #expect(try view.extensionValue(TransportSequenceNumber.self, map: map) == TransportSequenceNumber(0xBEEF))
        #expect(try view.extensionValue(AbsSendTime.self, map: map)?.rawValue == 0x12_3456)
        #expect(try view.extensionValue(MediaIdentifier.self, map: map)?.value == "0")
        #expect(try view.extensionValue(RTPStreamID.self, map: map)?.value == "h")
        #expect(try view.extensionValue(AudioLevel.self, map: map) == nil)
        let (descriptor, data) = try view.vp8Descriptor()
        #expect(descriptor.pictureID == .fifteenBit(1234) && Array(bytes[data]) == [1, 2, 3, 4])
        #expect(TransportSequenceNumber.valueOffset(in: view, map: map) == TransportSequenceNumber.valueOffset(in: bytes[...], map: map))
        #expect(RTPPacketViewAgreement.violation(in: bytes[...]) == nil)
    }

    @Test func malformedPacketsAreTypedErrors() throws {
        let good = try Self.packet()
        #expect(wireError { () throws(WireError) in try RTPPacketView([]) } == .truncated(field: "RTP V/P/X/CC", needed: 1, available: 0))
        #expect(wireError { () throws(WireError) in try RTPPacketView([0x40] + good.dropFirst()) } == .invalidValue(field: "RTP version", value: 1))
        #expect(wireError { () throws(WireError) in try RTPPacketView(Array(good.prefix(11))) }
                == .truncated(field: "RTP fixed header", needed: 12, available: 11))
        // CC = 3 with the fixed header only.
        #expect(wireError { () throws(WireError) in try RTPPacketView([0x83] + Array(repeating: 0, count: 11)) }
                == .truncated(field: "RTP CSRC list", needed: 12, available: 0))
        // X set, 2 bytes where the 4-byte profile/length word goes.
        #expect(wireError { () throws(WireError) in try RTPPacketView([0x90] + Array(repeating: 0, count: 13)) }
                == .truncated(field: "RTP extension profile and length", needed: 4, available: 2))
        // X set, length 2 words, no body.
        #expect(wireError { () throws(WireError) in try RTPPacketView([0x90] + Array(repeating: 0, count: 11) + [0xBE, 0xDE, 0, 2]) }
                == .truncated(field: "RTP extension body", needed: 8, available: 0))
        // P set, count 0, and a count past the payload.
        #expect(wireError { () throws(WireError) in try RTPPacketView([0xA0] + Array(repeating: 0, count: 12)) }
                == .invalidValue(field: "RTP padding count", value: 0))
        #expect(wireError { () throws(WireError) in try RTPPacketView([0xA0] + Array(repeating: 0, count: 11) + [1, 9]) }
                == .invalidValue(field: "RTP padding count", value: 9))
    }

    @Test func malformedExtensionElementsAreTypedErrorsOnLookup() throws {
        // One-byte block: id 1 claims 4 data bytes, 3 are left in the block.
        let overrun: [UInt8] = [0x90, 96, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0xBE, 0xDE, 0, 1, 0x13, 1, 2, 3]
        let view = try RTPPacketView(overrun)
        #expect(wireError { () throws(WireError) in try view.extensionData(id: 1) } == .truncated(field: "one-byte extension data", needed: 4, available: 3))
        #expect(wireError { () throws(WireError) in try view.validateExtensions() } != nil)
        #expect(RTPPacketViewAgreement.violation(in: overrun[...]) == nil)
        // Id 0 with a nonzero length.
        let idZero: [UInt8] = [0x90, 96, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0xBE, 0xDE, 0, 1, 0x01, 1, 2, 3]
        #expect(wireError { () throws(WireError) in try RTPPacketView(idZero).extensionData(id: 5) }
                == .invalidValue(field: "one-byte extension id 0 with nonzero length", value: 1))
        // Malformed descriptor: X set, no I/L/T/K byte.
        let shortDescriptor = try Self.packet(descriptor: [0x90], data: [])
        #expect(wireError { () throws(WireError) in try RTPPacketView(shortDescriptor).vp8Descriptor() }
                == .truncated(field: "VP8 descriptor I/L/T/K", needed: 1, available: 0))
    }

    @Test(arguments: validVectorHexes + errorVectorHexes)
    func vp8VectorsAgreeWithRTPPacket(hex: String) throws {
        let bytes = try Self.packet(descriptor: RTPWireTests.bytes(hex: hex))
        let view = try RTPPacketView(bytes)
        let oracle = try RTPPacket(parsing: bytes)
        let viewed = Result { () throws(WireError) in try view.vp8Descriptor().descriptor }
        let parsed = Result { () throws(WireError) in try VP8PayloadDescriptor.parse(oracle.payload).descriptor }
        #expect(viewed == parsed)
        #expect(RTPPacketViewAgreement.violation(in: bytes[...]) == nil)
    }

    @Test func randomPacketsAndMutationsAgreeWithRTPPacket() throws {
        var generator = SeededGenerator(seed: 0x71E3)
        var checked = 0
        for round in 0..<400 {
            let csrcs = (0..<Int.random(in: 0...3, using: &generator)).map { _ in UInt32.random(in: 0...UInt32.max, using: &generator) }
            var packet = try Self.packet(descriptor: randomBytes(count: Int.random(in: 1...6, using: &generator), using: &generator),
                                         csrcs: csrcs, padding: UInt8.random(in: 0...4, using: &generator))
            if let violation = RTPPacketViewAgreement.violation(in: packet[...]) {
                Issue.record("round \(round): \(violation)")
            }
            // Flip bytes of the header and extension block, then cut the packet anywhere.
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let index = Int.random(in: 0..<min(packet.count, 40), using: &generator)
                packet[index] = UInt8.random(in: 0...255, using: &generator)
            }
            let cut = Int.random(in: 0...packet.count, using: &generator)
            for candidate in [packet[...], packet[..<cut], packet[cut...]] {
                if let violation = RTPPacketViewAgreement.violation(in: candidate) {
                    Issue.record("round \(round) mutated: \(violation)")
                }
                checked += 1
            }
        }
        #expect(checked == 1200)
    }
}
