import Foundation
import InteropTestSupport
import MediaCodecs
import MediaEngine
import Testing

/// Issue 28 item 2 through a real Janus 1.1 (inside scripts/netns-run.sh's namespace, as
/// `JanusRoomAPITests`): alice publishes a camera and a 440 Hz microphone; bob receives both of
/// her feed's streams over one subscriber peer connection, decodes the video with no decoder
/// error and hears the tone.
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
        let feed = try #require(aliceEvents.all.compactMap { if case let .publishedToSFU(p) = $0 { p.feedId } else { nil } }.first)

        let bob = try await engine.joinJanusRoom(url: harness.url, room: 1234, participantId: "bob",
                                                 localAddress: PrivateNamespace.localAddress)
        let video = try await bob.subscribe(to: feed)
        let audio = try await bob.subscribe(toMicrophoneOf: feed)
        let blocks = ReceivedAudioBlocks(audio)
        let sizes = SizeLog(video)
        // Stats are read while alice still speaks (a talk's end is concealed for 200 ms before
        // the jitter buffer takes the stream as paused): she speaks well past the capture, which
        // a loaded machine can stretch beyond its 4 s.
        async let spoke: Void = JanusRoomAPITests.speak(into: microphone, seconds: 8)
        try await Capture(camera, width: 640, height: 360).run(seconds: 4)
        let videoStats = try await video.stats(), audioStats = try await audio.stats()
        let connections = try await bob.janusSubscriberConnectionCount()
        try await spoke
        await audio.stopConsuming()
        await blocks.reader.value
        let frames = blocks.all
        let decoded = frames.filter { $0.kind == .decoded }
        let frequency = dominantFrequency(of: Array(decoded.suffix(75).prefix(50).flatMap(\.audio.samples)))
        let playedMilliseconds = (audioStats.framesDecoded + audioStats.framesRecoveredByFEC) * 20 + audioStats.concealedMilliseconds
        print("Janus remote audio: \(frames.count) blocks, \(frequency) Hz, concealed \(audioStats.concealedMilliseconds) ms of "
              + "\(playedMilliseconds), lost \(audioStats.packetsLost), jitter buffer \(audioStats.jitterBufferDelayMilliseconds) ms; "
              + "video \(videoStats.framesDecoded) frames (\(sizes.count) sized), \(videoStats.decoderErrors) decoder errors; "
              + "\(connections.map(String.init) ?? "no") subscriber connection(s)")
        #expect(connections == 1)
        #expect(videoStats.framesDecoded >= 60 && videoStats.decoderErrors == 0)
        #expect(decoded.count >= 100)
        #expect(abs(frequency - 440) <= 440 * 0.02)
        #expect(audioStats.decoderErrors == 0)
        #expect(Double(audioStats.concealedMilliseconds) < Double(playedMilliseconds) * 0.02)
        #expect(frames.contains { $0.senderTimeMicroseconds != nil })
        await engine.close()
    }
}
