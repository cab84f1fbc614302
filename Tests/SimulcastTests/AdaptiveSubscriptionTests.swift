import Testing
@testable import Simulcast

private let kbps = 1_000

/// Five 500 kbps videos: a pinned participant (the dominant speaker), a muted one, the next two
/// speakers by dominance, and one never heard. Plus two 40 kbps audio streams.
private let room: [AdaptiveVideoStream] = [
    AdaptiveVideoStream(participantId: "pinned", isPinned: true, dominanceRank: 0, requiredBitsPerSecond: 500 * kbps),
    AdaptiveVideoStream(participantId: "muted", isMuted: true, dominanceRank: 3, requiredBitsPerSecond: 500 * kbps),
    AdaptiveVideoStream(participantId: "second", dominanceRank: 1, requiredBitsPerSecond: 500 * kbps),
    AdaptiveVideoStream(participantId: "third", dominanceRank: 2, requiredBitsPerSecond: 500 * kbps),
    AdaptiveVideoStream(participantId: "never", dominanceRank: nil, requiredBitsPerSecond: 500 * kbps),
]
private let audio = [AdaptiveAudioStream(participantId: "pinned", requiredBitsPerSecond: 40 * kbps),
                     AdaptiveAudioStream(participantId: "second", requiredBitsPerSecond: 40 * kbps)]
private let audioNeed = 80 * kbps

private extension AdaptiveSubscriptionPolicy {
    /// An update with `videos` videos' worth of budget (500 kbps each) on top of the audio.
    mutating func update(room videos: Double, at time: Int64) -> AdaptiveSubscriptionDecision {
        update(availableBitsPerSecond: audioNeed + Int(videos * 500 * Double(kbps)), video: room, audio: audio,
               atMilliseconds: time)
    }
}

@Suite struct AdaptiveSubscriptionTests {
    @Test func pauseOrderIsMutedThenLeastDominantThenDominantThenPinned() {
        let order = AdaptiveSubscriptionPolicy.pauseOrder(room).map(\.participantId)
        #expect(order == ["muted", "never", "third", "second", "pinned"])
    }

