/// The kinds of a participant's media a subscriber can consume on demand (docs/adaptive-subscriptions.md).
public enum ConsumableTrackKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// The participant's microphone audio.
    case microphone
    /// The participant's webcam video.
    case camera
}

/// What one subscriber receives of each participant (docs/adaptive-subscriptions.md on-demand receiving).
///
/// - `autoConsume == true` (the default): everything of every participant is forwarded.
///   `stopConsuming` still works as an explicit opt-out, and `consume` undoes it.
/// - `autoConsume == false`: nothing of a participant is forwarded until the subscriber
///   consumes its microphone and/or camera; `stopConsuming` stops it again.
///
/// The state belongs to this subscriber alone: stopping here never mutes the sender or changes
/// what any other subscriber receives (`ConsumptionRegistry` keeps one policy per subscriber).
public struct ConsumptionPolicy: Sendable, Hashable {
    /// Whether media is forwarded without an explicit `consume`.
    public let autoConsume: Bool
    /// Explicit choices that differ from `autoConsume`, per participant and kind.
    private var overrides: [String: Set<ConsumableTrackKind>] = [:]

    public init(autoConsume: Bool = true) {
        self.autoConsume = autoConsume
    }

    /// Starts forwarding the given kinds of `participantId`'s media (default: microphone and camera).
    public mutating func consume(_ participantId: String, _ kinds: Set<ConsumableTrackKind> = Set(ConsumableTrackKind.allCases)) {
        set(participantId, kinds, consuming: true)
    }

    /// Stops forwarding the given kinds of `participantId`'s media to this subscriber only.
    public mutating func stopConsuming(_ participantId: String,
                                       _ kinds: Set<ConsumableTrackKind> = Set(ConsumableTrackKind.allCases)) {
        set(participantId, kinds, consuming: false)
    }

    /// Whether media of `kind` from `participantId` is forwarded to this subscriber.
    public func isConsuming(_ kind: ConsumableTrackKind, of participantId: String) -> Bool {
        let overridden = overrides[participantId]?.contains(kind) ?? false
        return overridden ? !autoConsume : autoConsume
    }

    /// The participant left the room: forget the choices about it, so a participant rejoining
    /// under the same id starts from `autoConsume` again.
    public mutating func participantLeft(_ participantId: String) {
        overrides[participantId] = nil
    }

    private mutating func set(_ participantId: String, _ kinds: Set<ConsumableTrackKind>, consuming: Bool) {
        var kindsOverridden = overrides[participantId] ?? []
        if consuming == autoConsume {
            kindsOverridden.subtract(kinds)
        } else {
            kindsOverridden.formUnion(kinds)
        }
        overrides[participantId] = kindsOverridden.isEmpty ? nil : kindsOverridden
    }
}
