internal import EngineCore
import MediaCodecs
import Simulcast

/// What a room is to the engine's loop, whether the engine hosts it (`RoomRuntime`) or joins one
/// elsewhere (`JanusRoomRuntime`): participants join and leave, cameras and screen shares publish,
/// subscriptions are made, timers run. Loop-confined.
///
/// Receiving calls name a video by its publisher key: the publisher's participant id for its
/// camera, `RoomNode.screenShareKey(of:)` for its screen share.
protocol RoomBackend: AnyObject {
    /// `keyProvider`: the participant's own E2EE keys (only a hosted room with E2EE takes them).
    func join(_ participantId: String, events: AsyncStream<ParticipantEvent>.Continuation, keyProvider: E2EEKeyProvider?,
              runtime: EngineRuntime) throws(EngineError)
    func leave(_ participantId: String)
    /// Publishes the camera; `completion` runs once it is published or failed: at once, or (a
    /// room joined elsewhere, connecting on the `SignallingWorker`) from a later loop job.
    func startPublishingCamera(_ participantId: String, trackId: String, settings: CameraSettings, feed: TrackFeed<VideoFrame>,
                               runtime: EngineRuntime, completion: @escaping LoopCompletion<Void>)
    /// Issue 17: the participant's screen share, beside its camera.
    func publishScreenShare(_ participantId: String, trackId: String, settings: CameraSettings, feed: TrackFeed<VideoFrame>,
                            runtime: EngineRuntime) throws(EngineError)
    func publishMicrophone(_ participantId: String, trackId: String, feed: TrackFeed<AudioFrame>,
                           runtime: EngineRuntime) throws(EngineError)
    func setMicrophoneMuted(_ muted: Bool, participant participantId: String) throws(EngineError)
    /// The publisher of the video under publisher key `key` (for the quality cap).
    func videoPublisher(of key: String) throws(EngineError) -> Publisher
    /// How the video under publisher key `key` reaches the room now (nil: not confirmed yet).
    func videoTransportProtocol(of key: String) throws(EngineError) -> TransportProtocol?
    /// The ICE candidate pair carrying the video under publisher key `key` (nil: no ICE, or none selected).
    func videoCandidatePair(of key: String) throws(EngineError) -> SelectedCandidatePair?
    /// Subscribes; `completion` runs with the subscription as `startPublishingCamera`'s does.
    func startSubscribing(_ subscriberId: String, to publisherId: String, runtime: EngineRuntime,
                          completion: @escaping LoopCompletion<SubscriptionRuntime>)
    func setPreference(_ preference: EffectivePreference, subscriber subscriberId: String, publisher publisherId: String) throws(EngineError)
    /// docs/joining-a-room.md: the screen share of `publisherId` at `quality` for `subscriberId`.
    func setScreenShareQuality(_ quality: VideoQuality, subscriber subscriberId: String,
                               publisher publisherId: String) throws(EngineError) -> ScreenShareQualityChange
    func setPinned(_ pinned: Bool, subscriber subscriberId: String, publisher publisherId: String) throws(EngineError)
    func stats(subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) -> RemoteVideoStats
    func startRecording(subscriber subscriberId: String, publisher publisherId: String, path: String) throws(EngineError)
    func stopRecording(subscriber subscriberId: String, publisher publisherId: String) throws(EngineError)
    /// Issue 28: `subscriberId` consumes `publisherId`'s microphone (played out at the room's
    /// deadlines); `completion` runs as `startSubscribing`'s does.
    func startConsumingMicrophone(_ subscriberId: String, of publisherId: String, runtime: EngineRuntime,
                                  completion: @escaping LoopCompletion<RemoteAudioRuntime>)
    /// Stops consuming `publisherId`'s `kind` (nothing more of it is sent to `subscriberId`, its
    /// app stream finishes); nothing to do when it is not consumed.
    func stopConsuming(_ kind: PublishedTrackKind, subscriber subscriberId: String, publisher publisherId: String)
    func microphoneStats(subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) -> RemoteAudioStats
    func tick(runtime: EngineRuntime)
    func close()

    /// Appends the sockets the loop waits on for this backend (`poll`); false when it cannot
    /// list them all, and the loop then ticks it every `RoomBackendCadence.unlistedSocketsMicroseconds`.
    func appendReadinessDescriptors(to descriptors: inout [Int32]) -> Bool
    /// When the backend next needs a tick though no socket of it became readable (monotonic µs;
    /// `Int64.max`: not until a job or a pushed frame wakes the loop).
    func nextDeadline(now: Int64) -> Int64
}

/// A backend that publishes and subscribes within the call (a hosted room, a plain RTP output).
protocol ImmediateRoomBackend: RoomBackend {
    func publishCamera(_ participantId: String, trackId: String, settings: CameraSettings, feed: TrackFeed<VideoFrame>,
                       runtime: EngineRuntime) throws(EngineError)
    func subscribe(_ subscriberId: String, to publisherId: String, runtime: EngineRuntime) throws(EngineError) -> SubscriptionRuntime
}

extension ImmediateRoomBackend {
    func startPublishingCamera(_ participantId: String, trackId: String, settings: CameraSettings, feed: TrackFeed<VideoFrame>,
                               runtime: EngineRuntime, completion: @escaping LoopCompletion<Void>) {
        completion(Result { () throws(EngineError) in
            try publishCamera(participantId, trackId: trackId, settings: settings, feed: feed, runtime: runtime)
        })
    }

    func startSubscribing(_ subscriberId: String, to publisherId: String, runtime: EngineRuntime,
                          completion: @escaping LoopCompletion<SubscriptionRuntime>) {
        completion(Result { () throws(EngineError) in try subscribe(subscriberId, to: publisherId, runtime: runtime) })
    }
}

/// The few fixed intervals left in a backend's schedule. Every timer of the endpoints (pacing,
/// NACK retries, jitter-buffer release, key-frame requests, RTCP reports, transport feedback,
/// probing, frame cadence, speaker and quality updates) sets its own exact deadline
/// (`RoomBackend.nextDeadline`); these only bound it.
enum RoomBackendCadence {
    /// A backend that cannot list all its sockets for `poll` is passed at least this often, so
    /// what arrives on an unlisted one waits no longer.
    static let unlistedSocketsMicroseconds: Int64 = 2_000
    /// An unpaced plain RTP output with a source playing sends its next frame this long after
    /// the last, so a receiver keeps up.
    static let unpacedFrameGapMicroseconds: Int64 = 2_000
    /// The safety net: a backend's next deadline is never further away than this, for what sets
    /// no deadline of its own and changes off the loop (E2EE key changes: the key provider does
    /// not signal the loop) or inside a transport (UDP checks until a path is confirmed, ICE
    /// consent). Four passes a second per room: idle stays far below 20 wake-ups a second.
    static let idleMicroseconds: Int64 = 250_000
}

extension RoomBackend {
    /// Default: rooms the engine joins elsewhere (Janus over ICE, plain RTP) send over UDP.
    func videoTransportProtocol(of key: String) throws(EngineError) -> TransportProtocol? { .udp }
    /// Default: no ICE candidate pair (hosted rooms and plain RTP run no ICE of their own).
    func videoCandidatePair(of key: String) throws(EngineError) -> SelectedCandidatePair? { nil }
}

extension RoomRuntime: ImmediateRoomBackend {
    func videoPublisher(of key: String) throws(EngineError) -> Publisher { try publishedVideo(key).publisher }
    func videoTransportProtocol(of key: String) throws(EngineError) -> TransportProtocol? {
        try publishedVideo(key).path.transportProtocol
    }
}
