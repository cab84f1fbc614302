internal import EngineCore
internal import RTPWire
internal import SessionCore
import Simulcast

/// A Janus room's active-speaker detection (docs/quality-and-speakers.md), run by the engine on
/// the client side as the hosted room runs it on its node: the RFC 6464 level (RFC 6464 §3,
/// `urn:ietf:params:rtp-hdrext:ssrc-audio-level`, which Janus's VideoRoom forwards to a subscriber
/// whose answer accepts it) of every packet of every consumed remote microphone
/// (`Subscriber.onAudioLevel` of the stream's endpoint on the room's one subscriber peer
/// connection), and the local participant's own level, measured from each 20 ms frame its
/// microphone sends, go into one `ActiveSpeakerFeed`. The feed is evaluated every 100 ms only
/// while levels arrive or someone still speaks (`nextEvaluationDue`), so a room with no audio
/// flowing arms no timer. Loop-confined.
final class JanusRoomSpeakers {
    let feed: ActiveSpeakerFeed
    private let clock: MediaClock
    /// The SSRCs mapped for each received stream (by subscriber mid), unmapped when it ends.
    private var mappedSSRCs: [String: Set<UInt32>] = [:]
    private var owners: [UInt32: SpeakerTrackKey] = [:]
    /// The stream (subscriber mid) whose levels count for each track: a whole-feed subscription
    /// and a per-mid one can both bring a publisher's microphone, and a frame counts once.
    private var sources: [SpeakerTrackKey: String] = [:]

    /// `clock`: the engine's (the subscriber endpoints stamp arrivals with the system clock,
    /// which is the engine's in a Janus room).
    init(clock: MediaClock) {
        self.clock = clock
        feed = ActiveSpeakerFeed(historyLimit: 1, clock: clock)
    }

    /// Listens to the levels of `stream` (a microphone; other kinds carry none): each packet's
    /// level counts for `stream.publisherId`, its track named by the publisher's mid.
    func attach(_ stream: JanusReceivedStream) {
        guard stream.kind == .microphone else { return }
        let key = SpeakerTrackKey(participantId: stream.publisherId, trackId: Self.trackId(of: stream))
        let mid = stream.mid
        stream.subscriber.onAudioLevel = { [weak self] level in self?.observe(level, key: key, mid: mid) }
    }

    /// `stream` ended (unsubscribed, unpublished, its publisher left): its track is forgotten.
    func detach(_ stream: JanusReceivedStream) {
        stream.subscriber.onAudioLevel = nil
        for (key, mid) in sources where mid == stream.mid { sources[key] = nil }
        for ssrc in mappedSSRCs.removeValue(forKey: stream.mid) ?? [] {
            owners[ssrc] = nil
            feed.unmap(ssrc: ssrc)
        }
    }

    /// The participant left the room: it leaves the snapshot and, if it held the stage, the
    /// next evaluation reports the dominant speaker moving on.
    func removeParticipant(_ participantId: String) {
        for (ssrc, key) in owners where key.participantId == participantId { owners[ssrc] = nil }
        for key in sources.keys where key.participantId == participantId { sources[key] = nil }
        feed.removeParticipant(participantId)
    }

    /// One 20 ms frame of the local participant's microphone, as sent (silence while muted),
    /// measured as its RFC 6464 level (`AudioLevel(measuring:)`, what the packet carries).
    func observeLocal(_ level: AudioLevel, participantId: String, trackId: String, ssrc: UInt32) {
        let key = SpeakerTrackKey(participantId: participantId, trackId: trackId)
        map(ssrc, to: key)
        feed.observe(ReceivedAudioLevel(ssrc: ssrc, sequenceNumber: 0, level: level,
                                        arrivalMicroseconds: clock.monotonicMicroseconds()))
    }

    /// Participants from most to least dominant now (`ActiveSpeakerDetector.dominanceRanking`):
    /// what the room's adaptive subscriptions pause last.
    func dominanceRanking() -> [String] { feed.dominanceRanking() }

    /// When `serviceIfDue()` has something to evaluate; nil while no audio flows and nobody speaks.
    var nextEvaluationDue: Int64? { feed.nextEvaluationDue }

    /// Evaluates if 100 ms passed since the last evaluation: the events to tell, in order.
    func serviceIfDue() -> [ParticipantEvent] {
        guard let update = feed.serviceIfDue() else { return [] }
        var told: [ParticipantEvent] = []
        if let snapshot = update.snapshot { told.append(.activeSpeakersChanged(snapshot)) }
        if let change = update.dominantSpeakerChange { told.append(.dominantSpeakerChanged(change.current)) }
        return told
    }

    private func observe(_ level: ReceivedAudioLevel, key: SpeakerTrackKey, mid: String) {
        guard let source = sources[key] else {
            sources[key] = mid
            return observe(level, key: key, mid: mid)
        }
        guard source == mid else { return }
        if owners[level.ssrc] != key {
            map(level.ssrc, to: key)
            mappedSSRCs[mid, default: []].insert(level.ssrc)
        }
        feed.observe(level)
    }

    private func map(_ ssrc: UInt32, to key: SpeakerTrackKey) {
        guard owners[ssrc] != key else { return }
        owners[ssrc] = key
        feed.map(ssrc: ssrc, participantId: key.participantId, trackId: key.trackId)
    }

    /// A remote microphone's track id: the publisher's mid of it (Janus's `mid` in the feed's
    /// streams), else the subscriber's.
    static func trackId(of stream: JanusReceivedStream) -> String { "microphone-\(stream.feedMid ?? stream.mid)" }
}
