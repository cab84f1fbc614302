/// Adaptive subscriptions for one subscriber (docs/adaptive-subscriptions.md): when its bandwidth cannot carry every
/// video it receives, even after each `LayerSelector` has dropped to its lowest rung, whole video
/// streams are paused. Pure state: bandwidth, streams and time (ms) are parameters of `update`.
///
/// Budget: the available bandwidth minus every audio stream's need. Audio is never paused, so
/// with less bandwidth than the audio needs every video is paused and the audio still flows.
///
/// Pause order (`pauseOrder`), first paused first:
/// 1. unpinned muted participants, least dominant first;
/// 2. the other unpinned participants, least dominant first (never heard < rank n < … < rank 0);
/// 3. pinned participants, in the same order among themselves;
/// 4. screen shares last of all (issue 17: a viewer squeezed hard keeps the shared screen after
///    every camera video is gone), in the same order among themselves.
/// Ties by participant id (a screen share's stream id). A stream needing nothing is never paused (it would free nothing).
///
/// Pausing is immediate: whenever the unpaused video needs more than the budget, streams are
/// paused in that order until the rest fits. The reason is `muted` for a muted participant and
/// `leastDominance` otherwise.
///
/// Resuming is the reverse order (the most important paused stream first) with hysteresis: a
/// stream comes back only when the budget covers the unpaused video plus it with
/// `resumeHeadroom` to spare (default 1.15), in every update for `resumeHoldMilliseconds`
/// (default 3 s). Then as many as every update in that period could carry come back at once,
/// and the next resume needs a fresh hold. Any pause restarts the hold. The order is recomputed
/// at each update, so a paused participant that becomes the dominant speaker is the first to
/// come back.
///
/// Promotion while bandwidth stays short: a paused, unmuted participant that is pinned or has
/// become the dominant speaker (rank 0), and does not fit as things are, is swapped in when
/// pausing less important unpaused streams (in pause order) makes room for it within the budget. Those are paused with their
/// usual reasons and it is resumed with an empty reason (docs/adaptive-subscriptions.md allows one): it is neither a
/// network recovery nor a disable. Only these two cases swap, so ordinary rank shuffles among
/// the other speakers never cause pause/resume churn; the dominant speaker itself already has
/// hysteresis (`ActiveSpeakerDetector`).
///
/// Disabling resumes everything paused (reason `adaptiveSubscriptionsDisabled`), most important
/// first; while disabled nothing is paused. Re-enabling acts at the next `update`.
public struct AdaptiveSubscriptionPolicy: Sendable {
    /// Tuning of the resume hysteresis.
    public struct Configuration: Sendable, Hashable {
        /// How long the budget must keep covering a paused stream before it is resumed.
        public var resumeHoldMilliseconds: Int64
        /// Factor by which the budget must exceed what the resumed set would need.
        public var resumeHeadroom: Double

        public init(resumeHoldMilliseconds: Int64 = 3_000, resumeHeadroom: Double = 1.15) {
            self.resumeHoldMilliseconds = max(0, resumeHoldMilliseconds)
            // Below 1 a resume could immediately trigger the next pause.
            self.resumeHeadroom = resumeHeadroom.isFinite ? max(1, resumeHeadroom) : 1
        }
    }

    /// The tuning in use.
    public let configuration: Configuration
    /// Whether adaptive subscriptions are on.
    public private(set) var isEnabled: Bool
    /// Paused participants and why.
    public private(set) var paused: [String: AdaptiveSubscriptionPauseReason] = [:]
    /// The pause order of the last update, used to order resumes when disabling.
    private var lastPauseOrder: [String] = []
    /// Since when every update could resume something, and the fewest streams any could carry.
    private var stableSince: Int64?
    private var resumableCount = 0

    public init(enabled: Bool = true, configuration: Configuration = .init()) {
        isEnabled = enabled
        self.configuration = configuration
    }

    /// Whether `participantId`'s video is paused for this subscriber.
    public func isPaused(_ participantId: String) -> Bool { paused[participantId] != nil }

    /// Turns adaptive subscriptions on or off. Turning them off resumes every paused video.
    public mutating func setEnabled(_ enabled: Bool) -> [AdaptiveSubscriptionEvent] {
        defer { isEnabled = enabled }
        guard isEnabled, !enabled else { return [] }
        let resumeOrder = lastPauseOrder.reversed().filter { paused[$0] != nil }
            + paused.keys.filter { !lastPauseOrder.contains($0) }.sorted()
        paused.removeAll()
        stableSince = nil
        return resumeOrder.map { .resumed($0, .adaptiveSubscriptionsDisabled) }
    }

    /// The order in which video streams are paused (first element first), see the type's notes.
    public static func pauseOrder(_ streams: [AdaptiveVideoStream]) -> [AdaptiveVideoStream] {
        streams.sorted { lhs, rhs in
            if lhs.isScreenShare != rhs.isScreenShare { return !lhs.isScreenShare }
            if lhs.isPinned != rhs.isPinned { return !lhs.isPinned }
            if lhs.isMuted != rhs.isMuted { return lhs.isMuted }
            // Least dominant first: never heard (nil) before any rank, then higher ranks first.
            let l = lhs.dominanceRank ?? .max, r = rhs.dominanceRank ?? .max
            if l != r { return l > r }
            return lhs.participantId < rhs.participantId
        }
    }

