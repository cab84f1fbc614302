import Foundation
import MediaEngine
import MediaEngineTesting
import Testing

/// Microphones through the public API (real time, loopback UDP, SRTP, the engine's thread):
/// the room finds who speaks from the RFC 6464 levels its subscribers receive, a muted mic never
/// takes the stage, sources play every frame at their pace, recordings land on disk, and bad
/// audio input is a typed error.
@Suite(.serialized) struct MicrophoneAndSpeakerTests {
    @Test func theRoomNamesTheSpeakerAndAMutedMicNeverTakesTheStage() async throws {
        let engine = MediaEngine()
        let room = try await engine.hostRoom(options: RoomOptions(autoConsume: false))
        var mics: [LocalAudioTrack] = []
        var cameras: [LocalVideoTrack] = []
        for id in ["alice", "bob"] {
            let participant = try await room.join(participantId: id)
            let camera = try participant.createCameraVideoTrack(encoderConfig: .h360p, multiStream: false)
            let mic = participant.createMicrophoneAudioTrack()
            try await participant.publish(camera)
            try await participant.publish(mic)
            cameras.append(camera)
            mics.append(mic)
        }
        let (aliceMic, bobMic, aliceCam, bobCam) = (mics[0], mics[1], cameras[0], cameras[1])
        try await bobMic.setMuted(true)
        let carol = try await room.join(participantId: "carol")
        let carolEvents = EventLog(carol)
        let remotes = [try await carol.subscribe(to: "alice"), try await carol.subscribe(to: "bob")]
        let aliceFrames = SizeLog(remotes[0])

        // Both "speak" the same tone for 3 s (150 frames); bob's mic is muted, so the room hears
        // only alice. Cameras play 90 frames each.
        let clock = ContinuousClock()
        let started = clock.now
        async let aliceSpeaks: Void = aliceMic.play(from: ToneSource(talkFrames: 50, frames: 150))
        async let bobSpeaks: Void = bobMic.play(from: ToneSource(talkFrames: 50, frames: 150))
        async let aliceCamera: Void = aliceCam.play(from: TestSceneSource(width: 640, height: 360, frames: 90))
        async let bobCamera: Void = bobCam.play(from: TestSceneSource(width: 640, height: 360, frames: 90))
        _ = try await (aliceSpeaks, bobSpeaks, aliceCamera, bobCamera)
        // Paced: 150 frames of 20 ms cannot all have gone out in less than 2.9 s.
        #expect(clock.now - started >= .milliseconds(2_900))
        // Every frame of a source is encoded: none is dropped on the way in.
        #expect(try await aliceCam.stats().framesEncoded == 90)
        #expect(aliceMic.framesDropped == 0)

        let events = carolEvents.all
        let snapshots = events.compactMap { event -> [ActiveSpeaker]? in
            if case let .activeSpeakersChanged(speakers) = event { return speakers }
            return nil
        }
        let dominant = events.compactMap { event -> String?? in
            if case let .dominantSpeakerChanged(id) = event { return id }
            return nil
        }
        #expect(snapshots.contains { $0.first?.participantId == "alice" && $0.first?.trackId == aliceMic.id })
        #expect(snapshots.allSatisfy { !$0.contains { $0.participantId == "bob" } })
        #expect(dominant.first == "alice")
        #expect(!dominant.contains("bob"))
        #expect(aliceFrames.count >= 60)
        await engine.close()
    }

    @Test func aRecordingHoldsWhatArrived() async throws {
        let engine = MediaEngine()
        let room = try await engine.hostRoom()
        let alice = try await room.join(participantId: "alice")
        let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
        try await alice.publish(camera)
        let bob = try await room.join(participantId: "bob")
        let remote = try await bob.subscribe(to: "alice")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("recording-\(getpid()).ivf").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await remote.startRecording(ivfPath: path)
        try await camera.play(from: TestSceneSource(width: 640, height: 360, frames: 30))
        try await remote.stopRecording()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.count > 32 && Array(bytes[0..<4]) == Array("DKIF".utf8))
        #expect(Array(bytes[8..<12]) == Array("VP80".utf8))
        // The frame count (bytes 24-27, little endian): every frame forwarded to bob, at most 30.
        let frames = Int(bytes[24]) | Int(bytes[25]) << 8 | Int(bytes[26]) << 16 | Int(bytes[27]) << 24
        #expect(frames >= 25 && frames <= 30)
        await #expect(throws: EngineError.self) { try await remote.startRecording(ivfPath: "/nonexistent/dir/x.ivf") }
        await engine.close()
    }

    @Test func badAudioInputIsATypedErrorNeverATrap() async throws {
        let engine = MediaEngine()
        let room = try await engine.hostRoom()
        let alice = try await room.join(participantId: "alice")
        let bob = try await room.join(participantId: "bob")
        let mic = alice.createMicrophoneAudioTrack()
        // The camera carries the participant's node: a mic alone is refused, and said why.
        await #expect(throws: EngineError.notPublished(participant: "alice", track: "camera")) { try await alice.publish(mic) }
        await #expect(throws: EngineError.self) { try await mic.setMuted(true) }  // not published
        #expect(throws: EngineError.self) { try mic.push(pcm: [Int16](repeating: 0, count: 100), channels: 1) }
        #expect(throws: EngineError.self) { try mic.push(pcm: [Int16](repeating: 0, count: 960), channels: 3) }
        #expect(throws: EngineError.self) { try mic.push(pcm: [], channels: 1) }
        let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p, multiStream: false)
        try await alice.publish(camera)
        try await alice.publish(mic)
        await #expect(throws: EngineError.alreadyPublished("microphone")) { try await alice.publish(mic) }
        await #expect(throws: EngineError.self) { try await bob.publish(mic) }
        // Pushing faster than the engine takes frames drops the oldest, counted, never grows.
        for _ in 0..<100 { try mic.push(pcm: [Int16](repeating: 1000, count: 960), channels: 1) }
        #expect(mic.framesPushed == 100)
        let remote = try await bob.subscribe(to: "alice")
        try await remote.setPinned(true)
        mic.close()
        mic.close()
        #expect(throws: EngineError.closed("microphone track \(mic.id)")) { try mic.push(pcm: [Int16](repeating: 0, count: 960), channels: 1) }
        await #expect(throws: EngineError.self) { try await mic.play(from: ToneSource(frames: 1)) }
        // A source that fails ends its play with a typed error.
        try await #require(throws: EngineError.self) { try await camera.play(from: FailingSource()) }
        await engine.close()
        await #expect(throws: EngineError.self) { try await remote.setPinned(false) }
    }
}

/// A camera whose second frame cannot be read.
private final class FailingSource: VideoFrameSource {
    private var served = 0
    struct Broken: Error {}

    func nextFrame() throws -> VideoFrame? {
        served += 1
        if served > 1 { throw Broken() }
        return try VideoFrame(packedI420: [UInt8](repeating: 128, count: 64 * 64 * 3 / 2), width: 64, height: 64)
    }
}
