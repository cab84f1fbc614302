import Foundation
import Synchronization
import InteropTestSupport
import MediaCodecs
import MediaEngine
import Testing

/// Issue 28 items 2 and 5 through a real Janus 1.1 (inside scripts/netns-run.sh's namespace, as
/// `JanusRoomAPITests`): alice publishes a camera and a 440 Hz microphone; bob (auto-consuming)
/// receives both of her feed's streams over one subscriber peer connection, decodes the video
/// with no decoder error and hears the tone; stopping his microphone track unsubscribes it at
/// Janus (no more of its packets reach his socket) while her video still flows. carol joined
/// with `autoConsume: false` receives nothing (0 packets on any socket) until she consumes
/// alice's microphone, then hears her; stopping it leaves the subscription (nothing left to
/// receive) and consuming again makes a new one. alice leaving ends bob's video track and carol's audio
/// track (their streams finish) within 2 s.
@Suite(.serialized) struct JanusRemoteAudioTests {
    @Test func bobHearsAndSeesAliceOverOneSubscriberConnection() async throws {
        try PrivateNamespace.require(for: "JanusRemoteAudioTests")
        let harness = try JanusHarness.start([])
        defer { harness.stop() }
        let engine = MediaEngine()
        let alice = try await engine.joinJanusRoom(url: harness.url, room: 1234, participantId: "alice",
                                                   localAddress: PrivateNamespace.localAddress)
        let aliceEvents = EventLog(alice)
        let microphone = alice.createMicrophoneAudioTrack()
        try await alice.publish(microphone)
        let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
        try await alice.publish(camera)
        let feed = try #require(try await aliceEvents.publication()?.feedId)
        // alice speaks and films through the whole test (stopped at its end).
        let speaking = Task { try await JanusRoomAPITests.speak(into: microphone, seconds: 30) }
        let filming = Task { try await Capture(camera, width: 640, height: 360).run(seconds: 30) }
        defer { speaking.cancel(); filming.cancel() }

        // carol, not auto-consuming, joins first: nothing reaches her until she asks.
        let carolEngine = MediaEngine()
        let carol = try await carolEngine.joinJanusRoom(url: harness.url, room: 1234, participantId: "carol",
                                                        localAddress: PrivateNamespace.localAddress, autoConsume: false)
        let carolLog = EventLog(carol)

        let bob = try await engine.joinJanusRoom(url: harness.url, room: 1234, participantId: "bob",
                                                 localAddress: PrivateNamespace.localAddress)
        let video = try await bob.subscribe(to: feed)
        let audio = try await bob.subscribe(toMicrophoneOf: feed)
        let blocks = ReceivedAudioBlocks(audio)
        let videoEnded = StreamEnded(), carolAudioEnded = StreamEnded()
        let videoFrames = Task { () -> Int in
            var count = 0
            for await _ in video.frames { count += 1 }
            videoEnded.set()
            return count
        }
        // Stats are read while alice still speaks (a talk's end is concealed for 200 ms before
        // the jitter buffer takes the stream as paused).
        try await Task.sleep(for: .seconds(4))
        let videoStats = try await video.stats(), audioStats = try await audio.stats()
        // The subscriber peer connection's selected pair: bob's host candidate to Janus's.
        let pair = try #require(videoStats.selectedCandidatePair, "bob's video stats name no candidate pair")
        print("bob's subscription runs on \(pair)")
        #expect(pair.local.type == .host && pair.remote.port != 0)
        let connections = try await bob.janusSubscriberConnectionCount()
        let carolBefore = try await carol.mediaActivity()
        let carolAlicePacketsBefore = try await carol.janusPacketsOnSocket(from: "alice", kind: .microphone)

        // bob stops consuming the microphone: Janus unsubscribes it; her video goes on.
        await audio.stopConsuming()
        await blocks.reader.value
        try await Task.sleep(for: .seconds(1))
        let audioAfterStop = try await bob.janusPacketsOnSocket(from: feed, kind: .microphone) ?? -1
        let videoAfterStop = try await bob.janusPacketsOnSocket(from: feed, kind: .camera) ?? -1
        try await Task.sleep(for: .milliseconds(1500))
        let audioLater = try await bob.janusPacketsOnSocket(from: feed, kind: .microphone) ?? -1
        let videoLater = try await bob.janusPacketsOnSocket(from: feed, kind: .camera) ?? -1
        print("bob's socket after stopConsuming: alice's audio \(audioAfterStop) → \(audioLater) packets, video \(videoAfterStop) → \(videoLater)")
        #expect(audioAfterStop > 0 && audioLater == audioAfterStop)
        #expect(videoLater > videoAfterStop)

        let frames = blocks.all
        let decoded = frames.filter { $0.kind == .decoded }
        let frequency = dominantFrequency(of: Array(decoded.suffix(75).prefix(50).flatMap(\.audio.samples)))
        let playedMilliseconds = (audioStats.framesDecoded + audioStats.framesRecoveredByFEC) * 20 + audioStats.concealedMilliseconds
        print("Janus remote audio: \(frames.count) blocks, \(frequency) Hz, concealed \(audioStats.concealedMilliseconds) ms of "
              + "\(playedMilliseconds), lost \(audioStats.packetsLost), jitter buffer \(audioStats.jitterBufferDelayMilliseconds) ms; "
              + "video \(videoStats.framesDecoded) frames, \(videoStats.decoderErrors) decoder errors; "
              + "\(connections.map(String.init) ?? "no") subscriber connection(s)")
        #expect(connections == 1)
        #expect(videoStats.framesDecoded >= 60 && videoStats.decoderErrors == 0)
        #expect(decoded.count >= 100)
        #expect(abs(frequency - 440) <= 440 * 0.02)
        #expect(audioStats.decoderErrors == 0)
        #expect(Double(audioStats.concealedMilliseconds) < Double(playedMilliseconds) * 0.02)
        #expect(frames.contains { $0.senderTimeMicroseconds != nil })

        // carol (autoConsume false): 0 media packets so far, though alice published before she joined.
        print("carol before consuming: \(carolBefore), alice's audio packets on her socket: \(carolAlicePacketsBefore.map(String.init) ?? "none")")
        #expect(JanusRoomModelTests.joinedBeforeRoomJoined(carolLog)?["alice"] != nil)
        #expect(carolBefore.mediaSockets == 0 && carolBefore.mediaDatagramsReceived == 0 && carolAlicePacketsBefore == nil)
        #expect(!carolLog.all.contains { if case .trackSubscribed = $0 { true } else { false } })
        let firstAudio = try await carol.subscribe(toMicrophoneOf: "alice")
        let firstBlocks = ReceivedAudioBlocks(firstAudio)
        #expect(try await JanusRoomModelTests.wait(seconds: 5) { firstBlocks.all.filter { $0.kind == .decoded }.count >= 50 })
        let carolPackets = try await carol.janusPacketsOnSocket(from: "alice", kind: .microphone) ?? 0
        let carolFrequency = dominantFrequency(of: Array(firstBlocks.all.filter { $0.kind == .decoded }.suffix(50).flatMap(\.audio.samples)))
        print("carol after consuming: \(carolPackets) of alice's audio packets, \(carolFrequency) Hz")
        #expect(carolPackets > 0 && abs(carolFrequency - 440) <= 440 * 0.02)

        // carol stops her only stream: Janus's offer then has nothing to receive, the subscription
        // is left; consuming again makes a new one, and alice is heard again.
        await firstAudio.stopConsuming()
        await firstBlocks.reader.value
        #expect(try await JanusRoomModelTests.wait(seconds: 3) { try await carol.janusSubscriberConnectionCount() == 0 })
        let carolAudio = try await carol.subscribe(toMicrophoneOf: "alice")
        let carolBlocks = ReceivedAudioBlocks(carolAudio)
        Task {
            await carolBlocks.reader.value
            carolAudioEnded.set()
        }
        #expect(try await JanusRoomModelTests.wait(seconds: 5) { carolBlocks.all.filter { $0.kind == .decoded }.count >= 25 })
        #expect(try await carol.janusSubscriberConnectionCount() == 1)

        // carol watches alice's camera, then stops it without leaving: Janus unsubscribes the
        // video; her audio goes on on the same connection.
        let carolVideo = try await carol.subscribe(to: "alice")
        let carolFrames = ReceivedStream<VideoFrame>(carolVideo)
        #expect(try await JanusRoomModelTests.wait(seconds: 5) { carolFrames.count >= 10 })
        await carolVideo.stopConsuming()
        await carolFrames.reader.value  // the stream finished
        try await Task.sleep(for: .seconds(1))
        let carolVideoAfterStop = try await carol.janusPacketsOnSocket(from: "alice", kind: .camera) ?? -1
        let carolAudioAfterStop = try await carol.janusPacketsOnSocket(from: "alice", kind: .microphone) ?? -1
        try await Task.sleep(for: .milliseconds(1500))
        let carolVideoLater = try await carol.janusPacketsOnSocket(from: "alice", kind: .camera) ?? -1
        let carolAudioLater = try await carol.janusPacketsOnSocket(from: "alice", kind: .microphone) ?? -1
        print("carol's socket after stopping alice's video: video \(carolVideoAfterStop) → \(carolVideoLater) packets, "
              + "audio \(carolAudioAfterStop) → \(carolAudioLater)")
        #expect(carolVideoAfterStop > 0 && carolVideoLater == carolVideoAfterStop)
        // ... and she was told, as in a hosted room: receiving alice's camera, then no longer.
        let streamEvents = carolLog.all.compactMap { event -> String? in
            switch event {
            case let .streamEnabled(participantId, kind), let .streamDisabled(participantId, kind):
                return "\(event.description) [\(participantId), \(kind)]"
            default: return nil
            }
        }
        print("carol's stream events: \(streamEvents)")
        #expect(streamEvents.filter { $0.contains("[alice, camera]") }.map { $0.hasPrefix("receiving") }.suffix(2) == [true, false],
                "\(streamEvents)")
        #expect(carolAudioLater > carolAudioAfterStop)
        #expect(try await carol.janusSubscriberConnectionCount() == 1)

        // alice leaves: bob's video track and carol's audio track end within 2 s.
        let left = ContinuousClock.now
        await alice.leave()
        let ended = await JanusRoomModelTests.wait(seconds: 2) { videoEnded.value && carolAudioEnded.value }
        print("alice's tracks ended at bob (video: \(videoEnded.value)) and carol (audio: \(carolAudioEnded.value)) "
              + "\(ContinuousClock.now - left) after she left")
        #expect(ended)
        await engine.close()
        await carolEngine.close()
        #expect(await videoFrames.value > 60)
    }
}

/// Set once a reading task saw its stream finish.
final class StreamEnded: Sendable {
    private let ended = Mutex(false)
    var value: Bool { ended.withLock { $0 } }
    func set() { ended.withLock { $0 = true } }
}
