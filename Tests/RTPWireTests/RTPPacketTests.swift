import Testing
@testable import RTPWire

@Suite struct RTPPacketTests {
    static let basicHeader = RTPHeader(marker: true, payloadType: 96, sequenceNumber: 0xABCD,
                                       timestamp: 0x1234_5678, ssrc: 0xDEAD_BEEF)

    @Test func minimalPacketParsesKnownBytes() throws {
        let wire = bytes(hex: "80e0abcd12345678deadbeef0102")
        let packet = try RTPPacket(parsing: wire)
        #expect(packet.header == Self.basicHeader)
        #expect(Array(packet.payload) == [1, 2])
        #expect(packet.paddingLength == 0)
        #expect(try packet.serialized() == wire)
    }

    @Test func payloadIsAViewOfTheCallersBytes() throws {
        let wire = bytes(hex: "80e0abcd12345678deadbeef0102")
        let packet = try RTPPacket(parsing: wire)
        #expect(packet.payload.startIndex == 12)
        #expect(packet.payload.endIndex == wire.count)
    }

    @Test func csrcListRoundTrips() throws {
        var header = Self.basicHeader
        header.csrcs = [1, 2, 0xFFFF_FFFF]
        let packet = RTPPacket(header: header, payload: [9, 8, 7])
        let wire = try packet.serialized()
        #expect(wire[0] == 0x83)
        #expect(wire.count == 12 + 12 + 3)
        #expect(try RTPPacket(parsing: wire) == packet)
    }

    @Test func paddingRoundTripsAndIsExcludedFromPayload() throws {
        let packet = RTPPacket(header: Self.basicHeader, payload: [1, 2, 3], paddingLength: 5)
        let wire = try packet.serialized()
        #expect(wire[0] & 0x20 != 0)
        #expect(wire.last == 5)
        #expect(wire.count == 12 + 3 + 5)
        let parsed = try RTPPacket(parsing: wire)
        #expect(parsed == packet)
        #expect(Array(parsed.payload) == [1, 2, 3])
    }

    @Test func paddingCountOfZeroIsRejected() {
        let wire = bytes(hex: "a0e0abcd12345678deadbeef010200")
        #expect(wireError { () throws(WireError) in try RTPPacket(parsing: wire) }?.name == "invalidValue")
    }

    @Test func paddingLongerThanThePacketBodyIsRejected() {
        let wire = bytes(hex: "a0e0abcd12345678deadbeef010204")
        #expect(wireError { () throws(WireError) in try RTPPacket(parsing: wire) }?.name == "invalidValue")
    }

    @Test func paddingFlagWithNoBodyIsTruncated() {
        let wire = bytes(hex: "a0e0abcd12345678deadbeef")
        #expect(wireError { () throws(WireError) in try RTPPacket(parsing: wire) }?.name == "truncated")
    }

    @Test func versionOtherThanTwoIsRejected() {
        for first: UInt8 in [0x00, 0x40, 0xC0] {
            let wire = [first] + bytes(hex: "e0abcd12345678deadbeef")
            #expect(wireError { () throws(WireError) in try RTPPacket(parsing: wire) }
                    == .invalidValue(field: "RTP version", value: Int(first >> 6)))
        }
    }

    @Test func markerAndPayloadTypeAreSeparated() throws {
        let packet = try RTPPacket(parsing: bytes(hex: "806fabcd12345678deadbeef"))
        #expect(packet.header.marker == false)
        #expect(packet.header.payloadType == 111)
    }

    @Test func serializeAppendsWithoutReallocatingReservedBuffer() throws {
        let packet = RTPPacket(header: Self.basicHeader, payload: [UInt8](repeating: 7, count: 100))
        var buffer: [UInt8] = [0xAA]
        buffer.reserveCapacity(1500)
        let before = buffer.withUnsafeBufferPointer { $0.baseAddress }
        try packet.serialize(into: &buffer)
        let after = buffer.withUnsafeBufferPointer { $0.baseAddress }
        #expect(before == after)
        #expect(buffer.first == 0xAA)
        #expect(try RTPPacket(parsing: buffer[1...]) == packet)
    }

    @Test func payloadTypeAbove127CannotBeSerialized() {
        var header = Self.basicHeader
        header.payloadType = 128
        let packet = RTPPacket(header: header, payload: [])
        #expect(wireError { () throws(WireError) in try packet.serialized() }?.name == "outOfRange")
    }

    @Test func moreThan15CSRCsCannotBeSerialized() {
        var header = Self.basicHeader
        header.csrcs = Array(0..<16)
        let packet = RTPPacket(header: header, payload: [])
        #expect(wireError { () throws(WireError) in try packet.serialized() }?.name == "outOfRange")
    }

    @Test func packetWithExtensionsCSRCsAndPaddingRoundTrips() throws {
        var header = Self.basicHeader
        header.csrcs = [42]
        header.extensions = try RTPHeaderExtensions(elements: [
            RTPHeaderExtensionElement(id: 1, data: [0x85]),
            RTPHeaderExtensionElement(id: 10, data: Array("h".utf8)),
        ])
        let packet = RTPPacket(header: header, payload: [1, 2, 3, 4, 5], paddingLength: 3)
        let wire = try packet.serialized()
        #expect(wire.count == packet.encodedLength)
        #expect(try RTPPacket(parsing: wire) == packet)
    }
}