    @Test func pausesOneAtATimeInExactOrderWithReasons() {
        var policy = AdaptiveSubscriptionPolicy()
        var events: [AdaptiveSubscriptionEvent] = []
        for (step, videos) in [5.0, 4, 3, 2, 1, 0].enumerated() {
            events += policy.update(room: videos, at: Int64(step) * 1_000).events
        }
        #expect(events == [.paused("muted", .muted), .paused("never", .leastDominance),
                           .paused("third", .leastDominance), .paused("second", .leastDominance),
                           .paused("pinned", .leastDominance)])
    }

    @Test func aLargeDropPausesJustEnoughInOrder() {
        var policy = AdaptiveSubscriptionPolicy()
        let decision = policy.update(room: 2.5, at: 0)
        #expect(decision.events == [.paused("muted", .muted), .paused("never", .leastDominance),
                                    .paused("third", .leastDominance)])
        #expect(decision.pausedVideo == ["muted", "never", "third"])
    }

    @Test func everythingFitsNothingPaused() {
        var policy = AdaptiveSubscriptionPolicy()
        let decision = policy.update(room: 5, at: 0)
        #expect(decision.events.isEmpty)
        #expect(decision.pausedVideo.isEmpty)
    }

    @Test func audioIsNeverPaused() {
        var policy = AdaptiveSubscriptionPolicy()
        // Less than the audio alone needs: all video goes, all audio stays.
        let decision = policy.update(availableBitsPerSecond: 50 * kbps, video: room, audio: audio, atMilliseconds: 0)
        #expect(decision.forwardedAudio == ["pinned", "second"])
        #expect(decision.pausedVideo.count == room.count)
        #expect(decision.events.count == room.count)
    }

    @Test func audioUsesTheBandwidthFirst() {
        var policy = AdaptiveSubscriptionPolicy()
        // Exactly five videos' worth, but the audio is on top of that: one video must go.
        let decision = policy.update(availableBitsPerSecond: 5 * 500 * kbps, video: room, audio: audio, atMilliseconds: 0)
        #expect(decision.events == [.paused("muted", .muted)])
    }

    @Test func resumesInReverseOrderAfterTheHold() {
        var policy = AdaptiveSubscriptionPolicy()
        _ = policy.update(room: 0, at: 0)
        var events: [AdaptiveSubscriptionEvent] = []
        var time: Int64 = 1_000
        // Bandwidth for one more video (with headroom) at a time, each held for 3 s.
        for videos in [1.2, 2.4, 3.5, 4.7, 5.8] {
            for _ in 0..<4 {
                events += policy.update(room: videos, at: time).events
                time += 1_000
            }
        }
        #expect(events == [.resumed("pinned", .networkStable), .resumed("second", .networkStable),
                           .resumed("third", .networkStable), .resumed("never", .networkStable),
                           .resumed("muted", .networkStable)])
    }

    @Test func noResumeBeforeTheHoldTime() {
        var policy = AdaptiveSubscriptionPolicy()
        _ = policy.update(room: 0, at: 0)
        let early = [policy.update(room: 10, at: 1_000), policy.update(room: 10, at: 3_999)]
        #expect(early.allSatisfy { $0.events.isEmpty })
        let held = policy.update(room: 10, at: 4_000)
        #expect(held.events.count == room.count)
        #expect(held.events.first == .resumed("pinned", .networkStable))
        #expect(held.pausedVideo.isEmpty)
    }

    @Test func resumeNeedsHeadroom() {
        var policy = AdaptiveSubscriptionPolicy()
        _ = policy.update(room: 4, at: 0)
        // Exactly enough for all five, but not 15 % more: stays paused.
        var events: [AdaptiveSubscriptionEvent] = []
        for second in 1...10 { events += policy.update(room: 5, at: Int64(second) * 1_000).events }
        #expect(events.isEmpty)
        #expect(policy.isPaused("muted"))
    }

    @Test func aDipDuringTheHoldRestartsIt() {
        var policy = AdaptiveSubscriptionPolicy()
        _ = policy.update(room: 4, at: 0)
        _ = policy.update(room: 6, at: 1_000)
        _ = policy.update(room: 4.5, at: 2_000)  // fits the four, not the fifth with headroom
        _ = policy.update(room: 6, at: 4_000)
        let notYet = policy.update(room: 6, at: 6_999)
        #expect(notYet.events.isEmpty)  // 3 s after the first update had passed, but not since the dip
        let resumed = policy.update(room: 6, at: 7_000)
        #expect(resumed.events == [.resumed("muted", .networkStable)])
    }

    @Test func jitteringBandwidthPausesOnceAndDoesNotFlap() {
        var policy = AdaptiveSubscriptionPolicy()
        var events: [AdaptiveSubscriptionEvent] = []
        for step in 0..<30 {
            // Alternates just above and just below what five videos need, every 500 ms.
            events += policy.update(room: step.isMultiple(of: 2) ? 5.05 : 4.95, at: Int64(step) * 500).events
        }
        #expect(events == [.paused("muted", .muted)])
    }

    @Test func disablingResumesEverythingItPaused() {
        var policy = AdaptiveSubscriptionPolicy()
        _ = policy.update(room: 2, at: 0)
        let events = policy.setEnabled(false)
        #expect(events == [.resumed("third", .adaptiveSubscriptionsDisabled),
                           .resumed("never", .adaptiveSubscriptionsDisabled),
                           .resumed("muted", .adaptiveSubscriptionsDisabled)])
        #expect(policy.paused.isEmpty)
    }

    @Test func whileDisabledNothingIsPaused() {
        var policy = AdaptiveSubscriptionPolicy(enabled: false)
        let decision = policy.update(room: 0, at: 0)
        #expect(decision.events.isEmpty)
        #expect(decision.pausedVideo.isEmpty)
    }

    @Test func reEnablingActsAtTheNextUpdate() {
        var policy = AdaptiveSubscriptionPolicy()
        _ = policy.update(room: 3, at: 0)
        _ = policy.setEnabled(false)
        let enabling = policy.setEnabled(true)
        #expect(enabling.isEmpty)
        let decision = policy.update(room: 3, at: 1_000)
        #expect(decision.pausedVideo == ["muted", "never"])
    }

    @Test func aGoneStreamIsForgotten() {
        var policy = AdaptiveSubscriptionPolicy()
        _ = policy.update(room: 4, at: 0)
        #expect(policy.isPaused("muted"))
        let remaining = room.filter { $0.participantId != "muted" }
        let decision = policy.update(availableBitsPerSecond: audioNeed + 4 * 500 * kbps, video: remaining, audio: audio,
                                     atMilliseconds: 1_000)
        #expect(decision.events.isEmpty)
        #expect(!policy.isPaused("muted"))
    }

    @Test func aPausedParticipantWhoBecomesDominantComesBackFirst() {
        var policy = AdaptiveSubscriptionPolicy()
        _ = policy.update(room: 2, at: 0)  // muted, never, third paused
        var reranked = room
        for index in reranked.indices where reranked[index].participantId == "never" { reranked[index].dominanceRank = 0 }
        for index in reranked.indices where reranked[index].participantId == "pinned" { reranked[index].dominanceRank = 4 }
        var events: [AdaptiveSubscriptionEvent] = []
        for second in 1...4 {
            events += policy.update(availableBitsPerSecond: audioNeed + 1_750 * kbps, video: reranked, audio: audio,
                                    atMilliseconds: Int64(second) * 1_000).events
        }
        #expect(events == [.resumed("never", .networkStable)])
    }
}

@Suite struct AdaptiveSubscriptionPromotionTests {
    private func reranked(_ ranks: [String: Int?]) -> [AdaptiveVideoStream] {
        room.map { stream in
            var stream = stream
            if let rank = ranks[stream.participantId] { stream.dominanceRank = rank }
            return stream
        }
    }

