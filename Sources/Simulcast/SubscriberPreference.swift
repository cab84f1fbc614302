/// A width x height in pixels, as used by viewports and manual incoming-video target sizes.
public struct VideoSize: Sendable, Hashable, Codable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// What a subscriber asked for on a video track (docs/receiving.md): a coarse quality, or the size of
/// the view it renders into. `setQuality` and `setViewPort` set this same value.
public enum LayerPreference: Sendable, Hashable {
    /// `setQuality(.high | .medium | .low)`.
    case quality(VideoQuality)
    /// `setViewPort(width, height)`: the smallest layer covering the view.
    case viewPort(VideoSize)
}

/// A group of senders an incoming-video setting applies to (docs/receiving.md).
public enum ParticipantGroup: Sendable, Hashable {
    /// Every participant.
    case all
    /// The participants with these ids.
    case participants(Set<String>)

    /// Whether the participant `id` belongs to this group.
    public func contains(_ id: String) -> Bool {
        switch self {
        case .all: return true
        case .participants(let ids): return ids.contains(id)
        }
    }
}

/// A subscriber's incoming-video setting for a group of senders (docs/receiving.md).
public enum IncomingVideoSetting: Sendable, Hashable {
    /// Automatic: each track follows its own `setQuality` / `setViewPort` preference.
    /// Applying `.none` clears every earlier group setting.
    case none
    /// The group's video is chosen as if `setViewPort(targetSize)` had been called.
    case manual(ParticipantGroup, targetSize: VideoSize)
    /// No video at all from the group.
    case disabled(ParticipantGroup)
}

/// The preference that actually applies to one publisher's video, after incoming-video
/// settings are taken into account.
public enum EffectivePreference: Sendable, Hashable {
    /// Choose by quality (docs/receiving.md `setQuality`).
    case quality(VideoQuality)
    /// Choose the smallest layer covering this size (`setViewPort` or `.manual`).
    case viewPort(VideoSize)
    /// No video for this publisher (`IncomingVideoSetting.disabled`).
    case disabled
}

/// One subscriber's video preferences (docs/receiving.md), pure state with no clock.
///
/// - `setQuality` and `setViewPort` write the same stored preference, so the last call wins.
///   The default is `.quality(.high)`.
/// - Incoming-video settings are rules per group of senders. For each publisher the newest
///   rule whose group contains it decides (so the last call wins here too); a rule for `.all`
///   replaces every earlier rule, and `.none` clears them all.
/// - Resolution for a publisher: the newest matching rule if any (`.manual` → viewport of its
///   target size, `.disabled` → no video), otherwise the stored quality/viewport preference.
///   Group rules are deliberately stronger than `setViewPort`: layouts call `setViewPort`
///   automatically on every resize, and that must not undo a user's manual/disabled choice.
public struct SubscriberPreference: Sendable, Equatable {
    /// The value last set by `setQuality` or `setViewPort`.
    public private(set) var preference: LayerPreference
    /// Group rules, oldest first. Bounded: a rule fully shadowed by a newer `.all` rule is removed.
    public private(set) var incomingVideoRules: [IncomingVideoSetting] = []

    public init(preference: LayerPreference = .quality(.high)) {
        self.preference = preference
    }

    /// `setQuality`: replaces any earlier quality or viewport preference.
    public mutating func setQuality(_ quality: VideoQuality) {
        preference = .quality(quality)
    }

    /// `setViewPort`: replaces any earlier quality or viewport preference. Negative sizes are
    /// treated as zero (any layer covers them, so the lowest is chosen).
    public mutating func setViewPort(width: Int, height: Int) {
        preference = .viewPort(VideoSize(width: max(0, width), height: max(0, height)))
    }

    /// Applies an incoming-video setting for a group of senders.
    public mutating func setIncomingVideo(_ setting: IncomingVideoSetting) {
        switch setting {
        case .none:
            incomingVideoRules.removeAll()
        case .manual(.all, _), .disabled(.all):
            // A rule for everyone shadows every older rule.
            incomingVideoRules = [setting]
        case .manual(.participants(let ids), _), .disabled(.participants(let ids)):
            // Drop older per-id rules that this one fully shadows, so the list stays bounded
            // by the number of distinct groups in use.
            incomingVideoRules.removeAll { rule in
                switch rule {
                case .manual(.participants(let old), _), .disabled(.participants(let old)):
                    return old.isSubset(of: ids)
                default: return false
                }
            }
            incomingVideoRules.append(setting)
        }
    }

    /// The preference that applies to video from the participant `publisherId`.
    public func effectivePreference(forPublisher publisherId: String) -> EffectivePreference {
        for rule in incomingVideoRules.reversed() {
            switch rule {
            case .none:
                continue
            case .manual(let group, let size) where group.contains(publisherId):
                return .viewPort(VideoSize(width: max(0, size.width), height: max(0, size.height)))
            case .disabled(let group) where group.contains(publisherId):
                return .disabled
            default:
                continue
            }
        }
        switch preference {
        case .quality(let quality): return .quality(quality)
        case .viewPort(let size): return .viewPort(size)
        }
    }
}
