import Testing
@testable import MediaEngine

/// The cadence a published feed keeps (`PacedFeed`): one frame per interval; a loop that falls
/// behind catches up so media time keeps to the wall clock, unless it fell too far behind.
@Suite struct PacedFeedTests {
    static func feed() -> PacedFeed<Int> {
        let frames = TrackFeed<Int>(capacity: 1_000)
        for index in 0..<1_000 { frames.put(index) }
        return PacedFeed(trackId: "mic", feed: frames, intervalMicroseconds: 20_000)
    }

    @Test func aLoopLateByLessThanTheLimitCatchesUpAndKeepsTheCadence() {
        var paced = Self.feed()
        #expect(paced.takeDue(at: 0, pacingPushes: true) == 0)
        #expect(paced.takeDue(at: 10_000, pacingPushes: true) == nil)  // not due before 20 ms
        // A busy tick: the loop comes back at 75 ms; frames due at 20, 40 and 60 ms go at once.
        #expect(paced.takeDue(at: 75_000, pacingPushes: true) == 1)
        #expect(paced.takeDue(at: 75_000, pacingPushes: true) == 2)
        #expect(paced.takeDue(at: 75_000, pacingPushes: true) == 3)
        #expect(paced.takeDue(at: 75_000, pacingPushes: true) == nil)  // the next is due at 80 ms
        #expect(paced.takeDue(at: 80_000, pacingPushes: true) == 4)
        #expect(paced.nextDueMicroseconds == 100_000)  // still on the 20 ms grid from 0
    }

    @Test func aLoopFarBehindRestartsTheCadenceInsteadOfBursting() {
        var paced = Self.feed()
        _ = paced.takeDue(at: 0, pacingPushes: true)
        #expect(paced.takeDue(at: 500_000, pacingPushes: true) == 1)
        #expect(paced.nextDueMicroseconds == 520_000)
        #expect(paced.takeDue(at: 500_000, pacingPushes: true) == nil)
    }
}
