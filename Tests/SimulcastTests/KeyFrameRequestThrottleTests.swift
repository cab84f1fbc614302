import Testing
@testable import Simulcast

/// Feeds (ssrc, time) requests in order and returns which passed.
private func passes(_ requests: [(UInt32, Int64)], interval: Int64 = 300) -> [Bool] {
    var throttle = KeyFrameRequestThrottle(minimumIntervalMilliseconds: interval)
    return requests.map { throttle.shouldPass(ssrc: $0.0, nowMilliseconds: $0.1) }
}

@Suite struct KeyFrameRequestThrottleTests {
    @Test func firstRequestPasses() {
        #expect(passes([(1, 0)]) == [true])
    }

    @Test func repeatWithinIntervalIsDropped() {
        #expect(passes([(1, 1000), (1, 1299), (1, 1300)]) == [true, false, true])
    }

    @Test func droppedRequestsDoNotExtendTheWindow() {
        #expect(passes([(1, 0), (1, 200), (1, 300)]) == [true, false, true])
    }

    @Test func ssrcsAreIndependent() {
        #expect(passes([(1, 0), (2, 10), (1, 20)]) == [true, true, false])
    }
}

@Suite struct KeyFrameRequestThrottleExtremeClockTests {
    @Test func extremeClockValuesDoNotTrap() {
        #expect(passes([(1, Int64.max), (1, Int64.min), (1, Int64.min + 1)]) == [true, true, false])
    }
}
