import Testing
@testable import RTPWire

/// Every parser must answer any byte string with a value or a `WireError` (never a trap), and a
/// successful parse must re-serialize and re-parse to an equal value.
@Suite struct ParserRobustnessTests {
    static let randomInputCount = 20_000

    static func validRTPPackets() throws -> [[UInt8]] {
        let map = RTPHeaderExtensionMap.defaults
        var withEverything = RTPHeader(marker: true, payloadType: 96, sequenceNumber: 65535, timestamp: 1, ssrc: 2,
                                       csrcs: [3, 4])
        withEverything.extensions = try RTPHeaderExtensions(elements: [
            RTPHeaderExtensionElement(AudioLevel(voiceActivity: true, level: 3), map: map),
            RTPHeaderExtensionElement(RTPStreamID("f"), map: map),
        ])
        var twoByte = withEverything
        twoByte.extensions = try RTPHeaderExtensions(elements: [RTPHeaderExtensionElement(id: 200, data: [1, 2, 3])])
        return [
            try RTPPacket(header: withEverything, payload: [1, 2, 3, 4], paddingLength: 4).serialized(),
            try RTPPacket(header: twoByte, payload: [9], paddingLength: 0).serialized(),
            try RTPPacket(header: RTPHeader(payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0), payload: []).serialized(),
        ]
    }

    static func roundTripRTP(_ input: ArraySlice<UInt8>) throws {
        guard let packet = try? RTPPacket(parsing: input) else { return }
        let again = try RTPPacket(parsing: packet.serialized())
        #expect(again == packet)
    }

    static func roundTripDescriptor(_ input: ArraySlice<UInt8>) throws {
        guard let (descriptor, _) = try? VP8PayloadDescriptor.parse(input) else { return }
        var out: [UInt8] = []
        try descriptor.serialize(into: &out)
        #expect(try VP8PayloadDescriptor.parse(out[...]).descriptor == descriptor)
    }

    static func roundTripPayloadHeader(_ input: ArraySlice<UInt8>) throws {
        guard let header = try? VP8PayloadHeader(parsing: input) else { return }
        var out: [UInt8] = []
        try header.serialize(into: &out)
        #expect(out.count == header.encodedLength)
        #expect(try VP8PayloadHeader(parsing: out[...]) == header)
    }

    static func roundTripOpus(_ input: ArraySlice<UInt8>) throws {
        guard let info = try? OpusPacketInfo(parsing: input) else { return }
        #expect(info.toc.byte == input.first)
        #expect(info.samples > 0 && info.samples <= 5760)
    }

