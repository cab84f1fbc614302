/// The state of a participant's connection to the room.
public enum ConnectionState: Sendable, Hashable {
    case connecting
    case connected
    case disconnected
}

/// A spatial/temporal layer switch of one received video (docs/receiving.md).
public struct LayerSwitch: Sendable, Hashable, CustomStringConvertible {
    /// Whose video.
    public var publisherId: String
    /// Forwarded before (nil: nothing) and from now on (nil: video stopped).
    public var from: LayerTarget?
    public var to: LayerTarget?
    public var reason: LayerChangeReason
    /// From the decision to the first forwarded frame of the new layer.
    public var latencyMilliseconds: Int64
    /// Which of the publisher's videos switched: its camera or its screen share.
    public var source: VideoContent = .camera

    public var description: String {
        "\(publisherId)\(source == .screen ? "'s screen share" : "") \(from.map { "\($0)" } ?? "none") → \(to.map { "\($0)" } ?? "none") (\(reason), \(latencyMilliseconds) ms)"
    }
}

/// dynaCast (docs/sending-caps.md) or a receiver's REMB paused or resumed layers of this participant's
/// camera (or screen share, `source`): what the room's subscribers want (or the REMB allows), what the encoder sends now,
/// and what changed.
public struct PublishedLayersChange: Sendable, Hashable, CustomStringConvertible {
    public var wanted: [Int]
    public var sending: [Int]
    public var paused: [Int]
    public var resumed: [Int]
    /// The REMB bitrate that caused the change (a plain RTP output's receiver); nil for dynaCast.
    public var rembBitsPerSecond: UInt64? = nil
    /// Which of the participant's videos: its camera or its screen share.
    public var source: VideoContent = .camera

    public var description: String {
        "sending \(sending) (wanted \(wanted), paused \(paused), resumed \(resumed))"
            + (rembBitsPerSecond.map { ", REMB \($0) bps" } ?? "")
    }
}

/// Everything that happens to one participant, on its `events` stream, in order.
public enum ParticipantEvent: Sendable, Hashable, CustomStringConvertible {
    case connectionStateChanged(ConnectionState)
    /// A received video switched layers.
    case layerSwitched(LayerSwitch)
    /// The participant's overall connection quality level changed (docs/quality-and-speakers.md), with the MOS.
    case qualityChanged(previous: ConnectionQualityLevel, current: ConnectionQualityLevel, mos: Double)
    /// Adaptive subscriptions paused or resumed a received video (docs/adaptive-subscriptions.md).
    case subscriptionPaused(publisherId: String, reason: AdaptiveSubscriptionPauseReason)
    case subscriptionResumed(publisherId: String, reason: AdaptiveSubscriptionResumeReason?)
    /// Adaptive subscriptions paused or resumed a received screen share (issue 17: only after
    /// every camera video of this participant's was paused).
    case screenShareSubscriptionPaused(publisherId: String, reason: AdaptiveSubscriptionPauseReason)
    case screenShareSubscriptionResumed(publisherId: String, reason: AdaptiveSubscriptionResumeReason?)
    /// Someone asked this participant's camera for a key frame (PLI/FIR), and it was made.
    case keyFrameRequested(trackId: String)
    /// A received video was subscribed.
    case trackSubscribed(publisherId: String, trackId: String)
    /// The room's speakers, loudest first (docs/quality-and-speakers.md; empty when everyone fell silent), from the
    /// RFC 6464 levels of the published microphones.
    case activeSpeakersChanged([ActiveSpeaker])
    /// The participant holding the stage changed (nil: nobody).
    case dominantSpeakerChanged(String?)
    /// dynaCast (or a plain RTP receiver's REMB) paused or resumed layers of this participant's
    /// camera or screen share.
    case publishedLayersChanged(PublishedLayersChange)
    /// A camera was published into an SFU the engine joined (a Janus VideoRoom): its feed id
    /// (what subscribers name) and what it accepted.
    case publishedToSFU(SFUPublication)
    /// Something went wrong in the background (e.g. a frame that could not be encoded).
    case failure(EngineError)
    /// With E2EE: whether `publisherId`'s frames open for this participant changed (counts in
    /// `RemoteVideoStats.framesUndecryptable`).
    case e2eeStateChanged(publisherId: String, state: E2EEState)
    /// With `PreferredProtocol.udpOverTCP`: UDP did not get through, the connection moved to TCP.
    case protocolSwitched(ProtocolSwitch)
    /// The room model (SPEC §8, docs/room-model.md): another participant is in the room. On
    /// joining, every participant already there is reported (with its tracks) before `roomJoined`.
    case participantJoined(RemoteParticipant)
    /// This participant is in the room: everyone already there was reported just before.
    case roomJoined
    /// Another participant left (its tracks were reported unpublished just before).
    case participantLeft(participantId: String)
    /// Another participant published a track, or stopped publishing it.
    case trackPublished(participantId: String, track: PublishedTrack)
    case trackUnpublished(participantId: String, track: PublishedTrack)
    /// Another participant muted or unmuted a track (`track.muted` is the new state).
    case trackMuteChanged(participantId: String, track: PublishedTrack)
    /// This participant started (or stopped) receiving another participant's stream.
    case streamEnabled(participantId: String, kind: PublishedTrackKind)
    case streamDisabled(participantId: String, kind: PublishedTrackKind)
    /// The room's path to the server fell silent (nothing, media or STUN, arrived on a peer
    /// connection for 2.5 s although consent checks were sent: issue 29, RFC 7675): the room is
    /// reconnecting; calls that need the server fail with `EngineError.reconnecting` meanwhile.
    case reconnecting(ReconnectingPath)
    /// Traffic came back on every peer connection after `.reconnecting`, `afterMilliseconds`
    /// after the silence was reported; a key frame was asked for on every received video.
    case reconnected(afterMilliseconds: Int64)

