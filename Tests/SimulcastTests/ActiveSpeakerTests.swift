import Testing
import RTPWire
@testable import Simulcast

/// Who speaks at what level (−dBov) during one stretch of a scripted room.
private struct Talk {
    var participant: String
    var dBov: UInt8
    var track: String { "\(participant)-mic" }
}

/// Feeds 20 ms frames from `from` (inclusive) to `to` (exclusive) for every talker, evaluating
/// after each frame time; returns every evaluation's time and result.
@discardableResult
private func run(_ detector: inout ActiveSpeakerDetector, from: Int64, to: Int64, _ talks: [Talk],
                 silent: [String] = []) -> [(time: Int64, update: ActiveSpeakerUpdate)] {
    var results: [(time: Int64, update: ActiveSpeakerUpdate)] = []
    var time = from
    while time < to {
        for talk in talks {
            detector.observe(participantId: talk.participant, trackId: talk.track,
                             level: AudioLevel(clampingLevel: talk.dBov, voiceActivity: true), atMilliseconds: time)
        }
        for participant in silent {
            detector.observe(participantId: participant, trackId: "\(participant)-mic", level: .silence,
                             atMilliseconds: time)
        }
        results.append((time, detector.evaluate(atMilliseconds: time)))
        time += 20
    }
    return results
}

private func dominantChanges(_ results: [(time: Int64, update: ActiveSpeakerUpdate)]) -> [(time: Int64, change: DominantSpeakerChange)] {
    results.compactMap { result in result.update.dominantSpeakerChange.map { (result.time, $0) } }
}

@Suite struct ActiveSpeakerSnapshotTests {
    @Test func linearLevelIsTenToTheMinusDBovOverTwenty() {
        #expect(ActiveSpeakerDetector.linearLevel(dBov: 0) == 1)
        #expect(abs(ActiveSpeakerDetector.linearLevel(dBov: 20) - 0.1) < 1e-12)
        #expect(abs(ActiveSpeakerDetector.linearLevel(dBov: 40) - 0.01) < 1e-12)
        #expect(abs(ActiveSpeakerDetector.linearLevel(dBov: 126) - 0.000_000_501_187_233_627_272_3) < 1e-15)
        #expect(ActiveSpeakerDetector.linearLevel(dBov: 127) == 0)
    }

    @Test func snapshotIsSortedByLevelDescending() {
        var detector = ActiveSpeakerDetector()
        let results = run(&detector, from: 0, to: 1_000, [Talk(participant: "quiet", dBov: 40),
                                                           Talk(participant: "loud", dBov: 20),
                                                           Talk(participant: "middle", dBov: 30)])
        let last = results.compactMap(\.update.snapshot).last ?? []
        #expect(last.map(\.participantId) == ["loud", "middle", "quiet"])
        #expect(last.map(\.trackId) == ["loud-mic", "middle-mic", "quiet-mic"])
        // The emitted snapshot is refreshed only when a level moves by 2 dB; the latest is always readable.
        #expect(detector.snapshot.map(\.key) == last.map(\.key))
    }

    @Test func steadyLevelIsTheLinearLevelAfterTheWindow() {
        var detector = ActiveSpeakerDetector()
        run(&detector, from: 0, to: 1_000, [Talk(participant: "a", dBov: 20)])
        #expect(abs((detector.snapshot.first?.level ?? 0) - 0.1) < 1e-9)
    }

    @Test func levelIsSmoothedOverTheWindow() {
        var detector = ActiveSpeakerDetector()
        // One 20 ms frame counts for 20/300 of the level.
        run(&detector, from: 0, to: 20, [Talk(participant: "a", dBov: 0)])
        #expect(abs((detector.snapshot.first?.level ?? 0) - 20.0 / 300) < 1e-9)
    }

    @Test func emptySnapshotIsEmittedWhenSpeakingStops() {
        var detector = ActiveSpeakerDetector()
        run(&detector, from: 0, to: 500, [Talk(participant: "a", dBov: 30)])
        let after = run(&detector, from: 500, to: 1_000, [], silent: ["a"])
        let emitted = after.compactMap(\.update.snapshot)
        #expect(emitted.last == [])
        #expect(detector.snapshot.isEmpty)
    }