    @Test func everyTruncatedRTPPacketBeforeThePayloadThrowsWireError() throws {
        for packet in try Self.validRTPPackets() {
            let parsed = try RTPPacket(parsing: packet)
            let headerLength = parsed.header.encodedLength
            for length in 0..<headerLength {
                #expect(wireError { () throws(WireError) in try RTPPacket(parsing: packet[..<length]) } != nil,
                        "prefix \(length) of \(packet.count)")
            }
            for length in headerLength...packet.count { try Self.roundTripRTP(packet[..<length]) }
        }
    }

    @Test func everyTruncatedVP8DescriptorThrowsWireError() throws {
        var packetizer = VP8Packetizer(initialPictureID: 0x1234, initialTL0PicIdx: 9)
        let payload = try packetizer.packetize(makeFrame(length: 20, keyFrame: true))[0].payload
        for length in 0..<VP8Packetizer.descriptorLength {
            #expect(wireError { () throws(WireError) in try VP8PayloadDescriptor.parse(payload[..<length]) }?.name == "truncated")
        }
        for length in VP8Packetizer.descriptorLength...payload.count { try Self.roundTripDescriptor(payload[..<length]) }
    }

    @Test func everyTruncatedVP8PayloadHeaderThrowsWireError() throws {
        for header in [VP8PayloadHeader(firstPartitionSize: 0x7_FFFF,
                                        keyFrameInfo: .init(width: 1280, horizontalScale: 1, height: 720, verticalScale: 2)),
                       VP8PayloadHeader(version: 3, showFrame: false, firstPartitionSize: 1234)] {
            var wire: [UInt8] = []
            try header.serialize(into: &wire)
            #expect(try VP8PayloadHeader(parsing: wire[...]) == header)
            for length in 0..<wire.count {
                #expect(wireError { () throws(WireError) in try VP8PayloadHeader(parsing: wire[..<length]) }?.name == "truncated")
            }
        }
    }

    @Test func vp8KeyFrameWithoutStartCodeIsInvalid() {
        let wire: [UInt8] = [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2B, 0, 5, 0, 5]
        #expect(wireError { () throws(WireError) in try VP8PayloadHeader(parsing: wire[...]) }?.name == "invalidValue")
    }

    @Test func everyTruncatedOpusCode3PacketThrowsWireError() {
        let packet: [UInt8] = [0x03, 0xC3, 2, 1, 1, 0xA, 0xB, 0xC, 0, 0]  // VBR, padding 2, 3 frames
        #expect(wireError { () throws(WireError) in try OpusPacketInfo(parsing: packet[...]) } == nil)
        for length in 0..<5 {
            #expect(wireError { () throws(WireError) in try OpusPacketInfo(parsing: packet[..<length]) } != nil)
        }
    }

    @Test func randomBytesNeverTrapAnyParserAndParsesRoundTrip() throws {
        var generator = SeededGenerator(seed: 0x5EED)
        let map = RTPHeaderExtensionMap.defaults
        for _ in 0..<Self.randomInputCount {
            let input = randomBytes(count: Int.random(in: 0...48, using: &generator), using: &generator)[...]
            try Self.roundTripRTP(input)
            try Self.roundTripDescriptor(input)
            try Self.roundTripPayloadHeader(input)
            try Self.roundTripOpus(input)
            _ = try? AudioLevel(extensionData: input)
            _ = try? AbsSendTime(extensionData: input)
            _ = try? TransportSequenceNumber(extensionData: input)
            _ = try? MediaIdentifier(extensionData: input)
            _ = try? RTPStreamID(extensionData: input)
            _ = try? RepairedRTPStreamID(extensionData: input)
            let body = input.prefix(input.count / 4 * 4)
            for profile: UInt16 in [0xBEDE, 0x1000, 0x100F] {
                if let extensions = try? RTPHeaderExtensions(profile: profile, body: body) {
                    _ = try? extensions.value(RTPStreamID.self, map: map)
                    let rebuilt = try? RTPHeaderExtensions(elements: extensions.elements, form: extensions.form)
                    #expect(rebuilt?.elements == extensions.elements)
                }
            }
        }
    }

    @Test func bitFlippedValidPacketsNeverTrapAndParsesRoundTrip() throws {
        var generator = SeededGenerator(seed: 0xF11B)
        let packets = try Self.validRTPPackets()
        for _ in 0..<Self.randomInputCount {
            var packet = packets[Int.random(in: 0..<packets.count, using: &generator)]
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let index = Int.random(in: 0..<packet.count, using: &generator)
                packet[index] ^= 1 << UInt8.random(in: 0...7, using: &generator)
            }
            try Self.roundTripRTP(packet[...])
        }
    }

    @Test func randomPacketsNeverTrapTheFrameAssembler() {
        var generator = SeededGenerator(seed: 0xA55E)
        var assembler = VP8FrameAssembler(maxPacketAge: 512)
        for _ in 0..<Self.randomInputCount {
            let payload = randomBytes(count: Int.random(in: 0...24, using: &generator), using: &generator)
            _ = try? assembler.insert(sequenceNumber: UInt16.random(in: 0...40, using: &generator) &+ 65520,
                                      timestamp: UInt32.random(in: 0...3, using: &generator),
                                      marker: Bool.random(using: &generator), payload: payload[...])
            if Int.random(in: 0..<100, using: &generator) == 0 { _ = assembler.missingSequenceNumbers() }
        }
        #expect(assembler.bufferedPacketCount <= 512 + 64)
    }
}
