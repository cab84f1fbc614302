internal import EngineCore
import Simulcast

/// Adaptive subscriptions of a Janus room, run by the engine on the client side (issue 28 item 5,
/// docs/adaptive-subscriptions.md): Janus forwards whatever it was asked for, so the subscriber
/// itself decides which received videos to pause, with the hosted room's
/// `AdaptiveSubscriptionPolicy` (same order, same reasons, same resume hold), and tells Janus
/// through the subscription's `configure` with `streams: [{mid, send: false}]` (resume:
/// `send: true`), which Janus 1.1's VideoRoom applies per subscriber stream.
///
/// The downlink estimate is `JanusDownlinkEstimate`: the receive-side `BandwidthEstimator` (the
/// one behind a hosted viewer's REMB) over everything the connection reads, audio included; the
/// policy budgets audio first (`audioBitsPerSecond` per stream, as the hosted room). A video's
/// need is the default target bitrate (`LayerBitrates`) of the frame size it arrives at: the
/// client does not step a stream down its layers before pausing it.
///
/// Ranking: `speakerRanking` (participant ids, most dominant first; default: the roster's join
/// order), the one seam an active-speaker detector plugs into. Evaluated at most every
/// `intervalMilliseconds` from the room's pass; it sets no timer of its own (the received
/// streams' report deadlines bring the passes while anything is received). Loop-confined.
final class JanusAdaptiveSubscriptions {
    /// What one received audio stream is budgeted at (`RoomNode`'s default).
    static let audioBitsPerSecond = 40_000
    /// Least time between two evaluations (`RoomNode.adaptiveIntervalMilliseconds`).
    static let intervalMilliseconds: Int64 = 100

    private var policy: AdaptiveSubscriptionPolicy
    /// Participant ids, most dominant first.
    var speakerRanking: () -> [String] = { [] }
    /// Publisher keys (participant id, or `RoomNode.screenShareKey`) the app pinned: paused last.
    private(set) var pinned: Set<String> = []
    /// Subscriber mids the app disabled (`.disabled` preference): not received, not budgeted.
    private var disabledByApp: Set<String> = []
    private var downlink = JanusDownlinkEstimate()
    private var lastEvaluation: Int64?
    /// The downlink estimate of the last evaluation (bits per second; nil before any video arrived).
    private(set) var estimatedBitsPerSecond: Int?

    init(configuration: AdaptiveSubscriptionPolicy.Configuration = .init()) {
        policy = AdaptiveSubscriptionPolicy(configuration: configuration)
    }

    /// The key a received video is known by in the policy (as in the hosted room).
    static func key(of stream: JanusReceivedStream) -> String {
        stream.kind == .screenShare ? RoomNode.screenShareKey(of: stream.publisherId) : stream.publisherId
    }

    /// Whether adaptive subscriptions paused the video known by `key`.
    func isPaused(_ key: String) -> Bool { policy.isPaused(key) }

    /// Keys of the paused videos, sorted.
    var pausedKeys: [String] { policy.paused.keys.sorted() }

    func setPinned(_ pinned: Bool, key: String) {
        if pinned { self.pinned.insert(key) } else { self.pinned.remove(key) }
    }

    func setDisabledByApp(_ disabled: Bool, mid: String) {
        if disabled { disabledByApp.insert(mid) } else { disabledByApp.remove(mid) }
    }

    /// The subscriber connection's path came back after an outage (`.reconnected`): what Janus sent
    /// into the dead path shows as a sequence gap on every stream, which is the outage's, not the
    /// link's loss, so for `JanusDownlinkEstimate.resumeGraceMilliseconds` it is not counted (as
    /// after a resume). The room evaluates nothing while reconnecting.
    func pathCameBack(mids: [String], nowMilliseconds now: Int64) {
        for mid in mids { downlink.resumed(mid: mid, nowMilliseconds: now) }
    }

    /// Whether an evaluation is due at `now`: at most one every `intervalMilliseconds` (the room's
    /// pass asks before it gathers the streams, so a pass between evaluations costs nothing).
    func isDue(nowMilliseconds now: Int64) -> Bool {
        guard let last = lastEvaluation else { return true }
        return now - last >= Self.intervalMilliseconds || now < last
    }

    /// One evaluation over what the subscriber connection receives now. Returns the `configure`
    /// settings that carry out the policy's pauses and resumes, and its events in order.
    func evaluate(streams: [JanusReceivedStream], bytesReceived: Int64, roster: JanusRoomRoster,
                  nowMilliseconds now: Int64) -> (settings: [JanusVideoRoomRequest.StreamSetting], events: [AdaptiveSubscriptionEvent]) {
        guard isDue(nowMilliseconds: now) else { return ([], []) }
        downlink.observe(bytesReceived: bytesReceived, streams: streams.map(JanusDownlinkEstimate.counts), nowMilliseconds: now)
        guard let available = downlink.bitsPerSecond else { return ([], []) }
        lastEvaluation = now
        estimatedBitsPerSecond = available
        var video: [AdaptiveVideoStream] = []
        var audio: [AdaptiveAudioStream] = []
        var mids: [String: String] = [:]
        let ranking = speakerRanking()
        for stream in streams.sorted(by: { $0.mid < $1.mid }) {
            if stream.kind == .microphone {
                audio.append(AdaptiveAudioStream(participantId: stream.publisherId, requiredBitsPerSecond: Self.audioBitsPerSecond))
                continue
            }
            guard !disabledByApp.contains(stream.mid) else { continue }
            let key = Self.key(of: stream)
            let statistics = stream.subscriber.statistics.video
            let muted = roster.participant(id: stream.publisherId)?.tracks.contains { $0.kind == .microphone && $0.muted } ?? false
            video.append(AdaptiveVideoStream(participantId: key, isMuted: muted, isPinned: pinned.contains(key),
                                             dominanceRank: ranking.firstIndex(of: key), requiredBitsPerSecond: Self.need(statistics),
                                             isScreenShare: stream.kind == .screenShare))
            mids[key] = stream.mid
        }
        let decision = policy.update(availableBitsPerSecond: available, video: video, audio: audio, atMilliseconds: now)
        var settings: [JanusVideoRoomRequest.StreamSetting] = []
        for event in decision.events {
            guard let mid = mids[event.participantId] else { continue }
            switch event.kind {
            case .paused:
                settings.append(.init(mid: mid, send: false))
            case .resumed:
                downlink.resumed(mid: mid, nowMilliseconds: now)
                settings.append(.init(mid: mid, send: true))
            }
        }
        return (settings, decision.events)
    }

    /// What a received video needs: the default target bitrate of the frame size it arrives at
    /// (the smallest camera layer, 320x180, before its first frame).
    private static func need(_ statistics: VideoReceiverStatistics) -> Int {
        let width = statistics.frameWidth > 0 ? statistics.frameWidth : 320
        let height = statistics.frameHeight > 0 ? statistics.frameHeight : 180
        return LayerBitrates.defaults(width: width, height: height).targetKbps * 1000
    }
}