    @Test func nothingIsEmittedWhileNothingChanges() {
        var detector = ActiveSpeakerDetector()
        let silentStart = run(&detector, from: 0, to: 500, [], silent: ["a", "b"])
        #expect(silentStart.allSatisfy { $0.update.snapshot == nil })
        run(&detector, from: 500, to: 1_500, [Talk(participant: "a", dBov: 30)])
        let steady = run(&detector, from: 1_500, to: 2_500, [Talk(participant: "a", dBov: 30)])
        #expect(steady.allSatisfy { $0.update.snapshot == nil })
    }

    @Test func framesWithoutVoiceActivityAreSilence() {
        var detector = ActiveSpeakerDetector()
        for time in stride(from: Int64(0), to: 500, by: 20) {
            detector.observe(participantId: "a", trackId: "mic", dBov: 10, voiceActivity: false, atMilliseconds: time)
        }
        let update = detector.evaluate(atMilliseconds: 500)
        #expect(update.snapshot == nil)
        #expect(detector.snapshot.isEmpty)
    }

    @Test func reorderedFramesCountLikeInOrderOnes() {
        var inOrder = ActiveSpeakerDetector()
        var reordered = ActiveSpeakerDetector()
        let times = Array(stride(from: Int64(0), to: 400, by: 20))
        for time in times {
            inOrder.observe(participantId: "a", trackId: "mic", dBov: 30, voiceActivity: true, atMilliseconds: time)
        }
        // Swap every pair: 20, 0, 60, 40, ...
        for pair in stride(from: 0, to: times.count, by: 2) {
            for time in times[pair..<min(pair + 2, times.count)].reversed() {
                reordered.observe(participantId: "a", trackId: "mic", dBov: 30, voiceActivity: true, atMilliseconds: time)
            }
        }
        _ = inOrder.evaluate(atMilliseconds: 400)
        _ = reordered.evaluate(atMilliseconds: 400)
        #expect(reordered.snapshot == inOrder.snapshot)
    }

    @Test func snapshotFollowsAlternatingSpeakers() {
        var detector = ActiveSpeakerDetector()
        run(&detector, from: 0, to: 1_000, [Talk(participant: "a", dBov: 25)], silent: ["b"])
        #expect(detector.snapshot.map(\.participantId) == ["a"])
        run(&detector, from: 1_000, to: 2_000, [Talk(participant: "b", dBov: 25)], silent: ["a"])
        #expect(detector.snapshot.map(\.participantId) == ["b"])
    }
}

@Suite struct DominantSpeakerTests {
    @Test func firstSustainedSpeakerTakesTheStage() {
        var detector = ActiveSpeakerDetector()
        let changes = dominantChanges(run(&detector, from: 0, to: 1_000, [Talk(participant: "a", dBov: 30)]))
        #expect(changes.map(\.change) == [DominantSpeakerChange(previous: nil, current: "a")])
        // Half the 1 s window must be speech: 25 frames, the 25th at 480 ms.
        #expect(changes.first?.time == 480)
    }

    @Test func aCoughDoesNotStealTheStage() {
        var detector = ActiveSpeakerDetector()
        run(&detector, from: 0, to: 2_000, [Talk(participant: "a", dBov: 35)])
        #expect(detector.dominantSpeaker == "a")
        // B coughs for 300 ms, 25 dB louder than A, while A keeps talking.
        var results = run(&detector, from: 2_000, to: 2_300, [Talk(participant: "a", dBov: 35),
                                                              Talk(participant: "b", dBov: 10)])
        results += run(&detector, from: 2_300, to: 5_000, [Talk(participant: "a", dBov: 35)], silent: ["b"])
        #expect(dominantChanges(results).isEmpty)
        #expect(detector.dominantSpeaker == "a")
    }

    @Test func aCoughDuringAPauseDoesNotStealTheStage() {
        var detector = ActiveSpeakerDetector()
        run(&detector, from: 0, to: 2_000, [Talk(participant: "a", dBov: 35)])
        var results = run(&detector, from: 2_000, to: 2_300, [Talk(participant: "b", dBov: 10)], silent: ["a"])
        results += run(&detector, from: 2_300, to: 5_000, [], silent: ["a", "b"])
        #expect(dominantChanges(results).isEmpty)
    }

    @Test func turnChangeIsPickedUpWithinOneAndAHalfSeconds() {
        var detector = ActiveSpeakerDetector()
        run(&detector, from: 0, to: 3_000, [Talk(participant: "a", dBov: 30)], silent: ["b"])
        let results = run(&detector, from: 3_000, to: 6_000, [Talk(participant: "b", dBov: 30)], silent: ["a"])
        let changes = dominantChanges(results)
        #expect(changes.map(\.change) == [DominantSpeakerChange(previous: "a", current: "b")])
        let delay = (changes.first?.time ?? .max) - 3_000
        #expect(delay <= 1_500)
        #expect(delay >= 300)  // and not on the first breath
    }

