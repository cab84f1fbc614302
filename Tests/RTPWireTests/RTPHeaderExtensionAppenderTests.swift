import Testing
@testable import RTPWire

@Suite struct RTPHeaderExtensionAppenderTests {
    let map = RTPHeaderExtensionMap.defaults
    let header = RTPHeader(marker: true, payloadType: 96, sequenceNumber: 7, timestamp: 8, ssrc: 9, csrcs: [1])

    @Test func appendedOneByteElementsMatchTheBlockBuilder() throws {
        var direct: [UInt8] = []
        try header.serialize(into: &direct, extensionForm: .oneByte) { (appender: inout RTPHeaderExtensionAppender) throws(WireError) in
            try appender.append(TransportSequenceNumber(513), map: map)
            try appender.append(RTPStreamID("q"), map: map)
        }
        var viaBlock = header
        viaBlock.extensions = try RTPHeaderExtensions(elements: [
            RTPHeaderExtensionElement(TransportSequenceNumber(513), map: map),
            RTPHeaderExtensionElement(RTPStreamID("q"), map: map),
        ])
        var expected: [UInt8] = []
        try viaBlock.serialize(into: &expected)
        #expect(direct == expected)
        let parsed = try RTPPacket(parsing: direct)
        #expect(try parsed.header.extensions?.value(TransportSequenceNumber.self, map: map)?.value == 513)
    }

    @Test func appendedTwoByteElementsRoundTrip() throws {
        var wire: [UInt8] = []
        try header.serialize(into: &wire, extensionForm: .twoByte(appBits: 3)) { (appender: inout RTPHeaderExtensionAppender) throws(WireError) in
            try appender.append(id: 100, data: [1, 2, 3][...])
            try appender.append(id: 2, data: [][...])
        }
        let extensions = try #require(try RTPPacket(parsing: wire).header.extensions)
        #expect(extensions.form == .twoByte(appBits: 3))
        #expect(extensions.elements == [RTPHeaderExtensionElement(id: 100, data: [1, 2, 3]),
                                        RTPHeaderExtensionElement(id: 2, data: [])])
    }

    @Test func elementThatDoesNotFitTheFormThrowsAndLeavesTheBufferUntouched() {
        var wire: [UInt8] = [0xAB]
        let error = wireError { () throws(WireError) in
            try header.serialize(into: &wire, extensionForm: .oneByte) { (appender: inout RTPHeaderExtensionAppender) throws(WireError) in
                try appender.append(id: 1, data: [1][...])
                try appender.append(id: 2, data: [UInt8](repeating: 0, count: 17)[...])
            }
        }
        #expect(error?.name == "outOfRange")
        #expect(wire == [0xAB])
    }

    @Test func appendingIntoReservedCapacityDoesNotReallocate() throws {
        var wire: [UInt8] = []
        wire.reserveCapacity(1500)
        let before = wire.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        for sequence in 0..<100 {
            wire.removeAll(keepingCapacity: true)
            try header.serialize(into: &wire, extensionForm: .oneByte) { (appender: inout RTPHeaderExtensionAppender) throws(WireError) in
                try appender.append(TransportSequenceNumber(UInt16(sequence)), map: map)
                try appender.append(AbsSendTime(microseconds: UInt64(sequence) * 1000), map: map)
            }
            wire.append(contentsOf: [1, 2, 3])
        }
        let after = wire.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        #expect(before == after)
        #expect(try RTPPacket(parsing: wire).header.sequenceNumber == 7)
    }
}
