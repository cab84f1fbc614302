import Testing
@testable import RTPWire

@Suite struct RTPHeaderExtensionValueTests {
    let map = RTPHeaderExtensionMap.defaults

    func roundTrip<Value: RTPHeaderExtensionValue>(_ value: Value) throws -> Value? {
        let element = try RTPHeaderExtensionElement(value, map: map)
        let extensions = try RTPHeaderExtensions(elements: [element])
        let packet = RTPPacket(header: RTPHeader(payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 3,
                                                 extensions: extensions), payload: [1])
        let parsed = try RTPPacket(parsing: packet.serialized())
        return try parsed.header.extensions?.value(Value.self, map: map)
    }

    @Test func defaultMapAssignsDocumentedIDs() {
        #expect(map.id(for: .audioLevel) == 1)
        #expect(map.id(for: .absSendTime) == 2)
        #expect(map.id(for: .transportSequenceNumber) == 3)
        #expect(map.id(for: .mid) == 4)
        #expect(map.id(for: .rid) == 10)
        #expect(map.id(for: .repairedRid) == 11)
        #expect(map.kind(for: 5) == nil)
    }

    @Test func mapRegistrationMovesAKindAndRejectsReservedIDs() throws {
        var custom = RTPHeaderExtensionMap.defaults
        try custom.register(.mid, id: 9)
        #expect(custom.id(for: .mid) == 9)
        #expect(custom.kind(for: 4) == nil)
        #expect(wireError { () throws(WireError) in try custom.register(.rid, id: 0) }?.name == "outOfRange")
        #expect(wireError { () throws(WireError) in try custom.register(.rid, id: 15) }?.name == "outOfRange")
    }

    @Test func kindsRoundTripThroughTheirURIs() {
        for kind in RTPHeaderExtensionKind.allCases {
            #expect(RTPHeaderExtensionKind(rawValue: kind.uri) == kind)
        }
    }

    @Test func midRoundTrips() throws {
        let mid = try MediaIdentifier("video-0")
        #expect(try roundTrip(mid) == mid)
    }

    @Test func ridRoundTripsForSimulcastLayerNames() throws {
        for name in ["q", "h", "f"] {
            let rid = try RTPStreamID(name)
            #expect(try roundTrip(rid)?.value == name)
        }
    }

    @Test func repairedRidRoundTrips() throws {
        let rid = try RepairedRTPStreamID("f")
        #expect(try roundTrip(rid) == rid)
    }

    @Test func ridRejectsCharactersOutsideRidId() {
        #expect(wireError { () throws(WireError) in try RTPStreamID("a b") }?.name == "outOfRange")
        #expect(wireError { () throws(WireError) in try RTPStreamID("") }?.name == "outOfRange")
        #expect(wireError { () throws(WireError) in try RTPStreamID(extensionData: [0x61, 0x00][...]) }?.name == "invalidValue")
    }

    @Test func midRejectsEmptyAndControlCharacters() {
        #expect(wireError { () throws(WireError) in try MediaIdentifier(extensionData: [][...]) }?.name == "invalidValue")
        #expect(wireError { () throws(WireError) in try MediaIdentifier(extensionData: [0x0A][...]) }?.name == "invalidValue")
    }

    @Test func absSendTimeIsSixPointEighteenFixedPoint() throws {
        let value = AbsSendTime(microseconds: 1_500_000)
        #expect(value.rawValue == 0x06_0000)  // 1.5 s = 1.5 * 2^18
        #expect(value.seconds == 1.5)
        #expect(value.extensionData == [0x06, 0x00, 0x00])
        #expect(try roundTrip(value) == value)
    }

    @Test func absSendTimeWrapsEvery64Seconds() {
        #expect(AbsSendTime(microseconds: 65_000_000) == AbsSendTime(microseconds: 1_000_000))
        #expect(AbsSendTime(microseconds: UInt64.max).rawValue <= 0xFF_FFFF)
    }

    @Test func absSendTimeRejectsWrongLength() {
        #expect(wireError { () throws(WireError) in try AbsSendTime(extensionData: [1, 2][...]) }?.name == "invalidValue")
        #expect(wireError { () throws(WireError) in try AbsSendTime(rawValue: 0x100_0000) }?.name == "outOfRange")
    }

    @Test func transportSequenceNumberRoundTrips() throws {
        let value = TransportSequenceNumber(0xFEDC)
        #expect(value.extensionData == [0xFE, 0xDC])
        #expect(try roundTrip(value) == value)
    }

    @Test func transportSequenceNumberRejectsWrongLength() {
        #expect(wireError { () throws(WireError) in try TransportSequenceNumber(extensionData: [1][...]) }?.name == "invalidValue")
    }

    @Test func audioLevelCarriesVoiceBitAndLevel() throws {
        let value = try AudioLevel(voiceActivity: true, level: 42)
        #expect(value.extensionData == [0x80 | 42])
        #expect(try roundTrip(value) == value)
        let silent = try AudioLevel(extensionData: [0x7F][...])
        #expect(silent.voiceActivity == false)
        #expect(silent.level == 127)
    }

    @Test func audioLevelRejectsLevelAbove127AndWrongLength() {
        #expect(wireError { () throws(WireError) in try AudioLevel(voiceActivity: false, level: 128) }?.name == "outOfRange")
        #expect(wireError { () throws(WireError) in try AudioLevel(extensionData: [][...]) }?.name == "invalidValue")
    }

    @Test func absentOrUnmappedExtensionReadsAsNil() throws {
        let extensions = try RTPHeaderExtensions(elements: [RTPHeaderExtensionElement(id: 1, data: [5])])
        #expect(try extensions.value(AbsSendTime.self, map: map) == nil)
        #expect(try extensions.value(AudioLevel.self, map: RTPHeaderExtensionMap()) == nil)
    }

    @Test func unnegotiatedKindCannotBeBuilt() {
        #expect(wireError { () throws(WireError) in
            try RTPHeaderExtensionElement(TransportSequenceNumber(1), map: RTPHeaderExtensionMap())
        }?.name == "unsupported")
    }

    @Test func allDefaultExtensionsTogetherUseTheOneByteForm() throws {
        let elements = [
            try RTPHeaderExtensionElement(AudioLevel(voiceActivity: false, level: 30), map: map),
            try RTPHeaderExtensionElement(AbsSendTime(microseconds: 123_456), map: map),
            try RTPHeaderExtensionElement(TransportSequenceNumber(7), map: map),
            try RTPHeaderExtensionElement(MediaIdentifier("0"), map: map),
            try RTPHeaderExtensionElement(RTPStreamID("h"), map: map),
        ]
        let extensions = try RTPHeaderExtensions(elements: elements)
        #expect(extensions.form == .oneByte)
        #expect(try extensions.value(RTPStreamID.self, map: map)?.value == "h")
        #expect(try extensions.value(TransportSequenceNumber.self, map: map)?.value == 7)
    }
}
