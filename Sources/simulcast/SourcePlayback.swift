import MediaEngine

/// Plays the commands' sources (a scene or Y4M file, a tone or WAV file) into published tracks.
enum SourcePlayback {
    /// Plays the scene into the camera and the sound into the microphone at once until both end,
    /// then leaves (an RTCP BYE or the SFU's leave goes out); the first failure, if any.
    static func playToEnd(_ scene: sending (any VideoFrameSource)?, into camera: LocalVideoTrack?,
                          _ sound: sending (any AudioFrameSource)?, into microphone: LocalAudioTrack?,
                          then participant: LocalParticipant) async -> EngineError? {
        async let videoFailure = play(scene, into: camera)
        async let audioFailure = play(sound, into: microphone)
        let failures = await (videoFailure, audioFailure)
        await participant.leave()
        return failures.0 ?? failures.1
    }

    /// Plays `source` into `track` until it ends; its failure, if any.
    private static func play(_ source: sending (any VideoFrameSource)?, into track: LocalVideoTrack?) async -> EngineError? {
        guard let source, let track else { return nil }
        do throws(EngineError) { try await track.play(from: source) } catch { return error }
        return nil
    }

    private static func play(_ source: sending (any AudioFrameSource)?, into track: LocalAudioTrack?) async -> EngineError? {
        guard let source, let track else { return nil }
        do throws(EngineError) { try await track.play(from: source) } catch { return error }
        return nil
    }
}
