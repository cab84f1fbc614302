import RTPWire
import Simulcast
import SessionCore

/// Why a `RoomNode` refused a request.
public enum RoomError: Error, Equatable, Sendable {
    case unknownPublisher(String)
    case unknownSubscriber(String)
}

/// A small in-process SFU room (docs/adaptive-subscriptions.md): several publishers, several subscribers, with adaptive
/// subscriptions and on-demand receiving per subscriber.
///
///     publisher A ─► ForwardingNode A (TrackForwarder for A's video, A's audio as is) ─► feeds of A
///     publisher B ─► ForwardingNode B ...                                             ─► feeds of B
///
/// Nodes are keyed by a publisher key: the participant's id for its camera (and the mic beside
/// it), `screenShareKey(of:)` for its screen share (issue 17: a node of its own, with its own
/// layers, feeds and adaptive pause, paused after every camera).
///
/// Each published participant has its own `ForwardingNode` (its own transport, one `TrackForwarder`
/// for its video track, its mic audio forwarded as is with the RFC 6464 level). A subscriber
/// receives each participant it gets on a *feed*: a downstream of that participant's node under
/// the subscriber's id (one subscription per published participant, as Janus does it), with its
/// own destination, keys and SSRC; feeds of one subscriber may share one `ForwardingLink`
/// (a shared downlink).
///
/// Per subscriber:
/// - `ConsumptionRegistry`: with `autoConsume: false` nothing of a participant is forwarded until
///   the subscriber consumes its mic and/or camera; stopping affects that subscriber only.
/// - `AdaptiveSubscriptionPolicy`: at each `service()` (at most every `adaptiveIntervalMilliseconds`)
///   the subscriber's bandwidth estimate is compared with what its consumed videos need at their
///   lowest layer plus its consumed audio; whole videos are paused in the policy's order and
///   resumed with its hysteresis. A paused video forwards nothing to that subscriber; resuming
///   waits for a key frame (requested). Audio is never paused.
///
/// The bandwidth estimate of a subscriber comes from its feeds' estimates
/// (`ForwardingNode.estimatedBitsPerSecond(for:)`: with downlink estimation the node's own GCC
/// estimate from that feed's transport-wide feedback, capped by its REMB; otherwise each feed's
/// REMB, capped by the ceiling the loss in that feed's receiver reports sets, so a squeezed link
/// that delivers almost nothing lowers it even when the receiver's own estimator sees no packets
/// to measure): the sum over the
/// feeds whose camera it consumes, except that a feed paused by adaptive subscriptions keeps
/// counting the estimate it had when it was paused, or any larger one since (its share of the
/// link does not vanish with its video; otherwise every pause would lower the estimate and
/// cascade into the next). Before any REMB or report: no estimate, no adaptation. These estimates
/// measure video only (REMBs count video packets, the loss ceiling follows the video stream), so
/// the consumed audio's budget is added to the sum before the policy takes it off again.
/// `setEstimatedBandwidth` overrides it with a whole-downlink value.
///
/// Not `Sendable`; drive it from one thread like the nodes it owns. Time is the injected clock.
public final class RoomNode {
    /// A pause or resume for one subscriber, with when it happened (room clock, ms).
    public struct AdaptiveEventRecord: Sendable, Equatable {
        public var subscriberId: String
        public var atMilliseconds: Int64
        public var event: AdaptiveSubscriptionEvent
    }

    /// One node per published participant.
    public private(set) var nodes: [String: ForwardingNode] = [:]
    /// Publishers in the order they were added.
    public private(set) var publisherIds: [String] = []
    /// The latest pauses/resumes, in order (the oldest are forgotten past
    /// `adaptiveEventCapacity`; `onAdaptiveEvent` sees every one). Drain or clear as you like.
    public var adaptiveEvents = EventRing<AdaptiveEventRecord>(capacity: RoomNode.adaptiveEventCapacity)
    /// How many adaptive events are kept.
    public static let adaptiveEventCapacity = 256
    /// Called with each pause/resume as it happens.
    public var onAdaptiveEvent: ((AdaptiveEventRecord) -> Void)?
    /// Bits per second counted for each consumed audio stream (never paused, budgeted first).
    public var audioBitsPerSecond: Int
    /// Least time between two adaptive evaluations of one subscriber.
    public var adaptiveIntervalMilliseconds: Int64 = 100

