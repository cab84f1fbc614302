import Testing
@testable import SessionCore

@Suite struct RetransmissionStoreTests {
    private func store(capacity: Int = 8) -> RetransmissionStore {
        RetransmissionStore(capacity: capacity, maximumPacketSize: 64, budget: .init(minimumIntervalMilliseconds: 100))
    }

    private func answer(_ store: inout RetransmissionStore, _ sequenceNumber: UInt16, at now: Int64,
                        roundTrip: Int64? = nil) -> (RetransmissionStore.Outcome, [[UInt8]]) {
        var resent: [[UInt8]] = []
        let outcome = store.answer(sequenceNumber: sequenceNumber, roundTripMilliseconds: roundTrip, nowMilliseconds: now) {
            resent.append(Array($0))
        }
        return (outcome, resent)
    }

    @Test func aNACKedPacketIsResentAsItWentOnTheWire() {
        var store = store()
        store.mediaSent([1, 2, 3][...], sequenceNumber: 10, nowMilliseconds: 0)
        store.mediaSent([4, 5][...], sequenceNumber: 11, nowMilliseconds: 0)
        let (outcome, resent) = answer(&store, 10, at: 5)
        #expect(outcome == .resent && resent == [[1, 2, 3]])
        #expect(store.contains(sequenceNumber: 11))
    }

    @Test func unknownAndForgottenPacketsAreMissingAndResendNothing() {
        var store = store(capacity: 4)
        for sequence in UInt16(0)..<8 { store.mediaSent([UInt8(sequence)][...], sequenceNumber: sequence, nowMilliseconds: 0) }
        #expect(answer(&store, 2, at: 1) == (.missing, []))
        #expect(answer(&store, 500, at: 1) == (.missing, []))
        #expect(answer(&store, 7, at: 1) == (.resent, [[7]]))
    }

    @Test func aRepeatWithinTheRoundTripIsRefusedAndCounted() {
        var store = store()
        store.mediaSent([9][...], sequenceNumber: 1, nowMilliseconds: 0)
        #expect(answer(&store, 1, at: 10).0 == .resent)
        #expect(answer(&store, 1, at: 20).0 == .refused(.tooSoon))
        #expect(answer(&store, 1, at: 200).0 == .resent)
        #expect(answer(&store, 1, at: 230, roundTrip: 20).0 == .resent)
        #expect(store.refusals.tooSoon == 1)
    }

    @Test func aKeptRepairIsAnsweredWithItsOwnBytesAndAdmitCountsAgainstTheBudget() {
        var store = store()
        #expect(store.admit(sequenceNumber: 3, bytes: 40, roundTripMilliseconds: nil, nowMilliseconds: 0) == .resend)
        store.keepRepair([7, 7][...], sequenceNumber: 3)
        #expect(answer(&store, 3, at: 10).0 == .refused(.tooSoon))  // admitted 10 ms ago
        #expect(answer(&store, 3, at: 150) == (.resent, [[7, 7]]))
    }
}
