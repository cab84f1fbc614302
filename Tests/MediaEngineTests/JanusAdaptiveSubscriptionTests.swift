import Foundation
import InteropTestSupport
import MediaCodecs
import MediaEngine
import Testing

/// Issue 28 item 5 through a real Janus 1.1 (inside scripts/netns-run.sh's namespace): five of our
/// participants publish 320x180 cameras (p1 and p2 a tone microphone too); carol receives every
/// camera and both microphones on her one subscriber connection. Her dominance ranking is set
/// (p3, p1, p5, p2, p4: most dominant first) and she pins p4, so her pause order is p2, p5, p1,
/// p3, then p4. Her downlink is squeezed to 300 kbps (`tc tbf` on the Janus host's end of the
/// veth: what Janus sends her, the only heavy traffic on that side). Her client-side adaptive
/// subscriptions must pause videos in that order (reason `leastDominance`), Janus must stop
/// relaying a paused one (its packets stop reaching her socket), audio must keep arriving every
/// second, and after the squeeze every video must resume (`networkStable`) and decode again.
/// Then `setWebcamQuality(.low)` on p6's two-layer camera (640x360 + 320x180) caps what it sends
/// through Janus: carol, asking for the top substream, gets 320x180. Publishers join with
/// `autoConsume: false`: what they received would cross the squeezed link too.
@Suite(.serialized) struct JanusAdaptiveSubscriptionTests {
    static let publishers = ["p1", "p2", "p3", "p4", "p5"]
    static let ranking = ["p3", "p1", "p5", "p2", "p4"]
    static let pauseOrder = ["p2", "p5", "p1", "p3", "p4"]  // least dominant first, pinned p4 last

