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
}
