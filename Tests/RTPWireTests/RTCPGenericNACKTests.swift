import Testing
import RTPWire

/// Generic NACK (RFC 4585 §6.2.1) building from and expanding to sequence number lists.
@Suite struct RTCPGenericNACKTests {
    @Test func parsedNACKExpandsPIDAndBitmask() throws {
        let compound = try RTCPCompoundPacket(parsing: RTCPSamples.genericNACK)
        guard case let .genericNACK(nack) = compound.packets.first else { Issue.record("not NACK"); return }
        #expect(nack.items == [NACKItem(packetID: 1234, lostBitmask: 0b101)])
        #expect(nack.lostSequenceNumbers == [1234, 1235, 1237])
    }

    @Test func numbersWithinSixteenShareOneItem() {
        let items = NACKItem.items(forLost: [100, 101, 116])
        #expect(items == [NACKItem(packetID: 100, lostBitmask: 0b1000_0000_0000_0001)])
    }

    @Test func seventeenApartStartsNewItem() {
        #expect(NACKItem.items(forLost: [100, 117]) == [NACKItem(packetID: 100), NACKItem(packetID: 117)])
    }

    @Test func bitmaskCrossesSequenceNumberWrap() {
        let lost: [UInt16] = [65534, 65535, 0, 1, 20]
        let items = NACKItem.items(forLost: lost)
        #expect(items == [NACKItem(packetID: 65534, lostBitmask: 0b111), NACKItem(packetID: 20)])
        #expect(GenericNACK(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: lost).lostSequenceNumbers == lost)
    }

    @Test func moreThanSeventeenGapsExpandBackToTheSameList() throws {
        // 40 losses, every third packet, starting just before the wrap: needs several items.
        let lost = (0..<40).map { UInt16(truncatingIfNeeded: 65500 + 3 * $0) }
        let nack = GenericNACK(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: lost)
        #expect(nack.items.count == 7)   // each item covers its PID and 5 more (3, 6, …, 15 ahead)
        #expect(nack.lostSequenceNumbers == lost)
        let bytes = try RTCPCompoundPacket(packets: [.genericNACK(nack)]).serialized()
        #expect(try RTCPCompoundPacket(parsing: bytes).packets == [.genericNACK(nack)])
    }

    @Test func duplicatesAreDroppedAndOutOfOrderNumbersStillReported() {
        let items = NACKItem.items(forLost: [10, 10, 12, 5])
        #expect(items == [NACKItem(packetID: 10, lostBitmask: 0b10), NACKItem(packetID: 5)])
        #expect(Set(items.flatMap(\.lostSequenceNumbers)) == [5, 10, 12])
    }
}
