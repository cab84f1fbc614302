import RTPWire
import Testing
@testable import SessionCore

@Suite struct FreezeDetectorTests {
    @Test func gapLongerThan500MillisecondsCountsAsAFreeze() {
        var detector = FreezeDetector()
        for time: Int64 in [0, 33, 600, 633, 1000] { detector.frameDecoded(atMilliseconds: time) }
        #expect(detector.freezeCount == 1)
        #expect(detector.totalFrozenMilliseconds == 567)
        #expect(detector.longestFreezeMilliseconds == 567)
    }

    @Test func gapOfExactly500MillisecondsIsNotAFreeze() {
        var detector = FreezeDetector()
        detector.frameDecoded(atMilliseconds: 0)
        detector.frameDecoded(atMilliseconds: 500)
        #expect(detector.freezeCount == 0)
    }

    @Test func ongoingFreezeIsVisibleBeforeTheNextFrame() {
        var detector = FreezeDetector()
        detector.frameDecoded(atMilliseconds: 1000)
        #expect(!detector.isFrozen(nowMilliseconds: 1400))
        #expect(detector.ongoingFreezeMilliseconds(nowMilliseconds: 1600) == 600)
        #expect(detector.freezeCount == 0)
    }

    @Test func freezesAccumulate() {
        var detector = FreezeDetector()
        for time: Int64 in [0, 600, 1300, 1330] { detector.frameDecoded(atMilliseconds: time) }
        #expect(detector.freezeCount == 2)
        #expect(detector.totalFrozenMilliseconds == 1300)
        #expect(detector.longestFreezeMilliseconds == 700)
    }

    // The summary at a moment: a freeze still open then counts, so the count, the total and the
    // longest agree (issue 25, item 5: a demo printed "freezes 0 (13138)").
    @Test func aFreezeOpenAtTheEndCountsWithItsLengthSoFar() {
        var detector = FreezeDetector()
        for time: Int64 in [0, 33, 66] { detector.frameDecoded(atMilliseconds: time) }
        let summary = detector.summary(nowMilliseconds: 13_204)
        #expect(summary == FreezeDetector.Summary(count: 1, totalMilliseconds: 13_138, longestMilliseconds: 13_138))
    }

    @Test func anOpenFreezeAddsToTheEndedOnes() {
        var detector = FreezeDetector()
        for time: Int64 in [0, 700, 733] { detector.frameDecoded(atMilliseconds: time) }
        let summary = detector.summary(nowMilliseconds: 1_333)
        #expect(summary == FreezeDetector.Summary(count: 2, totalMilliseconds: 1_300, longestMilliseconds: 700))
    }

    @Test func noOpenFreezeLeavesTheEndedOnes() {
        var detector = FreezeDetector()
        for time: Int64 in [0, 600, 633] { detector.frameDecoded(atMilliseconds: time) }
        #expect(detector.summary(nowMilliseconds: 1_133) == FreezeDetector.Summary(count: 1, totalMilliseconds: 600, longestMilliseconds: 600))
        #expect(FreezeDetector().summary(nowMilliseconds: 60_000) == FreezeDetector.Summary(count: 0, totalMilliseconds: 0, longestMilliseconds: 0))
    }

    /// Whatever the frame times and the moment, a longest freeze comes with a count and a count
    /// with a longest freeze (500 seeded random streams).
    @Test func countAndLongestAlwaysAgree() {
        var generator = SplitMix64(seed: 25)
        for _ in 0..<500 {
            var detector = FreezeDetector()
            var time: Int64 = 0
            for _ in 0..<Int.random(in: 0...20, using: &generator) {
                time += Int64.random(in: 0...1_500, using: &generator)
                detector.frameDecoded(atMilliseconds: time)
            }
            let summary = detector.summary(nowMilliseconds: time + Int64.random(in: 0...2_000, using: &generator))
            #expect((summary.count == 0) == (summary.longestMilliseconds == 0))
            #expect(summary.longestMilliseconds <= summary.totalMilliseconds)
        }
    }
}