    public var description: String {
        switch self {
        case let .connectionStateChanged(state): return "connection \(state)"
        case let .layerSwitched(change): return "layer switched: \(change)"
        case let .qualityChanged(previous, current, mos): return "quality \(previous) → \(current) (MOS \((mos * 100).rounded() / 100))"
        case let .subscriptionPaused(publisherId, reason): return "paused \(publisherId)'s video (\(reason.rawValue))"
        case let .subscriptionResumed(publisherId, reason): return "resumed \(publisherId)'s video (\(reason?.rawValue ?? "-"))"
        case let .screenShareSubscriptionPaused(publisherId, reason): return "paused \(publisherId)'s screen share (\(reason.rawValue))"
        case let .screenShareSubscriptionResumed(publisherId, reason):
            return "resumed \(publisherId)'s screen share (\(reason?.rawValue ?? "-"))"
        case let .keyFrameRequested(trackId): return "key frame requested on \(trackId)"
        case let .trackSubscribed(publisherId, trackId): return "subscribed \(publisherId)'s \(trackId)"
        case let .activeSpeakersChanged(speakers):
            return "speakers [\(speakers.map { "\($0.participantId) \((($0.level * 100).rounded() / 100))" }.joined(separator: ", "))]"
        case let .dominantSpeakerChanged(id): return "dominant speaker \(id ?? "nobody")"
        case let .publishedLayersChanged(change): return "\(change.source == .screen ? "screen share" : "camera") layers \(change)"
        case let .publishedToSFU(publication): return "published to the SFU: \(publication)"
        case let .failure(error): return "failure: \(error)"
        case let .e2eeStateChanged(publisherId, state): return "\(publisherId)'s frames: E2EE \(state)"
        case let .protocolSwitched(change): return "protocol switched: \(change)"
        case let .participantJoined(participant): return "participant joined: \(participant)"
        case .roomJoined: return "room joined"
        case let .participantLeft(participantId): return "participant left: \(participantId)"
        case let .trackPublished(participantId, track): return "\(participantId) published \(track)"
        case let .trackUnpublished(participantId, track): return "\(participantId) unpublished \(track)"
        case let .trackMuteChanged(participantId, track): return "\(participantId)'s \(track.kind.rawValue) \(track.muted ? "muted" : "unmuted")"
        case let .streamEnabled(participantId, kind): return "receiving \(participantId)'s \(kind.rawValue)"
        case let .streamDisabled(participantId, kind): return "stopped receiving \(participantId)'s \(kind.rawValue)"
        case let .reconnecting(path): return "reconnecting (\(path.rawValue) path silent)"
        case let .reconnected(after): return "reconnected after \(after) ms"
        }
    }
}
