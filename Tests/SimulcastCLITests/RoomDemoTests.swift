import Foundation
import Testing
@testable import SimulcastCLI

/// A short `simulcast demo --participants 3` in-process (real time, loopback UDP, SRTP): the
/// speaker snapshots and dominant-speaker changes follow the speaking schedule, the throttled
/// viewer's videos are paused and resumed by adaptive subscriptions, the open viewer's are not,
/// and the JSON carries all of it.
@Suite(.serialized) struct RoomDemoTests {
    @Test func roomDemoFollowsTheSpeakersAndPausesAndResumesTheThrottledViewersVideos() async throws {
        let jsonPath = FileManager.default.temporaryDirectory.appendingPathComponent("room-demo-\(getpid()).json").path
        defer { try? FileManager.default.removeItem(atPath: jsonPath) }
        let lines = OutputLines()
        // 12 s: turns of 2 s (p1 p2 p3 p1 p2 p3); the throttled viewer squeezed to 120 kbps (about
        // what the three Opus streams take) from 2 s to 5.5 s, so its loss is heavy whatever layers
        // the selectors are on, and its estimates have time to recover before the end.
        let call = try await RoomDemo.run(["--participants", "--seconds", "12", "--throttle", "2-5.5", "--throttle-kbps", "120",
                                     "--json", jsonPath, "--quiet"], output: { lines.append($0) })
        print(lines.text)
        #expect(call.speakers.map(\.id) == ["p1", "p2", "p3"])

        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: jsonPath)))
            as? [String: Any])
        let schedule = try #require(json["speakingSchedule"] as? [[String: Any]])
        let snapshots = try #require(json["speakerSnapshots"] as? [[String: Any]])
        #expect(schedule.compactMap { $0["speaker"] as? String } == ["p1", "p2", "p3", "p1", "p2", "p3"])

        // Snapshots are emitted on change; the one in effect three quarters into each turn puts
        // that turn's speaker first.
        var checked = 0
        for turn in schedule {
            let from = try #require(turn["fromMs"] as? Int), to = try #require(turn["toMs"] as? Int)
            let speaker = try #require(turn["speaker"] as? String)
            let probe = from + (to - from) * 3 / 4
            guard let inEffect = snapshots.last(where: { ($0["atMs"] as? Int ?? .max) <= probe }) else { continue }
            let speakers = inEffect["speakers"] as? [[String: Any]] ?? []
            #expect(speakers.first?["participantId"] as? String == speaker, "at \(probe) ms: \(speakers)")
            #expect(speakers.first?["trackId"] as? String == "mic-\(speaker)")
            checked += 1
        }
        #expect(checked == schedule.count)
        // The dominant speaker changes to each turn's speaker within 1.5 s of its start.
        let changes = try #require(json["dominantSpeakerChanges"] as? [[String: Any]])
        for turn in schedule.dropFirst() {
            let from = try #require(turn["fromMs"] as? Int), speaker = turn["speaker"] as? String
            #expect(changes.contains { ($0["dominant"] as? String) == speaker && ($0["atMs"] as? Int).map { $0 >= from - 300 && $0 <= from + 1_500 } == true },
                    "no change to \(speaker ?? "?") near \(from) ms")
        }

        // Adaptive subscriptions: the throttled viewer loses videos and gets them back; the viewer never.
        let events = try #require(json["adaptiveEvents"] as? [[String: Any]])
        #expect(events.allSatisfy { $0["subscriber"] as? String == "throttled" })
        let paused = events.filter { $0["event"] as? String == "paused" }
        let resumed = events.filter { $0["event"] as? String == "resumed" }
        #expect(!paused.isEmpty && !resumed.isEmpty)
        #expect(paused.allSatisfy { ["muted", "leastDominance"].contains($0["reason"] as? String ?? "") })
        let firstPause = paused.compactMap { $0["atMs"] as? Int }.min() ?? 0
        #expect(firstPause >= 2_000)
        #expect(resumed.allSatisfy { ($0["atMs"] as? Int ?? 0) > firstPause })

        // Quality levels are reported, and the open viewer decoded every publisher all along.
        let viewers = try #require(json["viewers"] as? [[String: Any]])
        #expect(viewers.count == 2)
        for viewer in viewers {
            #expect(!(viewer["qualityChanges"] as? [[String: Any]] ?? []).isEmpty)
        }
        let open = try #require(viewers.first { $0["id"] as? String == "viewer" })
        let frames = try #require(open["framesDecoded"] as? [String: Int])
        #expect(frames.count == 3 && frames.values.allSatisfy { $0 >= 200 })
    }

    /// Issue 17 in the room demo: p1 also shares its screen; when the throttled viewer is
    /// squeezed, adaptive subscriptions pause camera videos and never the screen share, which the
    /// squeezed viewer keeps decoding.
    @Test func aSqueezedViewerKeepsTheScreenShareAfterItsCameraVideosArePaused() async throws {
        let jsonPath = FileManager.default.temporaryDirectory.appendingPathComponent("room-demo-screen-\(getpid()).json").path
        defer { try? FileManager.default.removeItem(atPath: jsonPath) }
        let lines = OutputLines()
        _ = try await RoomDemo.run(["--participants", "--seconds", "12", "--throttle", "2-7", "--throttle-kbps", "200",
                                    "--screen-share", "p1", "--json", jsonPath, "--quiet"], output: { lines.append($0) })
        print(lines.text)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: jsonPath)))
            as? [String: Any])
        #expect(json["screenSharer"] as? String == "p1")
        let events = (json["adaptiveEvents"] as? [[String: Any]] ?? []).filter { $0["subscriber"] as? String == "throttled" }
        let paused = events.filter { $0["event"] as? String == "paused" }.compactMap { $0["participant"] as? String }
        #expect(!paused.isEmpty && paused.allSatisfy { ["p1", "p2", "p3"].contains($0) })  // cameras only
        let viewers = try #require(json["viewers"] as? [[String: Any]])
        let throttled = try #require(viewers.first { $0["id"] as? String == "throttled" }?["framesDecoded"] as? [String: Int])
        let open = try #require(viewers.first { $0["id"] as? String == "viewer" }?["framesDecoded"] as? [String: Int])
        #expect((throttled["p1/screen"] ?? 0) > 0 && (open["p1/screen"] ?? 0) > 0)
    }
}
