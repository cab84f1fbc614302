import MediaCodecs

/// A microphone track (LiveKit's `LocalAudioTrack`, VideoSDK's `createMicrophoneAudioTrack`):
/// push 20 ms frames of 48 kHz PCM from the capture callback; the engine encodes them with Opus
/// (RFC 7587), marks each packet with its RFC 6464 level (the room's active-speaker detection
/// reads it) and sends them in order. Up to `queuedFrameLimit` frames wait for the engine; older
/// ones are dropped and counted. `Sendable`: push from any thread.
public final class LocalAudioTrack: Sendable {
    public let id: String
    /// Frames waiting longer than this many 20 ms intervals are dropped (a stalled engine does
    /// not build up latency).
    public static let queuedFrameLimit = 10
    let participantId: String
    let roomId: String
    let loop: any EngineScheduler
    let feed = TrackFeed<AudioFrame>(capacity: LocalAudioTrack.queuedFrameLimit)
    private let state = TrackState(kind: "microphone")

    init(participantId: String, roomId: String, loop: any EngineScheduler) {
        id = "mic-\(participantId)"
        self.participantId = participantId
        self.roomId = roomId
        self.loop = loop
        feed.onPut = { [loop] in loop.wake() }  // a pushed frame leaves at once, even after idle
    }

    /// Hands one 20 ms frame (960 samples per channel) to the engine.
    public func push(_ frame: AudioFrame) throws(EngineError) {
        guard !state.isClosed else { throw .closed("microphone track \(id)") }
        guard frame.samplesPerChannel == AudioFrame.samplesPerChannel20ms, frame.samples.count % frame.channels.count == 0 else {
            throw .invalidFrame("\(frame.samples.count) samples for \(frame.channels.count) channel(s): expected "
                + "\(AudioFrame.samplesPerChannel20ms) per channel (20 ms at 48 kHz)")
        }
        feed.put(frame)
    }

    /// Pushes 20 ms of interleaved 16-bit PCM at 48 kHz.
    public func push(pcm samples: [Int16], channels: Int) throws(EngineError) {
        guard let layout = AudioFrame.Channels(rawValue: channels) else {
            throw .invalidFrame("\(channels) channels: expected 1 or 2")
        }
        try push(AudioFrame(channels: layout, samples: samples))
    }

    /// Plays `source` (20 ms frames) instead of pushed ones, one frame every 20 ms once the track
    /// is published. Returns when the source ends; throws `.closed` if the track or engine closes
    /// first, `.invalidFrame` if the source fails.
    public func play(from source: sending any AudioFrameSource) async throws(EngineError) {
        try await state.play(source, on: feed, trackId: id)
    }

    /// Frames pushed, and of those dropped (queued too long, or pushed before publishing).
    public var framesPushed: Int { feed.counts.pushed }
    public var framesDropped: Int { feed.counts.dropped }
    /// Frames the engine took from sources played into the track (`play(from:)`).
    public var framesPlayed: Int { feed.counts.played }

    /// Mutes the mic: silence is sent instead of what is pushed (the room sees no speech, and
    /// adaptive subscriptions pause a muted participant's video first, docs/adaptive-subscriptions.md).
    public func setMuted(_ muted: Bool) async throws(EngineError) {
        let (roomId, participantId) = (roomId, participantId)
        guard state.isPublished else { throw .notAllowed("mute a published microphone") }
        try await loop.perform { runtime throws(EngineError) in
            guard let room = runtime.rooms[roomId] else { throw .closed("room \(roomId)") }
            try room.setMicrophoneMuted(muted, participant: participantId)
        }
    }

    /// Stops the track: later pushes throw `.closed`, a playing source stops. Idempotent.
    public func close() {
        state.close()
        feed.finishSource(.failure(EngineError.closed("microphone track \(id)")))
    }

    func markPublished() throws(EngineError) { try state.publish(id) }
    func markUnpublished() { state.unpublish() }
}
