import Testing
@testable import Simulcast

@Suite struct KeyFrameRequestThrottleTests {
    @Test func firstRequestPasses() {
        var throttle = KeyFrameRequestThrottle(minimumIntervalMilliseconds: 300)
        #expect(throttle.shouldPass(ssrc: 1, nowMilliseconds: 0))
    }

    @Test func repeatWithinIntervalIsDropped() {
        var throttle = KeyFrameRequestThrottle(minimumIntervalMilliseconds: 300)
        #expect(throttle.shouldPass(ssrc: 1, nowMilliseconds: 1000))
        #expect(!throttle.shouldPass(ssrc: 1, nowMilliseconds: 1299))
        #expect(throttle.shouldPass(ssrc: 1, nowMilliseconds: 1300))
    }

    @Test func droppedRequestsDoNotExtendTheWindow() {
        var throttle = KeyFrameRequestThrottle(minimumIntervalMilliseconds: 300)
        #expect(throttle.shouldPass(ssrc: 1, nowMilliseconds: 0))
        #expect(!throttle.shouldPass(ssrc: 1, nowMilliseconds: 200))
        #expect(throttle.shouldPass(ssrc: 1, nowMilliseconds: 300))
    }

    @Test func ssrcsAreIndependent() {
        var throttle = KeyFrameRequestThrottle(minimumIntervalMilliseconds: 300)
        #expect(throttle.shouldPass(ssrc: 1, nowMilliseconds: 0))
        #expect(throttle.shouldPass(ssrc: 2, nowMilliseconds: 10))
    }
}