    private struct Participant {
        var adaptive: AdaptiveSubscriptionPolicy
        var pinned: Set<String> = []
        var bandwidthOverride: Int?
        /// Estimate of each paused feed at the moment it was paused.
        var frozenEstimate: [String: Int] = [:]
        var lastEvaluation: Int64?
    }

    private let clock: MediaClock
    private let adaptiveConfiguration: AdaptiveSubscriptionPolicy.Configuration
    private var consumption = ConsumptionRegistry()
    private var participants: [String: Participant] = [:]
    private var muted: Set<String> = []
    private var ranking: [String] = []
    /// Lowest-layer need of each publisher's video, bits per second.
    private var lowestVideoNeed: [String: Int] = [:]

    /// - Parameters:
    ///   - audioBitsPerSecond: what one audio stream is budgeted at (Opus at 32 kbps plus headers).
    ///   - adaptive: the resume hysteresis of every subscriber's policy.
    ///   - clock: monotonic microseconds, shared with the nodes.
    public init(audioBitsPerSecond: Int = 40_000, adaptive: AdaptiveSubscriptionPolicy.Configuration = .init(),
                clock: MediaClock = .system) {
        self.audioBitsPerSecond = max(0, audioBitsPerSecond)
        adaptiveConfiguration = adaptive
        self.clock = clock
    }

    private var nowMilliseconds: Int64 { clock.monotonicMicroseconds() / 1000 }

    // MARK: - Publishers

    /// What ends the publisher key of a participant's screen share (room participant ids must not).
    public static let screenShareKeySuffix = "/screen"

    /// The publisher key of `participantId`'s screen share.
    public static func screenShareKey(of participantId: String) -> String { participantId + screenShareKeySuffix }

    /// The participant whose screen share `key` is, nil when it is not a screen-share key.
    public static func screenShareOwner(_ key: String) -> String? {
        key.hasSuffix(screenShareKeySuffix) ? String(key.dropLast(screenShareKeySuffix.count)) : nil
    }

    /// Adds a published participant: a node for its video track (and its audio if
    /// `configuration.audioSSRC` is set) on `transport` (nil: a new loopback UDP socket).
    @discardableResult
    public func addPublisher(_ participantId: String, configuration: ForwardingNodeConfiguration,
                             transport: (any DatagramTransport)? = nil) throws -> ForwardingNode {
        let node = try ForwardingNode(configuration: configuration, transport: transport, clock: clock)
        if nodes[participantId] == nil { publisherIds.append(participantId) }
        nodes[participantId] = node
        let selector = LayerSelector(plan: configuration.plan, configuration: configuration.selector)
        lowestVideoNeed[participantId] = selector.requiredBitsPerSecond(LayerTarget(spatial: 0, temporal: 0))
        return node
    }

    /// The node of one published participant.
    public func node(for participantId: String) -> ForwardingNode? { nodes[participantId] }

    // MARK: - Subscribers

    /// Registers a subscribing participant. `autoConsume == false`: it receives nothing until it
    /// consumes. `adaptiveSubscriptions`: whether its videos may be paused for bandwidth.
    public func addSubscriber(_ id: String, autoConsume: Bool = true, adaptiveSubscriptions: Bool = true) {
        consumption.addSubscriber(id, autoConsume: autoConsume)
        participants[id] = Participant(adaptive: AdaptiveSubscriptionPolicy(enabled: adaptiveSubscriptions,
                                                                            configuration: adaptiveConfiguration))
    }

