import MediaCodecs
import MediaEngine
import InteropTestSupport
import MediaEngineTesting
import Testing

/// Issue 28 item 2 in a hosted room on virtual time: bob consumes alice's microphone
/// (`subscribe(toMicrophoneOf:)`) and hears her 440 Hz tone through the jitter buffer, Opus
/// concealment and FEC; stopping ends the stream and the node sends bob no more of her audio.
@Suite struct RemoteAudioTests {
    /// Alice publishes a camera (the microphone rides its node) and a microphone; bob joins.
    private func room(_ virtual: VirtualTimeEngine) async throws -> (Room, LocalAudioTrack, LocalParticipant) {
        let (room, mic, _, bob) = try await Self.roomWithCamera(virtual)
        return (room, mic, bob)
    }

    /// Also `PresentationTimeTests`' room.
    static func roomWithCamera(_ virtual: VirtualTimeEngine) async throws -> (Room, LocalAudioTrack, LocalVideoTrack, LocalParticipant) {
        let room = try await virtual.engine.hostRoom(options: RoomOptions(autoConsume: false))
        let alice = try await room.join(participantId: "alice")
        let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p, multiStream: false)
        try await alice.publish(camera)
        let mic = alice.createMicrophoneAudioTrack()
        try await alice.publish(mic)
        let bob = try await room.join(participantId: "bob")
        return (room, mic, camera, bob)
    }

    /// Plays `frames` blocks of a steady 440 Hz tone into `mic` and advances virtual time through
    /// them, 100 ms at a time, letting `listener`'s reader catch up after each step.
    private func speak(_ frames: Int, into mic: LocalAudioTrack, _ virtual: VirtualTimeEngine,
                       listener: (RemoteAudioTrack, ReceivedAudioBlocks)? = nil) async throws {
        let playing = await virtual.play(ToneSource(frequencyHz: 440, talkFrames: frames, frames: frames), on: mic)
        let start = mic.framesPlayed
        #expect(try await virtual.advance(until: {
            try await catchUp(listener)
            return mic.framesPlayed - start == frames
        }, within: .seconds(Int64(frames / 50 + 2)), step: .milliseconds(100)))
        for _ in 0..<5 {
            virtual.advance(by: .milliseconds(100))  // the last packets through the jitter buffer
            try await catchUp(listener)
        }
        try await playing.value
    }

    /// Waits (real time, at most 10 s: a loaded machine may starve the reading task) until the
    /// reader holds every block the track played so far, so none is dropped from the stream's
    /// 1 s of buffering while virtual time runs ahead.
    private func catchUp(_ listener: (track: RemoteAudioTrack, blocks: ReceivedAudioBlocks)?) async throws {
        guard let listener else { return await Task.yield() }
        for _ in 0..<10_000 {
            let stats = try await listener.track.stats()
            if listener.blocks.count >= stats.framesDecoded + stats.framesRecoveredByFEC + stats.concealedMilliseconds / 20 { return }
            try await Task.sleep(for: .milliseconds(1))
        }
        Issue.record("the reader of the remote audio did not catch up")
    }

    @Test func bobHearsAlicesToneOnACleanNetwork() async throws {
        let virtual = VirtualTimeEngine(seed: 28)
        let (room, mic, bob) = try await room(virtual)
        let track = try await bob.subscribe(toMicrophoneOf: "alice")
        let received = ReceivedAudioBlocks(track)
        // Stats read while alice still speaks: the tail after a talk ends is expanded (concealed)
        // for 200 ms before the jitter buffer takes the stream as paused.
        let playing = await virtual.play(ToneSource(frequencyHz: 440, talkFrames: 200, frames: 200), on: mic)
        #expect(try await virtual.advance(until: {
            try await catchUp((track, received))
            return mic.framesPlayed >= 150
        }, within: .seconds(5), step: .milliseconds(100)))
        let stats = try await track.stats()
        for _ in 0..<20 {
            virtual.advance(by: .milliseconds(100))
            try await catchUp((track, received))
        }
        try await playing.value
        await track.stopConsuming()
        await received.reader.value
        let frames = received.all
        let played = (stats.framesDecoded + stats.framesRecoveredByFEC) * 20 + stats.concealedMilliseconds
        let pcm = frames.dropFirst(25).prefix(50).flatMap(\.audio.samples)
        let frequency = dominantFrequency(of: Array(pcm))
        print("remote audio, clean: \(frames.count) blocks, \(frequency) Hz, concealed \(stats.concealedMilliseconds) ms,"
              + " jitter buffer \(stats.jitterBufferDelayMilliseconds) ms (target \(stats.jitterBufferTargetDelayMilliseconds)),"
              + " level \(String(describing: stats.audioLevel)), lost \(stats.packetsLost)")
        #expect(frames.count >= 190)
        #expect(abs(frequency - 440) <= 440 * 0.02)
        #expect(Double(stats.concealedMilliseconds) < Double(played) * 0.02)
        #expect(stats.decoderErrors == 0 && stats.packetsLost == 0 && stats.isMuted == false)
        #expect(stats.packetsReceived >= 140 && stats.framesDecoded >= 140)
        #expect((stats.audioLevel ?? 127) < 30)  // a 0.3 full-scale tone: about −13 dBov
        // Presentation times: RTP time steps 960 a block; once the sender's first report is in,
        // the sender's clock maps it 20 ms a block.
        for (earlier, later) in zip(frames, frames.dropFirst()) where later.kind == .decoded && earlier.kind == .decoded {
            #expect(later.rtpTimestamp &- earlier.rtpTimestamp == 960)
            if let a = earlier.senderTimeMicroseconds, let b = later.senderTimeMicroseconds { #expect(abs(b - a - 20_000) <= 1) }
        }
        #expect(frames.last?.senderTimeMicroseconds != nil)
        _ = room
        await virtual.close()
    }

    @Test func lossIsConcealedAndCounted() async throws {
        let virtual = VirtualTimeEngine(seed: 5)
        let (room, mic, bob) = try await room(virtual)
        virtual.impairDownlink(of: bob, with: VirtualNetworkConditions(lossProbability: 0.05, seed: 9))
        let track = try await bob.subscribe(toMicrophoneOf: "alice")
        let received = ReceivedAudioBlocks(track)
        try await speak(250, into: mic, virtual, listener: (track, received))
        let stats = try await track.stats()
        await track.stopConsuming()
        await received.reader.value
        let frames = received.all
        let madeUp = frames.filter { $0.kind != .decoded }.count
        print("remote audio, 5 % loss: \(frames.count) blocks, lost \(stats.packetsLost), FEC \(stats.framesRecoveredByFEC),"
              + " concealed \(stats.concealedMilliseconds) ms, dropped by the link \(virtual.droppedByImpairedDownlink)")
        #expect(virtual.droppedByImpairedDownlink > 0)
        #expect(stats.packetsLost > 0)
        #expect(stats.concealedMilliseconds + stats.framesRecoveredByFEC * 20 > 0)
        #expect(madeUp == stats.concealedMilliseconds / 20 + stats.framesRecoveredByFEC)
        #expect(stats.decoderErrors == 0)
        #expect(frames.count >= 230)
        _ = room
        await virtual.close()
    }

    @Test func stoppingEndsTheStreamAndThePackets() async throws {
        let virtual = VirtualTimeEngine(seed: 3)
        let (room, mic, bob) = try await room(virtual)
        let track = try await bob.subscribe(toMicrophoneOf: "alice")
        let received = ReceivedAudioBlocks(track)
        try await speak(50, into: mic, virtual, listener: (track, received))
        let forwarded = try await room.packetsForwarded(subscriber: "bob", publisher: "alice").audio
        #expect(forwarded >= 45)
        await track.stopConsuming()
        await received.reader.value  // the stream finished
        let blocks = received.count
        try await speak(50, into: mic, virtual)
        #expect(try await room.packetsForwarded(subscriber: "bob", publisher: "alice").audio == forwarded)
        #expect(received.count == blocks)
        await #expect(throws: EngineError.self) { _ = try await track.stats() }
        // Consuming again starts a fresh stream; stopping twice is harmless.
        let again = try await bob.subscribe(toMicrophoneOf: "alice")
        await #expect(throws: EngineError.self) { _ = try await bob.subscribe(toMicrophoneOf: "alice") }
        try await speak(25, into: mic, virtual)
        #expect(try await again.stats().framesDecoded > 0)
        await again.stopConsuming()
        await again.stopConsuming()
        await #expect(throws: EngineError.self) { _ = try await bob.subscribe(toMicrophoneOf: "nobody") }
        await virtual.close()
    }

    @Test func consumingOnlyTheMicrophoneForwardsNoVideo() async throws {
        let virtual = VirtualTimeEngine(seed: 11)
        let (room, mic, camera, bob) = try await Self.roomWithCamera(virtual)
        let track = try await bob.subscribe(toMicrophoneOf: "alice")
        let video = await virtual.play(try TestSceneSource(width: 640, height: 360, frames: 60), on: camera)
        try await speak(50, into: mic, virtual)
        let audioOnly = try await room.packetsForwarded(subscriber: "bob", publisher: "alice")
        #expect(camera.framesPlayed >= 25 && audioOnly.audio >= 45)
        #expect(audioOnly.video == 0)
        // Subscribing to the camera now brings the video on the same subscription.
        let remote = try await bob.subscribe(to: "alice")
        try await speak(50, into: mic, virtual)
        try await video.value
        #expect(try await room.packetsForwarded(subscriber: "bob", publisher: "alice").video > 0)
        #expect(try await remote.stats().framesDecoded > 0)
        #expect(try await track.stats().framesDecoded >= 90)
        await track.stopConsuming()
        await virtual.close()
    }
}
