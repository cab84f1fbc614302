import MediaEngine

/// Plays the commands' sources (a scene or Y4M file, a tone or WAV file) into published tracks.
enum SourcePlayback {
    /// Plays the scene and the sound into the published tracks until both end or SIGTERM/SIGINT
    /// (then the participant leaves), handing each of the participant's events to `onEvent` as it
    /// happens. Returns whether a signal stopped it; throws a source's failure, or the first
    /// `.failure` event, unless a signal stopped it.
    static func run(_ participant: LocalParticipant, playing scene: sending (any VideoFrameSource)?, into camera: LocalVideoTrack?,
                    _ sound: sending (any AudioFrameSource)?, into microphone: LocalAudioTrack?,
                    onEvent: (ParticipantEvent) throws -> Void) async throws -> Bool {
        let stop = StopSignals.install()
        let stopWatcher = Task {
            guard await stop.stopped() else { return false }
            await participant.leave()  // the plays end, the peer is told
            return true
        }
        async let playFailure = playToEnd(scene, into: camera, sound, into: microphone, then: participant)
        var backgroundFailure: EngineError?
        var handlerFailure: (any Error)?
        for await event in participant.events {
            if case let .failure(error) = event { backgroundFailure = backgroundFailure ?? error }
            do { try onEvent(event) } catch { handlerFailure = handlerFailure ?? error }
        }
        stop.restore()  // the watcher returns
        let stopped = await stopWatcher.value
        if let failure = await playFailure {
            if case .closed = failure, stopped {} else { throw failure }
        }
        if let handlerFailure { throw handlerFailure }
        if let backgroundFailure, !stopped { throw backgroundFailure }
        return stopped
    }

    /// Plays the scene into the camera and the sound into the microphone at once until both end,
    /// then leaves (an RTCP BYE or the SFU's leave goes out); the first failure, if any.
    private static func playToEnd(_ scene: sending (any VideoFrameSource)?, into camera: LocalVideoTrack?,
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
