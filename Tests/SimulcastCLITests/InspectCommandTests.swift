import Testing
import CommandLineSupport
import MediaCodecs
import RTPWire
import Simulcast
@testable import SimulcastCLI

private let defaults = try! InspectOptions(CommandLineArguments([], valueOptions: []))

/// Field `key` of a JSON object.
private func field(_ json: JSONValue, _ key: String) -> JSONValue? {
    guard case let .object(pairs) = json else { return nil }
    return pairs.first { $0.0 == key }?.1
}

@Suite struct InspectCommandTests {
    @Test func rtpPacketWithExtensionsAndVP8DescriptorPrintsTypedFields() throws {
        // One-byte extensions: id 4 MID "0", id 10 RID "f"; VP8 descriptor with 15-bit PictureID 4711, TL0PICIDX 42, TID 1 Y.
        var packet: [UInt8] = []
        let extensions = try RTPHeaderExtensions(elements: [
            RTPHeaderExtensionElement(MediaIdentifier("0"), map: .defaults),
            RTPHeaderExtensionElement(RTPStreamID("f"), map: .defaults),
        ])
        try RTPHeader(marker: true, payloadType: 96, sequenceNumber: 7, timestamp: 90000, ssrc: 1234,
                      extensions: extensions).serialize(into: &packet)
        try VP8PayloadDescriptor(startOfPartition: true, pictureID: .fifteenBit(4711), tl0PicIdx: 42,
                                 temporalID: 1, layerSync: true).serialize(into: &packet)
        packet += [0x00, 0x01, 0x02]
        let (json, ok) = InspectCommand.describe(hex: PacketDescription.hex(packet), options: defaults)
        #expect(ok)
        let text = json.serialized()
        #expect(text.contains(#""kind":"mid","value":"0""#))
        #expect(text.contains(#""kind":"rid","value":"f""#))
        #expect(text.contains(#""pictureID":4711,"pictureIDBits":15,"tl0PicIdx":42,"temporalId":1,"layerSync":true"#))
        #expect(field(json, "ssrc") == .int(1234))
    }

    @Test func extensionIdsCanBeRemapped() throws {
        let options = try InspectOptions(CommandLineArguments(["--ext", "7=rid"], valueOptions: ["ext"]))
        var packet: [UInt8] = []
        try RTPHeader(payloadType: 100, sequenceNumber: 1, timestamp: 1, ssrc: 1,
                      extensions: RTPHeaderExtensions(elements: [RTPHeaderExtensionElement(id: 7, data: Array("h".utf8))]))
            .serialize(into: &packet)
        let (json, _) = InspectCommand.describe(hex: PacketDescription.hex(packet), options: options)
        #expect(json.serialized().contains(#""kind":"rid","value":"h""#))
    }

    @Test func rtcpIsChosenByRFC5761PayloadTypeRule() {
        // PLI: V=2 FMT=1, PT=206, length 2, sender 1, media 2.
        let (json, ok) = InspectCommand.describe(hex: "81ce0002 00000001 00000002", options: defaults)
        #expect(ok)
        #expect(json.serialized() == #"{"type":"rtcp","packets":[{"type":"PLI","senderSSRC":1,"mediaSSRC":2}]}"#)
    }

    @Test(arguments: ["", "80", "9000", "c0000000", "81c8000bcafebabe", "zz", "123"])
    func malformedInputIsATypedErrorObject(hex: String) {
        let (json, ok) = InspectCommand.describe(hex: hex, options: defaults)
        #expect(!ok)
        guard case let .string(name)? = field(json, "error") else {
            Issue.record("no error name in \(json.serialized())")
            return
        }
        #expect(["truncated", "invalidValue", "unsupported", "outOfRange", "invalidHex"].contains(name))
    }

    @Test func pcapSummaryCountsFramesKeyFramesGapsAndTemporalIds() throws {
        // Encode 12 frames of one layer, packetize (sequence numbers wrap), drop one packet inside
        // the key frame, write a pcap, summarise it.
        let plan = try LayerPlan(width: 320, height: 180)
        let encoder = try SimulcastEncoder(plan: plan)
        let source = try VideoSource(testSceneWidth: 320, height: 180)
        var packetizer = VP8Packetizer(payloadBudget: 300, initialPictureID: 100, initialTL0PicIdx: 5)
        let writer = PcapWriter(linkType: .ethernet, timestampResolution: .microseconds)
        var file: [UInt8] = []
        writer.writeFileHeader(into: &file)
        var sequence: UInt16 = 65530
        var dropped = false
        for _ in 0..<12 {
            guard let frame = try source.nextFrame() else { break }
            for encoded in try encoder.encode(frame) {
                try packetizer.packetize(encoded) { payload, isLast in
                    var packet: [UInt8] = []
                    try? RTPHeader(marker: isLast, payloadType: 96, sequenceNumber: sequence,
                                   timestamp: encoded.rtpTimestamp, ssrc: 42).serialize(into: &packet)
                    packet += payload
                    sequence &+= 1
                    if !dropped && sequence == 65532 { dropped = true; return }  // the key frame's 2nd packet
                    try? writer.writeUDP(packet[...], from: IPv4Address(127, 0, 0, 1), port: 5000,
                                         to: IPv4Address(127, 0, 0, 1), port: 5004,
                                         at: PcapTimestamp(seconds: 0, nanoseconds: 0), into: &file)
                }
            }
        }
        let (json, ok) = InspectCommand.summarize(pcap: file, options: defaults)
        #expect(ok)
        guard case let .array(streams)? = field(json, "streams"), let stream = streams.first else {
            Issue.record("no stream in \(json.serialized())")
            return
        }
        #expect(field(stream, "ssrc") == .int(42))
        #expect(field(stream, "frames") == .int(12))
        #expect(field(stream, "keyFrames") == .int(1))
        #expect(field(stream, "keyFrameSizes") == .array(["320x180"]))
        #expect(field(stream, "sequenceGaps") == .int(1))
        #expect(field(stream, "pictureIDJumps") == .int(0))
        #expect(field(stream, "temporalIds") == .array([0, 1, 2]))
    }

    @Test func notAPcapIsATypedError() {
        let (json, ok) = InspectCommand.summarize(pcap: [1, 2, 3], options: defaults)
        #expect(!ok)
        #expect(field(json, "error") != nil)
    }
}
