import Foundation
import MediaEngine
import MediaEngineTesting
import Testing

/// Microphones through the public API in real time (loopback UDP, SRTP, the engine's thread):
/// bad audio input is a typed error and a failing source ends its play with one. Speakers and
/// recordings in a room are `VirtualTimeSpeakerTests`.
@Suite(.serialized) struct MicrophoneAndSpeakerTests {
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