    /// Adds the feed on which subscriber `feed.id` receives `publisherId` (the downstream of that
    /// publisher's node). The subscriber must be registered first.
    public func addFeed(publisher publisherId: String, _ feed: ForwardedSubscriberConfiguration,
                        link: (any ForwardingLink)? = nil) throws {
        guard let node = nodes[publisherId] else { throw RoomError.unknownPublisher(publisherId) }
        guard participants[feed.id] != nil else { throw RoomError.unknownSubscriber(feed.id) }
        try node.addSubscriber(feed, link: link)
        applyGates(feed.id)
    }

    /// The subscriber consumes `kinds` of `participantId` (on-demand receiving).
    public func consume(subscriber id: String, participant participantId: String,
                        _ kinds: Set<ConsumableTrackKind> = Set(ConsumableTrackKind.allCases)) {
        guard consumption.consume(subscriber: id, participant: participantId, kinds) else { return }
        applyGates(id)
    }

    /// The subscriber stops consuming `kinds` of `participantId`; nobody else is affected.
    public func stopConsuming(subscriber id: String, participant participantId: String,
                              _ kinds: Set<ConsumableTrackKind> = Set(ConsumableTrackKind.allCases)) {
        guard consumption.stopConsuming(subscriber: id, participant: participantId, kinds) else { return }
        applyGates(id)
    }

    /// Pins (or unpins) `participantId` for subscriber `id`: paused last.
    public func setPinned(_ pinned: Bool, participant participantId: String, for id: String) {
        if pinned { participants[id]?.pinned.insert(participantId) } else { participants[id]?.pinned.remove(participantId) }
    }

    /// Whether `participantId`'s mic is muted (from signalling): such videos are paused first.
    public func setMuted(_ isMuted: Bool, participant participantId: String) {
        if isMuted { muted.insert(participantId) } else { muted.remove(participantId) }
    }

    /// The dominance ranking (`ActiveSpeakerFeed.dominanceRanking()`), most dominant first.
    public func setDominanceRanking(_ ranking: [String]) { self.ranking = ranking }

    /// Turns adaptive subscriptions on or off for one subscriber; off resumes everything paused.
    public func setAdaptiveSubscriptions(enabled: Bool, for id: String) {
        guard var participant = participants[id] else { return }
        let events = participant.adaptive.setEnabled(enabled)
        if !enabled { participant.frozenEstimate.removeAll() }
        participants[id] = participant
        record(events, for: id)
        applyGates(id)
    }

    /// Whether adaptive subscriptions are on for `id` (nil: unknown subscriber).
    public func adaptiveSubscriptionsEnabled(for id: String) -> Bool? { participants[id]?.adaptive.isEnabled }

    /// Overrides the feed-derived estimate of `id` (nil: back to the feeds' estimates).
    public func setEstimatedBandwidth(_ bitsPerSecond: Int?, for id: String) {
        participants[id]?.bandwidthOverride = bitsPerSecond
    }

    /// Participants whose video is paused for `id` by adaptive subscriptions, sorted.
    public func pausedVideos(for id: String) -> [String] {
        guard let participant = participants[id] else { return [] }
        return publisherIds.filter { participant.adaptive.isPaused($0) }.sorted()
    }

    /// The bandwidth estimate adaptive subscriptions use for `id`, nil before any feed has one.
    public func estimatedBandwidth(for id: String) -> Int? {
        guard let participant = participants[id] else { return nil }
        if let override = participant.bandwidthOverride { return override }
        var sum = 0, counted = false
        for publisherId in publisherIds where consumption.shouldForward(.camera, from: publisherId, to: id) {
            let latest = latestEstimate(of: publisherId, for: id)
            guard let value = participant.frozenEstimate[publisherId].map({ max($0, latest ?? 0) }) ?? latest else { continue }
            counted = true
            sum = sum.addingReportingOverflow(value).overflow ? .max : sum + value
        }
        return counted ? sum : nil
    }

    /// The lowest-layer need of a publisher's video (what adaptive subscriptions budget for it).
    public func lowestVideoBitsPerSecond(of publisherId: String) -> Int? { lowestVideoNeed[publisherId] }

    private func latestEstimate(of publisherId: String, for id: String) -> Int? {
        nodes[publisherId]?.estimatedBitsPerSecond(for: id)
    }

