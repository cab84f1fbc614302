import MediaEngine
import MediaEngineTesting
import Testing

/// `play(from:)` is structured concurrency: cancelling the task that plays stops the source at
/// once with `EngineError.cancelled`, and the track takes the next source as if nothing happened.
@Suite struct PlayCancellationTests {
    @Test(.timeLimit(.minutes(1))) func cancellingThePlayingTaskStopsAnEndlessSource() async throws {
        let engine = MediaEngine()
        let output = try await engine.sendPlainRTP(PlainRTPOptions(videoDestination: "127.0.0.1:9", audioDestination: "127.0.0.1:9",
                                                                   security: .insecure, pacing: .unpaced))
        let participant = output.participant
        let camera = try participant.createCameraVideoTrack(encoderConfig: .h360p)
        try await participant.publish(camera)
        let microphone = participant.createMicrophoneAudioTrack()
        try await participant.publish(microphone)

        let endlessVideo = Task { try await camera.play(from: TestSceneSource(width: 640, height: 360)) }
        let endlessAudio = Task { try await microphone.play(from: ToneSource()) }
        try await Task.sleep(for: .milliseconds(200))
        endlessVideo.cancel()
        endlessAudio.cancel()
        await #expect(throws: EngineError.cancelled("playing into camera track \(camera.id)")) { try await endlessVideo.value }
        await #expect(throws: EngineError.cancelled("playing into microphone track \(microphone.id)")) { try await endlessAudio.value }

        // A task cancelled before it plays does not attach anything that outlives it.
        let neverPlayed = Task { try await camera.play(from: TestSceneSource(width: 640, height: 360)) }
        neverPlayed.cancel()
        await #expect(throws: EngineError.self) { try await neverPlayed.value }

        // The track still plays: every frame of a finite source goes out.
        let before = try await output.statistics().videoFramesSent
        try await camera.play(from: TestSceneSource(width: 640, height: 360, frames: 5))
        #expect(try await output.statistics().videoFramesSent == before + 5)
        await engine.close()
    }
}