    @Test func aPausedParticipantWhoBecomesTheDominantSpeakerIsSwappedIn() {
        var policy = AdaptiveSubscriptionPolicy()
        _ = policy.update(room: 2, at: 0)  // muted, never, third paused; second and pinned play
        let video = reranked(["third": 0, "second": 1, "pinned": 2, "muted": 4])
        let decision = policy.update(availableBitsPerSecond: audioNeed + 1_000 * kbps, video: video, audio: audio,
                                     atMilliseconds: 1_000)
        #expect(decision.events == [.paused("second", .leastDominance), .resumed("third", nil)])
        #expect(decision.pausedVideo == ["muted", "never", "second"])
    }

    @Test func ordinaryRankChangesDoNotSwap() {
        var policy = AdaptiveSubscriptionPolicy()
        _ = policy.update(room: 2, at: 0)
        let video = reranked(["third": 1, "second": 2])  // third now outranks second, but is not on stage
        var events: [AdaptiveSubscriptionEvent] = []
        for second in 1...10 {
            events += policy.update(availableBitsPerSecond: audioNeed + 1_000 * kbps, video: video, audio: audio,
                                    atMilliseconds: Int64(second) * 1_000).events
        }
        #expect(events.isEmpty)
    }

    @Test func aMutedDominantParticipantIsNotPromoted() {
        var policy = AdaptiveSubscriptionPolicy()
        _ = policy.update(room: 2, at: 0)
        let video = reranked(["muted": 0, "pinned": 3])
        let decision = policy.update(availableBitsPerSecond: audioNeed + 1_000 * kbps, video: video, audio: audio,
                                     atMilliseconds: 1_000)
        #expect(decision.events.isEmpty)
    }
}

@Suite struct AdaptiveSubscriptionRobustnessTests {
    @Test(arguments: [UInt64(11), 12, 13])
    func arbitraryBandwidthStreamsAndTimesNeverTrap(seed: UInt64) {
        var state = seed
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 16
        }
        func bitrate() -> Int {
            switch next() % 20 {
            case 0: return .max
            case 1: return .min
            case 2: return -Int(next() % 1_000_000)
            default: return Int(next() % 3_000_000)
            }
        }
        var policy = AdaptiveSubscriptionPolicy()
        var time: Int64 = 0
        for _ in 0..<3_000 {
            time = next() % 40 == 0 ? Int64(bitPattern: next() << 16) : time &+ Int64(next() % 2_000)
            let video = (0..<Int(next() % 8)).map { index in
                AdaptiveVideoStream(participantId: "p\(index)", isMuted: next() % 3 == 0, isPinned: next() % 5 == 0,
                                    dominanceRank: next() % 4 == 0 ? nil : Int(next() % 10) - 2,
                                    requiredBitsPerSecond: bitrate())
            }
            let audio = (0..<Int(next() % 4)).map { AdaptiveAudioStream(participantId: "p\($0)", requiredBitsPerSecond: bitrate()) }
            if next() % 50 == 0 {
                let events = policy.setEnabled(!policy.isEnabled)
                #expect(events.allSatisfy { $0.kind == .resumed(.adaptiveSubscriptionsDisabled) })
            }
            let decision = policy.update(availableBitsPerSecond: bitrate(), video: video, audio: audio, atMilliseconds: time)
            let ids = Set(video.map(\.participantId))
            #expect(decision.pausedVideo.allSatisfy { ids.contains($0) && policy.isPaused($0) })
            #expect(decision.forwardedAudio == audio.map(\.participantId))
        }
    }
}

@Suite struct AdaptiveSubscriptionWithSpeakersTests {
    @Test func dominanceRankingFromTheSpeakerDetectorDecidesWhoIsPaused() {
        var detector = ActiveSpeakerDetector()
        let participants = ["a", "b", "c", "d"]
        // a talks for 2 s, then b; c and d only send silence.
        for time in stride(from: Int64(0), to: 4_000, by: 20) {
            let speaker = time < 2_000 ? "a" : "b"
            for participant in participants {
                detector.observe(participantId: participant, trackId: "mic", dBov: participant == speaker ? 30 : 127,
                                 voiceActivity: participant == speaker, atMilliseconds: time)
            }
            _ = detector.evaluate(atMilliseconds: time)
        }
        let ranking = detector.dominanceRanking(atMilliseconds: 4_000)
        #expect(ranking == ["b", "a", "c", "d"])
        let video = participants.map { id in
            AdaptiveVideoStream(participantId: id, dominanceRank: ranking.firstIndex(of: id), requiredBitsPerSecond: 500 * kbps)
        }
        var policy = AdaptiveSubscriptionPolicy()
        let decision = policy.update(availableBitsPerSecond: 1_100 * kbps, video: video, audio: [], atMilliseconds: 4_000)
        #expect(decision.events == [.paused("d", .leastDominance), .paused("c", .leastDominance)])
    }
}