    // MARK: - Driving

    /// Polls every node's transport once (the first waits up to `timeoutMilliseconds`).
    @discardableResult
    public func poll(timeoutMilliseconds: Int32) throws(NetworkError) -> Int {
        var handled = 0
        for (index, publisherId) in publisherIds.enumerated() {
            guard let node = nodes[publisherId] else { continue }
            handled += try node.poll(timeoutMilliseconds: index == 0 ? timeoutMilliseconds : 0)
        }
        return handled
    }

    /// Services every node, then re-evaluates adaptive subscriptions where due.
    public func service() {
        for publisherId in publisherIds { nodes[publisherId]?.service() }
        let now = nowMilliseconds
        for id in participants.keys.sorted() { evaluate(id, now: now) }
    }

    private func evaluate(_ id: String, now: Int64) {
        guard var participant = participants[id] else { return }
        if let last = participant.lastEvaluation, now - last < adaptiveIntervalMilliseconds, now >= last { return }
        guard let bandwidth = estimatedBandwidth(for: id) else { return }
        participant.lastEvaluation = now
        var video: [AdaptiveVideoStream] = []
        var audio: [AdaptiveAudioStream] = []
        for publisherId in publisherIds where publisherId != id {
            guard let node = nodes[publisherId], node.counters(for: id) != nil else { continue }
            if consumption.shouldForward(.camera, from: publisherId, to: id) {
                video.append(AdaptiveVideoStream(
                    participantId: publisherId, isMuted: muted.contains(publisherId),
                    isPinned: participant.pinned.contains(publisherId), dominanceRank: ranking.firstIndex(of: publisherId),
                    requiredBitsPerSecond: lowestVideoNeed[publisherId] ?? 0,
                    isScreenShare: node.configuration.plan.content == .screen))
            }
            if node.configuration.audioSSRC != nil, consumption.shouldForward(.microphone, from: publisherId, to: id) {
                audio.append(AdaptiveAudioStream(participantId: publisherId, requiredBitsPerSecond: audioBitsPerSecond))
            }
        }
        // The feeds' estimates measure video only (a subscriber's estimator counts its video packets),
        // so the audio it consumes is added back before the policy budgets audio first; an
        // override is the whole downlink.
        let available = participant.bandwidthOverride != nil ? bandwidth
            : audio.reduce(bandwidth) { $0.addingReportingOverflow($1.requiredBitsPerSecond).overflow ? .max : $0 + $1.requiredBitsPerSecond }
        let decision = participant.adaptive.update(availableBitsPerSecond: available, video: video, audio: audio,
                                                   atMilliseconds: now)
        for event in decision.events {
            switch event.kind {
            case .paused: participant.frozenEstimate[event.participantId] = latestEstimate(of: event.participantId, for: id)
            case .resumed: participant.frozenEstimate[event.participantId] = nil
            }
        }
        participants[id] = participant
        record(decision.events, for: id)
        if !decision.events.isEmpty { applyGates(id) }
    }

    private func record(_ events: [AdaptiveSubscriptionEvent], for id: String) {
        let now = nowMilliseconds
        for event in events {
            let record = AdaptiveEventRecord(subscriberId: id, atMilliseconds: now, event: event)
            adaptiveEvents.append(record)
            onAdaptiveEvent?(record)
        }
    }

    /// Makes every feed of `id` forward what consumption and adaptive subscriptions allow.
    private func applyGates(_ id: String) {
        guard let participant = participants[id] else { return }
        for publisherId in publisherIds {
            guard let node = nodes[publisherId], node.counters(for: id) != nil else { continue }
            let video = consumption.shouldForward(.camera, from: publisherId, to: id) && !participant.adaptive.isPaused(publisherId)
            let audio = consumption.shouldForward(.microphone, from: publisherId, to: id)
            if node.isForwardingVideo(to: id) != video { try? node.setVideoForwarding(video, for: id) }
            if node.isForwardingAudio(to: id) != audio { try? node.setAudioForwarding(audio, for: id) }
        }
    }
}
