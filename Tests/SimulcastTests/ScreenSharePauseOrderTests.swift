import Testing
import Simulcast

/// Issue 17: adaptive subscriptions keep a screen share last to pause.
@Suite struct ScreenSharePauseOrderTests {
    private let streams = [
        AdaptiveVideoStream(participantId: "carol/screen", dominanceRank: nil, requiredBitsPerSecond: 100_000, isScreenShare: true),
        AdaptiveVideoStream(participantId: "pinned", isPinned: true, dominanceRank: 0, requiredBitsPerSecond: 200_000),
        AdaptiveVideoStream(participantId: "alice", dominanceRank: 1, requiredBitsPerSecond: 200_000),
        AdaptiveVideoStream(participantId: "bob", isMuted: true, dominanceRank: nil, requiredBitsPerSecond: 200_000),
    ]

    @Test func screenSharesComeAfterEveryCameraEvenPinnedOnes() {
        #expect(AdaptiveSubscriptionPolicy.pauseOrder(streams).map(\.participantId) == ["bob", "alice", "pinned", "carol/screen"])
    }

    @Test func aSqueezeThatLeavesRoomForTheShareAloneKeepsIt() {
        var policy = AdaptiveSubscriptionPolicy()
        let decision = policy.update(availableBitsPerSecond: 150_000, video: streams, audio: [], atMilliseconds: 0)
        #expect(decision.pausedVideo == ["bob", "alice", "pinned"])
        #expect(!policy.isPaused("carol/screen"))
        // Less than the share needs: it goes too, last.
        let starved = policy.update(availableBitsPerSecond: 50_000, video: streams, audio: [], atMilliseconds: 100)
        #expect(starved.events == [.paused("carol/screen", .leastDominance)])
    }

    @Test func theShareComesBackFirst() {
        var policy = AdaptiveSubscriptionPolicy(configuration: .init(resumeHoldMilliseconds: 0))
        _ = policy.update(availableBitsPerSecond: 10_000, video: streams, audio: [], atMilliseconds: 0)
        let recovered = policy.update(availableBitsPerSecond: 130_000, video: streams, audio: [], atMilliseconds: 100)
        #expect(recovered.events == [.resumed("carol/screen", .networkStable)])
    }
}
