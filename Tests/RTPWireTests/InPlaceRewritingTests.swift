import Testing
@testable import RTPWire

@Suite struct InPlaceRewritingTests {
    func vp8Packet() throws -> [UInt8] {
        var packetizer = VP8Packetizer(initialPictureID: 0x1234, initialTL0PicIdx: 5)
        let payload = try packetizer.packetize(makeFrame(length: 50, keyFrame: true))[0].payload
        let header = RTPHeader(marker: true, payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 3, csrcs: [4])
        return try RTPPacket(header: header, payload: payload).serialized()
    }

    @Test func rtpFieldsAreRewrittenInPlace() throws {
        var wire = try vp8Packet()
        try RTPHeader.rewrite(in: &wire, marker: false, payloadType: 100, sequenceNumber: 0xFFFF,
                              timestamp: 0xAABB_CCDD, ssrc: 0x0102_0304)
        let header = try RTPPacket(parsing: wire).header
        #expect(header == RTPHeader(marker: false, payloadType: 100, sequenceNumber: 0xFFFF,
                                    timestamp: 0xAABB_CCDD, ssrc: 0x0102_0304, csrcs: [4]))
    }

    @Test func fixedFieldsReadInPlaceMatchTheParsedHeaderAtAnySliceOffset() throws {
        let wire = try vp8Packet()
        let header = try RTPPacket(parsing: wire).header
        let framed = [0xEE, 0xEE] + wire
        for packet in [wire[...], framed[2...]] {
            let fields = try RTPFixedFields(reading: packet)
            #expect(fields == RTPFixedFields(payloadType: header.payloadType, sequenceNumber: header.sequenceNumber,
                                             timestamp: header.timestamp, ssrc: header.ssrc))
        }
        #expect(wireError { () throws(WireError) in _ = try RTPFixedFields(reading: wire[0..<11]) }?.name == "truncated")
        var versionOne = wire
        versionOne[0] = 0x40
        #expect(wireError { () throws(WireError) in _ = try RTPFixedFields(reading: versionOne[...]) }?.name == "invalidValue")
    }

    @Test func rtpRewriteOfATruncatedPacketThrowsAndChangesNothing() {
        var wire: [UInt8] = [0x80, 0x60, 0, 1]
        #expect(wireError { () throws(WireError) in try RTPHeader.rewrite(in: &wire, sequenceNumber: 9) }?.name == "truncated")
        #expect(wire == [0x80, 0x60, 0, 1])
        #expect(wireError { () throws(WireError) in try RTPHeader.rewrite(in: &wire, at: 99, sequenceNumber: 9) }?.name == "truncated")
        #expect(wireError { () throws(WireError) in try RTPHeader.rewrite(in: &wire, at: -1, sequenceNumber: 9) }?.name == "truncated")
    }

    @Test func vp8PictureIDAndTL0PicIdxAreRewrittenInPlace() throws {
        var wire = try vp8Packet()
        let offset = try RTPPacket(parsing: wire).payload.startIndex
        try VP8PayloadDescriptor.rewrite(in: &wire, at: offset, pictureID: 0x7FFF, tl0PicIdx: 200)
        let packet = try RTPPacket(parsing: wire)
        let (descriptor, data) = try VP8PayloadDescriptor.parse(packet.payload)
        #expect(descriptor.pictureID == .fifteenBit(0x7FFF))
        #expect(descriptor.tl0PicIdx == 200)
        #expect(descriptor.temporalID == 0)
        #expect(data.count == 50)
    }

    @Test func sevenBitPictureIDIsRewrittenModulo128() throws {
        var wire = bytes(hex: "90c011 05 ff")  // X, S; I+L; 7-bit PictureID 17; TL0 5
        try VP8PayloadDescriptor.rewrite(in: &wire, at: 0, pictureID: 300, tl0PicIdx: 6)
        let descriptor = try VP8PayloadDescriptor.parse(wire[...]).descriptor
        #expect(descriptor.pictureID == .sevenBit(44))  // 300 mod 128
        #expect(descriptor.tl0PicIdx == 6)
    }

    @Test func rewritingAFieldTheDescriptorLacksThrows() {
        var wire = bytes(hex: "10 01")
        #expect(wireError { () throws(WireError) in try VP8PayloadDescriptor.rewrite(in: &wire, at: 0, pictureID: 1) }?.name == "unsupported")
        #expect(wireError { () throws(WireError) in try VP8PayloadDescriptor.rewrite(in: &wire, at: 0, tl0PicIdx: 1) }?.name == "unsupported")
        #expect(wireError { () throws(WireError) in try VP8PayloadDescriptor.rewrite(in: &wire, at: 5, tl0PicIdx: 1) }?.name == "truncated")
    }
}
