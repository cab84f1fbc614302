import Testing
@testable import RTPWire

@Suite struct RTPHeaderExtensionTests {
    func packet(with extensions: RTPHeaderExtensions) -> RTPPacket {
        RTPPacket(header: RTPHeader(payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 3,
                                    extensions: extensions), payload: [0xFF])
    }

    @Test func oneByteFormParsesElementsAndSkipsPadding() throws {
        // 0xBEDE, 2 words: id 1 len 1 [0x10], padding 0, id 2 len 3 [a b c], padding.
        let wire = bytes(hex: "90600001 00000002 00000003 bede0002 10100022 aabbcc00 ff")
        let packet = try RTPPacket(parsing: wire)
        let extensions = try #require(packet.header.extensions)
        #expect(extensions.form == .oneByte)
        #expect(extensions.elements == [RTPHeaderExtensionElement(id: 1, data: [0x10]),
                                        RTPHeaderExtensionElement(id: 2, data: [0xAA, 0xBB, 0xCC])])
        #expect(Array(packet.payload) == [0xFF])
        #expect(try packet.serialized() == wire)
    }

    @Test func oneByteIDFifteenStopsParsing() throws {
        // id 1 len 1, then id 15 (stop) followed by bytes that would otherwise be an element.
        let wire = bytes(hex: "90600001 00000002 00000003 bede0002 1010f030 aabbccdd")
        let extensions = try #require(try RTPPacket(parsing: wire).header.extensions)
        #expect(extensions.elements == [RTPHeaderExtensionElement(id: 1, data: [0x10])])
        #expect(extensions.element(id: 3) == nil)
    }

    @Test func twoByteFormParsesAppBitsZeroLengthAndPadding() throws {
        // 0x1005 (appbits 5), 2 words: id 20 len 0, padding 0, id 1 len 2 [a b], padding.
        let wire = bytes(hex: "90600001 00000002 00000003 10050002 14000001 02aabb00")
        let extensions = try #require(try RTPPacket(parsing: wire).header.extensions)
        #expect(extensions.form == .twoByte(appBits: 5))
        #expect(extensions.elements == [RTPHeaderExtensionElement(id: 20, data: []),
                                        RTPHeaderExtensionElement(id: 1, data: [0xAA, 0xBB])])
        #expect(try RTPPacket(parsing: wire).serialized() == wire)
    }

    @Test func unknownProfileIsKeptOpaque() throws {
        let wire = bytes(hex: "90600001 00000002 00000003 abcd0001 01020304")
        let extensions = try #require(try RTPPacket(parsing: wire).header.extensions)
        #expect(extensions.form == .other(profile: 0xABCD))
        #expect(extensions.elements.isEmpty)
        #expect(try RTPPacket(parsing: wire).serialized() == wire)
    }

    @Test func oneByteElementOverrunningTheBlockIsTruncated() {
        let wire = bytes(hex: "90600001 00000002 00000003 bede0001 00003f00")
        #expect(wireError { () throws(WireError) in try RTPPacket(parsing: wire) }?.name == "truncated")
    }

    @Test func twoByteElementOverrunningTheBlockIsTruncated() {
        let wire = bytes(hex: "90600001 00000002 00000003 10000001 0105aabb")
        #expect(wireError { () throws(WireError) in try RTPPacket(parsing: wire) }?.name == "truncated")
    }

    @Test func extensionLengthBeyondThePacketIsTruncated() {
        let wire = bytes(hex: "90600001 00000002 00000003 bede0004 10aa0000")
        #expect(wireError { () throws(WireError) in try RTPPacket(parsing: wire) }?.name == "truncated")
    }

    @Test func buildingPicksOneByteFormWhenAllElementsFit() throws {
        let extensions = try RTPHeaderExtensions(elements: [
            RTPHeaderExtensionElement(id: 1, data: [1]),
            RTPHeaderExtensionElement(id: 14, data: [UInt8](repeating: 2, count: 16)),
        ])
        #expect(extensions.form == .oneByte)
        #expect(extensions.body.count % 4 == 0)
        #expect(try RTPPacket(parsing: packet(with: extensions).serialized()).header.extensions == extensions)
    }

    @Test func buildingPicksTwoByteFormForAnIDAbove14() throws {
        let elements = [RTPHeaderExtensionElement(id: 1, data: [1]), RTPHeaderExtensionElement(id: 15, data: [2])]
        let extensions = try RTPHeaderExtensions(elements: elements)
        #expect(extensions.form == .twoByte(appBits: 0))
        #expect(extensions.elements == elements)
    }

    @Test func buildingPicksTwoByteFormForAnEmptyElement() throws {
        let elements = [RTPHeaderExtensionElement(id: 1, data: [1]), RTPHeaderExtensionElement(id: 2, data: [])]
        let extensions = try RTPHeaderExtensions(elements: elements)
        #expect(extensions.form == .twoByte(appBits: 0))
        #expect(extensions.elements == elements)
    }

    @Test func buildingPicksTwoByteFormForAnElementLongerThan16Bytes() throws {
        let elements = [RTPHeaderExtensionElement(id: 3, data: [UInt8](repeating: 9, count: 17)),
                        RTPHeaderExtensionElement(id: 4, data: [1])]
        let extensions = try RTPHeaderExtensions(elements: elements)
        #expect(extensions.form == .twoByte(appBits: 0))
        let parsed = try #require(try RTPPacket(parsing: packet(with: extensions).serialized()).header.extensions)
        #expect(parsed.elements == elements)
    }

    @Test func buildingRejectsIDZeroAndOverlongData() {
        #expect(wireError { () throws(WireError) in
            try RTPHeaderExtensions(elements: [RTPHeaderExtensionElement(id: 0, data: [1])])
        }?.name == "outOfRange")
        #expect(wireError { () throws(WireError) in
            try RTPHeaderExtensions(elements: [RTPHeaderExtensionElement(id: 1, data: [UInt8](repeating: 0, count: 256))])
        }?.name == "outOfRange")
    }

    @Test func explicitOneByteFormRejectsElementsThatDoNotFit() {
        #expect(wireError { () throws(WireError) in
            try RTPHeaderExtensions(elements: [RTPHeaderExtensionElement(id: 15, data: [1])], form: .oneByte)
        }?.name == "outOfRange")
    }

    @Test func elementLookupByID() throws {
        let extensions = try RTPHeaderExtensions(elements: [
            RTPHeaderExtensionElement(id: 5, data: [5, 5]), RTPHeaderExtensionElement(id: 6, data: [6]),
        ])
        #expect(extensions.element(id: 6).map(Array.init) == [6])
        #expect(extensions.element(id: 7) == nil)
    }
}