    @Test func aSqueezedViewerPausesTheLeastDominantVideosFirstAndNeverAudio() async throws {
        try PrivateNamespace.require(for: "JanusAdaptiveSubscriptionTests")
        let harness = try JanusHarness.start([])
        defer { harness.stop() }
        let engine = MediaEngine()
        var cameras: [LocalVideoTrack] = []
        var microphones: [LocalAudioTrack] = []
        for id in Self.publishers {
            // Publishers only: what they would receive would cross the squeezed link too.
            let participant = try await engine.joinJanusRoom(url: harness.url, room: 1234, participantId: id,
                                                             localAddress: PrivateNamespace.localAddress, autoConsume: false)
            if id == "p1" || id == "p2" {
                let microphone = participant.createMicrophoneAudioTrack()
                try await participant.publish(microphone)
                microphones.append(microphone)
            }
            let camera = try participant.createCameraVideoTrack(encoderConfig: CameraEncoderConfig(width: 320, height: 180))
            try await participant.publish(camera)
            cameras.append(camera)
        }
        // p6 publishes two layers (640x360 + 320x180) that carol watches only at the end, for the webcam cap.
        let p6 = try await engine.joinJanusRoom(url: harness.url, room: 1234, participantId: "p6",
                                                localAddress: PrivateNamespace.localAddress, autoConsume: false)
        let p6Camera = try p6.createCameraVideoTrack(encoderConfig: .h360p)
        try await p6.publish(p6Camera)
        let filming = Task { try await Self.film(cameras, seconds: 80) }
        let filmingP6 = Task { try await Self.film([p6Camera], width: 640, height: 360, seconds: 80) }
        let speaking = microphones.map { microphone in Task { try await JanusRoomAPITests.speak(into: microphone, seconds: 80) } }
        defer {
            filming.cancel()
            filmingP6.cancel()
            speaking.forEach { $0.cancel() }
        }

        let carolEngine = MediaEngine()
        let carol = try await carolEngine.joinJanusRoom(url: harness.url, room: 1234, participantId: "carol",
                                                        localAddress: PrivateNamespace.localAddress, mode: .recvOnly, autoConsume: false)
        let carolLog = EventLog(carol)
        #expect(try await JanusRoomModelTests.wait(seconds: 10) { try await carol.participants.count == 6 })
        var videos: [String: RemoteVideoTrack] = [:]
        for id in Self.publishers { videos[id] = try await carol.subscribe(to: id) }
        let audios = [try await carol.subscribe(toMicrophoneOf: "p1"), try await carol.subscribe(toMicrophoneOf: "p2")]
        try await carol.setJanusSpeakerRanking(Self.ranking)
        try await videos["p4"]!.setPinned(true)
        func decoded() async throws -> [String: Int] {
            var counts: [String: Int] = [:]
            for (id, video) in videos { counts[id] = Int(try await video.stats().framesDecoded) }
            return counts
        }
        #expect(try await JanusRoomModelTests.wait(seconds: 10) { try await decoded().values.allSatisfy { $0 >= 30 } })
        let unsqueezed = try await carol.janusAdaptiveState()
        var bitrates: [String] = []
        for id in Self.publishers { bitrates.append("\(id) \(try await videos[id]!.stats().bitsPerSecond / 1000) kbps") }
        print("carol before the squeeze: estimate \(unsqueezed.estimatedBitsPerSecond.map(String.init) ?? "none") bps, paused \(unsqueezed.paused), "
              + "videos \(bitrates)")
        #expect(unsqueezed.paused.isEmpty)
        let audioBefore = try await Self.audioPackets(carol)
        try await Task.sleep(for: .seconds(1))
        let audioBaseline = zip(audioBefore, try await Self.audioPackets(carol)).map { $1 - $0 }
        var audioLoss: [String] = []
        for audio in audios { let stats = try await audio.stats(); audioLoss.append("\(stats.packetsLost) lost, \(stats.framesDecoded) decoded") }
        print("p1/p2 audio packets in a second before the squeeze: \(audioBaseline), \(audioLoss)")

        // The squeeze: 300 kbps from the Janus host to us.
        try Self.shapeJanusSide(["qdisc", "add", "dev", "veth-peer", "root", "tbf", "rate", "300kbit", "burst", "4kb", "latency", "50ms"])
        var removed = false
        defer { if !removed { try? Self.shapeJanusSide(["qdisc", "del", "dev", "veth-peer", "root"]) } }
        let squeezed = ContinuousClock.now
        #expect(try await JanusRoomModelTests.wait(seconds: 15) { try await carol.janusAdaptiveState().paused.count >= 2 })
        print("carol's first two pauses \(ContinuousClock.now - squeezed) after the squeeze")

        // Under the squeeze: audio arrives in every second; a paused video's packets stop at Janus.
        var audioPerSecond: [[Int64]] = []
        var pausedStill: (id: String, packets: [Int64])?
        for _ in 0..<4 {
            let before = try await Self.audioPackets(carol)
            let paused = try await carol.janusAdaptiveState().paused
            let videoBefore = try await Self.packets(carol, paused, kind: .camera)
            try await Task.sleep(for: .seconds(1))
            let after = try await Self.audioPackets(carol)
            let videoAfter = try await Self.packets(carol, paused, kind: .camera)
            let stillPaused = try await carol.janusAdaptiveState().paused
            audioPerSecond.append(zip(before, after).map { $1 - $0 })
            // One second well after the pause (Janus's configure and what was in flight are done).
            if let id = Self.pauseOrder.first(where: { stillPaused.contains($0) && paused.contains($0) }),
               let index = paused.firstIndex(of: id), ContinuousClock.now - squeezed > .seconds(2) {
                pausedStill = (id, [videoBefore[index], videoAfter[index]])
            }
        }
        let squeezeState = try await carol.janusAdaptiveState()
        audioLoss = []
        for audio in audios { let stats = try await audio.stats(); audioLoss.append("\(stats.packetsLost) lost, \(stats.framesDecoded) decoded") }
        print("p1/p2 audio under the squeeze: \(audioLoss)")
        print("carol under the squeeze: estimate \(squeezeState.estimatedBitsPerSecond.map(String.init) ?? "none") bps, "
              + "paused \(squeezeState.paused); p1/p2 audio packets per second \(audioPerSecond); paused camera packets \(String(describing: pausedStill))")
        #expect(audioPerSecond.allSatisfy { $0.allSatisfy { $0 >= 10 } })
        #expect(pausedStill != nil && pausedStill?.packets[0] == pausedStill?.packets[1])

        // The squeeze ends: every video resumes and decodes again.
        try Self.shapeJanusSide(["qdisc", "del", "dev", "veth-peer", "root"])
        removed = true
        let released = ContinuousClock.now
        let resumed = try await JanusRoomModelTests.wait(seconds: 25) { try await carol.janusAdaptiveState().paused.isEmpty }
        print("carol resumed every video \(ContinuousClock.now - released) after the squeeze ended (\(resumed))")
        #expect(resumed)
        let framesAfterResume = try await decoded()
        try await Task.sleep(for: .seconds(2))
        let framesLater = try await decoded()
        print("frames decoded in the 2 s after resuming: \(Self.publishers.map { "\($0) \(framesLater[$0]! - framesAfterResume[$0]!)" })")
        #expect(Self.publishers.allSatisfy { framesLater[$0]! - framesAfterResume[$0]! >= 10 })

        // The events: pauses in the pause order (each one only once everything less important is
        // paused), reason leastDominance; resumes networkStable; never an audio stream.
        var paused: Set<String> = []
        var pauses: [String] = [], resumes: [String] = []
        var orderKept = true
        for event in carolLog.all {
            switch event {
            case let .subscriptionPaused(id, reason):
                let rank = Self.pauseOrder.firstIndex(of: id) ?? -1
                if !Self.pauseOrder.prefix(max(0, rank)).allSatisfy(paused.contains) || reason != .leastDominance { orderKept = false }
                paused.insert(id)
                pauses.append(id)
            case let .subscriptionResumed(id, reason):
                if reason != .networkStable { orderKept = false }
                paused.remove(id)
                resumes.append(id)
            default: break
            }
        }
        print("carol's pauses \(pauses), resumes \(resumes)")
        #expect(pauses.count >= 2 && Array(pauses.prefix(2)) == Array(Self.pauseOrder.prefix(2)))
        #expect(orderKept && paused.isEmpty)
        #expect(!carolLog.all.contains { if case .failure = $0 { true } else { false } })

        // setWebcamQuality on a Janus publisher caps its encoder: carol, asking Janus for p6's top
        // substream, gets 640x360 until p6 caps at .low, then 320x180 (Janus falls back to the
        // substream that still flows).
        let fromP6 = try await carol.subscribe(to: "p6")
        try await fromP6.setQuality(.high)
        let large = VideoSize(width: 640, height: 360), small = VideoSize(width: 320, height: 180)
        #expect(try await JanusRoomModelTests.wait(seconds: 10) { try await fromP6.stats().frameSize == large })
        try await p6Camera.setWebcamQuality(.low)
        let capped = ContinuousClock.now
        #expect(try await JanusRoomModelTests.wait(seconds: 10) { try await fromP6.stats().frameSize == small })
        let sending = try await p6Camera.stats().sendingLayers
        print("p6 capped at .low: sending layers \(sending), carol receives 320x180 \(ContinuousClock.now - capped) after the cap")
        #expect(sending == [0])
        _ = audios
        await carolEngine.close()
        await engine.close()
    }

