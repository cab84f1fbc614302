import Testing
@testable import SessionCore

private func stored(_ history: PacketHistory, _ seq: UInt16) -> [UInt8]? {
    history.withPacket(sequenceNumber: seq) { Array($0) }
}

@Suite struct PacketHistoryTests {
    @Test func returnsStoredPacketBySequenceNumber() {
        var history = PacketHistory(capacity: 8)
        history.store([1, 2, 3], sequenceNumber: 100)
        #expect(stored(history, 100) == [1, 2, 3])
    }

    @Test func unknownSequenceNumberIsNil() {
        let history = PacketHistory(capacity: 8)
        #expect(stored(history, 5) == nil)
    }

    @Test func forgetsPacketsOlderThanCapacity() {
        var history = PacketHistory(capacity: 4)
        for seq in UInt16(0)..<8 { history.store([UInt8(seq)], sequenceNumber: seq) }
        #expect(stored(history, 3) == nil)
        #expect(stored(history, 7) == [7])
    }

    @Test func worksAcrossSequenceWrap() {
        var history = PacketHistory(capacity: 16)
        history.store([9], sequenceNumber: 65535)
        history.store([10], sequenceNumber: 0)
        #expect(stored(history, 65535) == [9])
        #expect(stored(history, 0) == [10])
    }
}
