/// A received audio track, identified by its publisher and its track id.
public struct SpeakerTrackKey: Sendable, Hashable, Codable, Comparable {
    /// The publishing participant.
    public var participantId: String
    /// The participant's audio track.
    public var trackId: String

    public init(participantId: String, trackId: String) {
        self.participantId = participantId
        self.trackId = trackId
    }

    public static func < (lhs: SpeakerTrackKey, rhs: SpeakerTrackKey) -> Bool {
        (lhs.participantId, lhs.trackId) < (rhs.participantId, rhs.trackId)
    }
}

/// One entry of an active-speaker snapshot (docs/quality-and-speakers.md).
public struct ActiveSpeaker: Sendable, Hashable, Codable {
    /// The speaking participant.
    public var participantId: String
    /// The audio track the level was measured on.
    public var trackId: String
    /// Smoothed linear level 0...1 (`10^(−dBov/20)` averaged over a short window).
    public var level: Double

    public init(participantId: String, trackId: String, level: Double) {
        self.participantId = participantId
        self.trackId = trackId
        self.level = level
    }

    /// The track this entry is about.
    public var key: SpeakerTrackKey { SpeakerTrackKey(participantId: participantId, trackId: trackId) }
}

/// The dominant speaker moved from one participant to another (or to/from nobody).
public struct DominantSpeakerChange: Sendable, Hashable, Codable {
    /// The participant who held the stage; nil at the start.
    public var previous: String?
    /// The participant who holds it now; nil when the previous one left.
    public var current: String?

    public init(previous: String?, current: String?) {
        self.previous = previous
        self.current = current
    }
}

/// What one `ActiveSpeakerDetector.evaluate` produced.
public struct ActiveSpeakerUpdate: Sendable, Hashable {
    /// The full snapshot, sorted by level descending, when it changed since the last one
    /// emitted; an empty array (not nil) when the last speaker fell silent.
    public var snapshot: [ActiveSpeaker]?
    /// Non-nil when the dominant speaker changed.
    public var dominantSpeakerChange: DominantSpeakerChange?

    public init(snapshot: [ActiveSpeaker]?, dominantSpeakerChange: DominantSpeakerChange?) {
        self.snapshot = snapshot
        self.dominantSpeakerChange = dominantSpeakerChange
    }
}