    /// Re-evaluates which videos to pause for the subscriber's current bandwidth.
    /// - Parameters:
    ///   - availableBitsPerSecond: the subscriber's estimated downlink bandwidth.
    ///   - video: every video stream it receives (duplicates by participant: the first counts).
    ///   - audio: every audio stream it receives.
    ///   - now: milliseconds on any monotonic clock.
    public mutating func update(availableBitsPerSecond: Int, video: [AdaptiveVideoStream],
                                audio: [AdaptiveAudioStream], atMilliseconds now: Int64) -> AdaptiveSubscriptionDecision {
        var seen = Set<String>()
        let order = Self.pauseOrder(video.filter { seen.insert($0.participantId).inserted })
        lastPauseOrder = order.map(\.participantId)
        // Streams that are gone cannot be resumed or counted.
        paused = paused.filter { seen.contains($0.key) }
        let forwardedAudio = audio.map(\.participantId)
        guard isEnabled else {
            return AdaptiveSubscriptionDecision(pausedVideo: [], forwardedAudio: forwardedAudio, events: [])
        }

        let audioNeed = audio.reduce(0) { $0.addingClamped(max(0, $1.requiredBitsPerSecond)) }
        let budget = availableBitsPerSecond.subtractingClamped(audioNeed)
        // Recomputed (not decremented) after each pause: the sum saturates, so subtracting from a
        // saturated total would undercount what is left.
        func unpausedNeed() -> Int {
            order.filter { paused[$0.participantId] == nil }.reduce(0) { $0.addingClamped(max(0, $1.requiredBitsPerSecond)) }
        }
        var need = unpausedNeed()
        var events: [AdaptiveSubscriptionEvent] = []

        if need > budget {
            for stream in order where need > budget && paused[stream.participantId] == nil && stream.requiredBitsPerSecond > 0 {
                let reason: AdaptiveSubscriptionPauseReason = stream.isMuted ? .muted : .leastDominance
                paused[stream.participantId] = reason
                need = unpausedNeed()
                events.append(.paused(stream.participantId, reason))
            }
            stableSince = nil
        } else {
            events = resumeIfStable(order: order, need: need, budget: budget, now: now)
            if events.isEmpty { events = promote(order: order, budget: budget) }
        }
        return AdaptiveSubscriptionDecision(pausedVideo: order.map(\.participantId).filter { paused[$0] != nil },
                                            forwardedAudio: forwardedAudio, events: events)
    }

    /// Swaps the most important paused pinned or dominant participant in for less important
    /// unpaused ones, if that fits the budget (see the type's notes).
    private mutating func promote(order: [AdaptiveVideoStream], budget: Int) -> [AdaptiveSubscriptionEvent] {
        guard let promotedIndex = order.indices.reversed().first(where: { index in
            let stream = order[index]
            return paused[stream.participantId] != nil && !stream.isMuted
                && (stream.isPinned || stream.dominanceRank == 0)
        }) else { return [] }
        let promoted = order[promotedIndex]
        var victims: [AdaptiveVideoStream] = []
        var victimIds: Set<String> = []
        // What stays unpaused plus the promoted stream, recomputed (the sums saturate).
        func fits() -> Bool {
            order.filter { paused[$0.participantId] == nil && !victimIds.contains($0.participantId) }
                .reduce(max(0, promoted.requiredBitsPerSecond)) { $0.addingClamped(max(0, $1.requiredBitsPerSecond)) }
                <= budget
        }
        // Fitting without a swap is the ordinary resume's job (with its hold and headroom).
        guard !fits() else { return [] }
        for stream in order[..<promotedIndex] where !fits() {
            guard paused[stream.participantId] == nil, stream.requiredBitsPerSecond > 0 else { continue }
            victims.append(stream)
            victimIds.insert(stream.participantId)
        }
        guard fits() else { return [] }
        var events: [AdaptiveSubscriptionEvent] = victims.map { victim in
            let reason: AdaptiveSubscriptionPauseReason = victim.isMuted ? .muted : .leastDominance
            paused[victim.participantId] = reason
            return .paused(victim.participantId, reason)
        }
        paused[promoted.participantId] = nil
        events.append(.resumed(promoted.participantId, nil))
        stableSince = nil
        return events
    }

    private mutating func resumeIfStable(order: [AdaptiveVideoStream], need: Int, budget: Int,
                                         now: Int64) -> [AdaptiveSubscriptionEvent] {
        let resumeOrder = order.reversed().filter { paused[$0.participantId] != nil }
        // How many of the resume order, taken in order, fit with headroom right now.
        var fitting = 0
        var total = need
        for stream in resumeOrder {
            total = total.addingClamped(max(0, stream.requiredBitsPerSecond))
            guard Double(total) * configuration.resumeHeadroom <= Double(budget) else { break }
            fitting += 1
        }
        guard fitting > 0 else {
            stableSince = nil
            return []
        }
        if let since = stableSince {
            resumableCount = min(resumableCount, fitting)
            guard elapsedMilliseconds(from: since, to: now) >= configuration.resumeHoldMilliseconds else { return [] }
        } else {
            stableSince = now
            resumableCount = fitting
            guard configuration.resumeHoldMilliseconds == 0 else { return [] }
        }
        stableSince = nil
        return resumeOrder.prefix(resumableCount).map { stream in
            paused[stream.participantId] = nil
            return .resumed(stream.participantId, .networkStable)
        }
    }
}

extension Int {
    /// Sum that saturates instead of trapping (bitrates come from outside).
    fileprivate func addingClamped(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// Difference that saturates instead of trapping.
    fileprivate func subtractingClamped(_ other: Int) -> Int {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other > 0 ? .min : .max) : difference
    }
}