    /// RTP packets of p1's and p2's microphones on carol's subscriber socket.
    static func audioPackets(_ carol: LocalParticipant) async throws -> [Int64] {
        try await packets(carol, ["p1", "p2"], kind: .microphone)
    }

    static func packets(_ carol: LocalParticipant, _ ids: [String], kind: PublishedTrackKind) async throws -> [Int64] {
        var counts: [Int64] = []
        for id in ids { counts.append(try await carol.janusPacketsOnSocket(from: id, kind: kind) ?? 0) }
        return counts
    }

    /// 30 fps of moving bars (`capturedFrame`), 60 frames cycled.
    static func film(_ cameras: [LocalVideoTrack], width: Int = 320, height: Int = 180, seconds: Int) async throws {
        let frames = try (0..<60).map { try capturedFrame(width: width, height: height, index: $0) }
        let start = ContinuousClock.now
        for index in 0..<(seconds * 30) {
            for camera in cameras { try camera.push(frames[index % frames.count]) }
            try await Task.sleep(until: start + .milliseconds(index * 1000 / 30 + 33), clock: .continuous)
        }
    }

    struct ShapingFailed: Error { var description: String }

    /// Runs `tc` on the peer host (where Janus runs): its egress is carol's downlink.
    static func shapeJanusSide(_ arguments: [String]) throws {
        let process = Process()
        try PrivateNamespace.runOnPeerHost(process, executable: URL(fileURLWithPath: "/usr/sbin/tc"), arguments: arguments)
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ShapingFailed(description: "tc \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
    }
}
