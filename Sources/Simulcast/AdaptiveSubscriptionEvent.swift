/// Why adaptive subscriptions paused a participant's video (docs/adaptive-subscriptions.md).
public enum AdaptiveSubscriptionPauseReason: String, Sendable, Hashable, Codable {
    /// The participant's microphone is muted, so it was among the first to go.
    case muted
    /// It was the least dominant speaker left (pinned participants included, once they are all
    /// that is left).
    case leastDominance
}

/// Why adaptive subscriptions resumed a participant's video (docs/adaptive-subscriptions.md).
public enum AdaptiveSubscriptionResumeReason: String, Sendable, Hashable, Codable {
    /// Adaptive subscriptions were turned off: everything they paused comes back.
    case adaptiveSubscriptionsDisabled
    /// Bandwidth recovered and stayed recovered for the hold time.
    case networkStable
}

/// One pause or resume of one participant's video for one subscriber (docs/adaptive-subscriptions.md).
public struct AdaptiveSubscriptionEvent: Sendable, Hashable, Codable {
    /// Paused or resumed, with the reason (docs/adaptive-subscriptions.md: "a reason may be empty").
    public enum Kind: Sendable, Hashable, Codable {
        case paused(AdaptiveSubscriptionPauseReason)
        /// nil: resumed because it was promoted (pinned or now the dominant speaker), see
        /// `AdaptiveSubscriptionPolicy`.
        case resumed(AdaptiveSubscriptionResumeReason?)
    }

    /// The publisher whose video is paused or resumed.
    public var participantId: String
    /// What happened.
    public var kind: Kind

    public init(participantId: String, kind: Kind) {
        self.participantId = participantId
        self.kind = kind
    }

    /// A pause.
    public static func paused(_ participantId: String, _ reason: AdaptiveSubscriptionPauseReason) -> Self {
        Self(participantId: participantId, kind: .paused(reason))
    }

    /// A resume.
    public static func resumed(_ participantId: String, _ reason: AdaptiveSubscriptionResumeReason?) -> Self {
        Self(participantId: participantId, kind: .resumed(reason))
    }
}

/// A video stream a subscriber receives, as adaptive subscriptions see it.
public struct AdaptiveVideoStream: Sendable, Hashable {
    /// The publisher.
    public var participantId: String
    /// Whether the publisher's microphone is muted.
    public var isMuted: Bool
    /// Whether the subscriber pinned this participant (paused last).
    public var isPinned: Bool
    /// Position in `ActiveSpeakerDetector.dominanceRanking` (0 = most dominant); nil when the
    /// participant has never been heard, which ranks below everyone.
    public var dominanceRank: Int?
    /// What the stream needs at its current layer, already the lowest acceptable one
    /// (`LayerSelector.requiredBitsPerSecond`), in bits per second.
    public var requiredBitsPerSecond: Int
    /// Whether this is a screen share (issue 17): paused after every camera, pinned ones too.
    public var isScreenShare: Bool

    public init(participantId: String, isMuted: Bool = false, isPinned: Bool = false, dominanceRank: Int?,
                requiredBitsPerSecond: Int, isScreenShare: Bool = false) {
        self.participantId = participantId
        self.isMuted = isMuted
        self.isPinned = isPinned
        self.dominanceRank = dominanceRank
        self.requiredBitsPerSecond = requiredBitsPerSecond
        self.isScreenShare = isScreenShare
    }
}

/// An audio stream a subscriber receives: it is never paused, but it uses bandwidth first.
public struct AdaptiveAudioStream: Sendable, Hashable {
    /// The publisher.
    public var participantId: String
    /// What the stream needs, in bits per second.
    public var requiredBitsPerSecond: Int

    public init(participantId: String, requiredBitsPerSecond: Int) {
        self.participantId = participantId
        self.requiredBitsPerSecond = requiredBitsPerSecond
    }
}

/// The outcome of one `AdaptiveSubscriptionPolicy.update`.
public struct AdaptiveSubscriptionDecision: Sendable, Hashable {
    /// Participants whose video is paused now, in the order they were (or would be) paused.
    public var pausedVideo: [String]
    /// Every audio stream passed in: audio is always forwarded.
    public var forwardedAudio: [String]
    /// What changed in this update, in the order it happened.
    public var events: [AdaptiveSubscriptionEvent]

    public init(pausedVideo: [String], forwardedAudio: [String], events: [AdaptiveSubscriptionEvent]) {
        self.pausedVideo = pausedVideo
        self.forwardedAudio = forwardedAudio
        self.events = events
    }
}
