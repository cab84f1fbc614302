import Testing
@testable import Simulcast

private func output(_ counter: inout ContinuousCounter, _ raw: UInt64) -> UInt64? {
    if case .output(let value) = counter.map(raw) { return counter.truncated(value) }
    return nil
}

@Suite struct ContinuousCounterTests {
    @Test func firstSourceKeepsItsValues() {
        var counter = ContinuousCounter(bits: 16, leftOutCapacity: 8)
        let start = counter.startSource(1234)
        #expect(start == 1234)
        #expect(output(&counter, 1235) == 1235)
    }

    @Test func forwardWrapIsContinuous() {
        var counter = ContinuousCounter(bits: 16, leftOutCapacity: 8)
        counter.startSource(65_535)
        #expect(output(&counter, 0) == 0)
        #expect(output(&counter, 1) == 1)
    }

    @Test func reorderedValueAcrossWrapIsOlderNotNewer() {
        var counter = ContinuousCounter(bits: 16, leftOutCapacity: 8)
        counter.startSource(65_530)
        _ = output(&counter, 2)  // 65_530 … 2 with 65_531 … 1 missing
        #expect(output(&counter, 65_534) == 65_534)
        #expect(counter.highestInput == 65_538)
    }

    @Test func fifteenBitCounterWrapsAt32768() {
        var counter = ContinuousCounter(bits: 15, leftOutCapacity: 8)
        counter.startSource(32_767)
        #expect(output(&counter, 0) == 0)
        #expect(output(&counter, 40_000) == 40_000 & 0x7FFF)
    }

    @Test func leftOutValuesCloseTheirGapAcrossWrap() {
        var counter = ContinuousCounter(bits: 16, leftOutCapacity: 8)
        counter.startSource(65_534)
        counter.leaveOut(65_535)
        counter.leaveOut(0)
        #expect(output(&counter, 1) == 65_535)
        #expect(output(&counter, 2) == 0)
    }

    @Test func newSourceContinuesAfterHighestOutput() {
        var counter = ContinuousCounter(bits: 16, leftOutCapacity: 8)
        counter.startSource(100)
        _ = output(&counter, 105)
        let next = counter.startSource(9_000)
        #expect(next == 106)
        #expect(output(&counter, 9_001) == 107)
    }

    @Test func leavingOutAnOldValueIsRefused() {
        var counter = ContinuousCounter(bits: 16, leftOutCapacity: 8)
        counter.startSource(10)
        _ = output(&counter, 12)
        let accepted = counter.leaveOut(11)
        #expect(!accepted)
        #expect(output(&counter, 13) == 13)
    }
}
