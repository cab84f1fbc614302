import Testing
@testable import RTPWire

@Suite struct OpusPayloadTests {
    @Test func tocByteDecodesConfigStereoAndCode() {
        let toc = OpusTOC(0xFC)  // config 31, stereo, code 0
        #expect(toc.config == 31)
        #expect(toc.stereo)
        #expect(toc.code == 0)
        #expect(toc.mode == .celt)
        #expect(toc.samplesPerFrame == 960)
        #expect(toc.byte == 0xFC)
    }

    @Test func tocDurationsFollowTheConfigTable() {
        #expect(OpusTOC(0 << 3).samplesPerFrame == 480)    // SILK NB 10 ms
        #expect(OpusTOC(3 << 3).samplesPerFrame == 2880)   // SILK NB 60 ms
        #expect(OpusTOC(13 << 3).samplesPerFrame == 960)   // Hybrid SWB 20 ms
        #expect(OpusTOC(16 << 3).samplesPerFrame == 120)   // CELT NB 2.5 ms
        #expect(OpusTOC(12 << 3).mode == .hybrid)
        #expect(OpusTOC(11 << 3).mode == .silk)
    }

    @Test func packetizerAdvancesTimestampBySamplesAt48kHz() throws {
        var packetizer = OpusPacketizer(initialTimestamp: UInt32.max - 959)
        let packet: [UInt8] = [0x78, 1, 2, 3]  // config 15 (hybrid FB 20 ms), code 0
        let first = try packetizer.packetize(packet)
        #expect(first.timestamp == UInt32.max - 959)
        #expect(first.samples == 960)
        #expect(Array(first.payload) == packet)
        let second = try packetizer.packetize(packet)
        #expect(second.timestamp == 0)
        #expect(packetizer.nextTimestamp == 960)
    }

    @Test func packetizerCountsEveryFrameOfACode3Packet() throws {
        var packetizer = OpusPacketizer(initialTimestamp: 0)
        // config 16 (2.5 ms), code 3, CBR, 4 frames of 1 byte each.
        let result = try packetizer.packetize([16 << 3 | 3, 4, 0xA, 0xB, 0xC, 0xD])
        #expect(result.samples == 480)
    }

    @Test func packetizerRejectsEmptyPacket() {
        var packetizer = OpusPacketizer(initialTimestamp: 0)
        #expect(throws: PacketizerError.emptyFrame) { try packetizer.packetize([]) }
    }

    @Test func packetizerRejectsBadlyFramedPacket() {
        var packetizer = OpusPacketizer(initialTimestamp: 0)
        #expect(throws: PacketizerError.self) { try packetizer.packetize([0x79, 1, 2, 3]) }
        #expect(packetizer.nextTimestamp == 0)
    }

    @Test func depacketizerReturnsThePayloadAsAView() throws {
        let payload: [UInt8] = [0xFC, 9, 9]
        let (packet, info) = try OpusDepacketizer.depacketize(payload[...])
        #expect(packet.startIndex == 0 && packet.count == 3)
        #expect(info.frameCount == 1)
        #expect(info.samples == 960)
    }

    @Test func depacketizerRejectsEmptyPayload() {
        #expect(wireError { () throws(WireError) in try OpusDepacketizer.depacketize([][...]) }?.name == "truncated")
    }

    @Test func code1WithOddBodyIsRejected() {
        #expect(wireError { () throws(WireError) in try OpusDepacketizer.depacketize([0x01, 1, 2, 3][...]) }?.name == "invalidValue")
        #expect(wireError { () throws(WireError) in try OpusDepacketizer.depacketize([0x01, 1, 2][...]) } == nil)
    }

    @Test func code2FirstFrameLongerThanThePacketIsTruncated() {
        #expect(wireError { () throws(WireError) in try OpusDepacketizer.depacketize([0x02, 5, 1, 2][...]) }?.name == "truncated")
        #expect(wireError { () throws(WireError) in try OpusDepacketizer.depacketize([0x02, 252][...]) }?.name == "truncated")
        #expect(wireError { () throws(WireError) in try OpusDepacketizer.depacketize([0x02, 2, 1, 2, 3][...]) } == nil)
    }

    @Test func code3WithZeroFramesOrOver120msIsRejected() {
        #expect(wireError { () throws(WireError) in try OpusDepacketizer.depacketize([0x03, 0][...]) }?.name == "invalidValue")
        // config 3 (60 ms) × 3 frames = 180 ms.
        #expect(wireError { () throws(WireError) in try OpusDepacketizer.depacketize([3 << 3 | 3, 3, 0, 0, 0][...]) }?.name == "invalidValue")
    }

    @Test func code3PaddingAndVBRLengthsAreChecked() {
        // padding flag with length 10 but only 2 bytes left.
        #expect(wireError { () throws(WireError) in try OpusDepacketizer.depacketize([0x03, 0x41, 10, 1, 2][...]) }?.name == "truncated")
        // VBR, 2 frames, first length 5 but only 2 bytes left.
        #expect(wireError { () throws(WireError) in try OpusDepacketizer.depacketize([0x03, 0x82, 5, 1, 2][...]) }?.name == "truncated")
        // VBR, 2 frames, first length 1, valid.
        #expect(wireError { () throws(WireError) in try OpusDepacketizer.depacketize([0x03, 0x82, 1, 1, 2][...]) } == nil)
    }
}