    @Test func clearlyLouderInterruptionTakesTheStageWithinOneAndAHalfSeconds() {
        var detector = ActiveSpeakerDetector()
        run(&detector, from: 0, to: 3_000, [Talk(participant: "a", dBov: 30)])
        // A keeps talking; B talks over it 6 dB louder.
        let results = run(&detector, from: 3_000, to: 6_000, [Talk(participant: "a", dBov: 30),
                                                              Talk(participant: "b", dBov: 24)])
        let changes = dominantChanges(results)
        #expect(changes.map(\.change.current) == ["b"])
        #expect((changes.first?.time ?? .max) - 3_000 <= 1_500)
    }

    @Test func slightlyLouderOverlapDoesNotStealTheStage() {
        var detector = ActiveSpeakerDetector()
        run(&detector, from: 0, to: 3_000, [Talk(participant: "a", dBov: 30)])
        // 2 dB louder is not "clearly louder" (ratio 1.26 < 1.5).
        let results = run(&detector, from: 3_000, to: 6_000, [Talk(participant: "a", dBov: 30),
                                                              Talk(participant: "b", dBov: 28)])
        #expect(dominantChanges(results).isEmpty)
    }

    @Test func holderKeepsTheStageThroughSilence() {
        var detector = ActiveSpeakerDetector()
        run(&detector, from: 0, to: 1_000, [Talk(participant: "a", dBov: 30)])
        run(&detector, from: 1_000, to: 10_000, [], silent: ["a", "b"])
        #expect(detector.dominantSpeaker == "a")
    }

    @Test func removingTheHolderClearsTheStage() {
        var detector = ActiveSpeakerDetector()
        run(&detector, from: 0, to: 1_000, [Talk(participant: "a", dBov: 30)])
        detector.removeParticipant("a")
        let update = detector.evaluate(atMilliseconds: 1_000)
        #expect(update.dominantSpeakerChange == DominantSpeakerChange(previous: "a", current: nil))
        #expect(update.snapshot == [])
    }

    @Test func dominanceRankingPutsTheHolderFirstThenLoudnessThenRecency() {
        var detector = ActiveSpeakerDetector()
        run(&detector, from: 0, to: 1_000, [Talk(participant: "early", dBov: 30)], silent: ["never"])
        run(&detector, from: 1_000, to: 1_300, [Talk(participant: "later", dBov: 30)])
        run(&detector, from: 1_300, to: 5_000, [], silent: ["never"])
        // "early" took the stage first and nobody has taken it over from silence.
        #expect(detector.dominantSpeaker == "early")
        run(&detector, from: 5_000, to: 5_400, [Talk(participant: "now", dBov: 20)])
        #expect(detector.dominanceRanking(atMilliseconds: 5_400) == ["early", "now", "later", "never"])
    }
}

@Suite struct ActiveSpeakerRobustnessTests {
    @Test(arguments: [UInt64(7), 8, 9])
    func arbitraryLevelsAndTimesNeverTrap(seed: UInt64) {
        var state = seed
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 16
        }
        var detector = ActiveSpeakerDetector()
        for step in 0..<5_000 {
            // Mostly sane times with occasional jumps to the extremes and backwards.
            let time: Int64 = switch next() % 50 {
            case 0: .min
            case 1: .max
            case 2: Int64(bitPattern: next() << 16)
            default: Int64(step) * 20 - Int64(next() % 100)
            }
            let participant = "p\(next() % 6)"
            if next() % 100 == 0 {
                detector.removeParticipant(participant)
            } else {
                detector.observe(participantId: participant, trackId: "t\(next() % 2)", dBov: UInt8(truncatingIfNeeded: next()),
                                 voiceActivity: next() % 4 != 0, atMilliseconds: time)
            }
            if next() % 5 == 0 {
                let update = detector.evaluate(atMilliseconds: time)
                let levels = detector.snapshot.map(\.level)
                #expect(levels == levels.sorted(by: >))
                #expect(levels.allSatisfy { $0 > 0 && $0 <= 1 })
                #expect(update.snapshot.map { $0 == detector.snapshot } ?? true)
                _ = detector.dominanceRanking(atMilliseconds: time)
            }
        }
    }
}
