/// Who is in a Janus VideoRoom and what each publishes, kept from the room's events
/// (`JanusVideoRoomEvent`), and the changes in the order the room model reports them (SPEC §8):
/// on `joined`, every participant already there (with their tracks) before the room itself
/// counts as joined; later, arrivals, tracks coming and going, and departures.
///
/// Participant ids and names come from each publisher's `display` (`JanusDisplayName`); a
/// stream is a camera, a screen share (its description is `screenShareDescription`) or a
/// microphone. Our own feed is not listed. Pure bookkeeping: no I/O, no clock.
public struct JanusRoomRoster: Sendable {
    /// What a participant publishes.
    public enum TrackKind: Sendable, Hashable { case microphone, camera, screenShare }

    /// One published track: which of the publisher's mids carries it.
    public struct Track: Sendable, Hashable {
        public var kind: TrackKind
        public var mid: String
        /// Janus lists the stream as disabled (the sender stopped it without unpublishing).
        public var muted: Bool
    }

    /// One participant as the room knows it.
    public struct Participant: Sendable, Equatable {
        public var id: String
        public var name: String
        public var feed: Int
        public var tracks: [Track]
    }

    /// A change, in the order the room reports it.
    public enum Change: Sendable, Equatable {
        case participantJoined(Participant)
        /// We are in: every participant already there was reported just before.
        case roomJoined(ourFeed: Int)
        case trackPublished(participantId: String, Track)
        case trackUnpublished(participantId: String, Track)
        case trackMuted(participantId: String, Track)
        case participantLeft(participantId: String, reason: String?)
        /// The room is gone (destroyed): everyone left.
        case roomClosed
    }

    /// The description our engine gives a screen-share stream when it publishes one.
    public static let screenShareDescription = "screen"

    /// Our own feed id once joined.
    public private(set) var ourFeed: Int?
    private var participantsByFeed: [Int: Participant] = [:]
    /// Feeds in the order they were first reported.
    private var order: [Int] = []

    public init() {}

    /// Everyone in the room but us, in the order they were reported.
    public var participants: [Participant] { order.compactMap { participantsByFeed[$0] } }

    public func participant(feed: Int) -> Participant? { participantsByFeed[feed] }

    public func participant(id: String) -> Participant? { participantsByFeed.values.first { $0.id == id } }

    /// Applies one event; returns what changed (empty for events that change no one).
    public mutating func apply(_ event: JanusVideoRoomEvent) -> [Change] {
        var changes: [Change] = []
        switch event {
        case let .joined(_, id, _, publishers, attendees):
            ourFeed = id
            for attendee in attendees where attendee.id != id { changes += arrive(feed: attendee.id, display: attendee.display, streams: []) }
            for publisher in publishers where publisher.id != id && !publisher.dummy {
                changes += arrive(feed: publisher.id, display: publisher.display, streams: publisher.streams)
            }
            changes.append(.roomJoined(ourFeed: id))
        case let .publishers(_, publishers):
            for publisher in publishers where publisher.id != ourFeed && !publisher.dummy {
                changes += arrive(feed: publisher.id, display: publisher.display, streams: publisher.streams)
            }
        case let .joining(_, attendee) where attendee.id != ourFeed:
            changes += arrive(feed: attendee.id, display: attendee.display, streams: [])
        case let .unpublished(_, feed):
            guard var participant = participantsByFeed[feed] else { break }
            changes += participant.tracks.map { .trackUnpublished(participantId: participant.id, $0) }
            participant.tracks = []
            participantsByFeed[feed] = participant
        case let .leaving(_, feed, reason):
            changes += depart(feed: feed, reason: reason)
        case .destroyed:
            for feed in order { changes += depart(feed: feed, reason: "room destroyed") }
            changes.append(.roomClosed)
        default:
            break
        }
        return changes
    }

    // MARK: - Private

    /// A participant reported (new, or an update of its streams): joined first if new, then its
    /// tracks' changes.
    private mutating func arrive(feed: Int, display: String?, streams: [JanusPublisherEntry.Stream]) -> [Change] {
        let tracks = Self.tracks(of: streams)
        if participantsByFeed[feed] == nil {
            let name = JanusDisplayName(display: display, feedID: feed)
            if let moved = participantsByFeed.values.first(where: { $0.id == name.participantId })?.feed {
                // The same participant on a handle of its own (its presence, then its publisher):
                // one participant, now at the new feed; the old feed's `leaving` is then no one's.
                rekey(from: moved, to: feed)
            } else {
                let participant = Participant(id: name.participantId, name: name.name, feed: feed, tracks: tracks)
                participantsByFeed[feed] = participant
                order.append(feed)
                return [.participantJoined(participant)]
            }
        }
        guard var participant = participantsByFeed[feed] else { return [] }
        var changes: [Change] = []
        for old in participant.tracks where !tracks.contains(where: { $0.mid == old.mid && $0.kind == old.kind }) {
            changes.append(.trackUnpublished(participantId: participant.id, old))
        }
        for new in tracks {
            if let old = participant.tracks.first(where: { $0.mid == new.mid && $0.kind == new.kind }) {
                if old.muted != new.muted { changes.append(.trackMuted(participantId: participant.id, new)) }
            } else {
                changes.append(.trackPublished(participantId: participant.id, new))
            }
        }
        participant.tracks = tracks
        participantsByFeed[feed] = participant
        return changes
    }

    private mutating func rekey(from old: Int, to new: Int) {
        guard var participant = participantsByFeed.removeValue(forKey: old) else { return }
        participant.feed = new
        participantsByFeed[new] = participant
        order = order.map { $0 == old ? new : $0 }
    }

    private mutating func depart(feed: Int, reason: String?) -> [Change] {
        guard let participant = participantsByFeed.removeValue(forKey: feed) else { return [] }
        order.removeAll { $0 == feed }
        return participant.tracks.map { .trackUnpublished(participantId: participant.id, $0) }
            + [.participantLeft(participantId: participant.id, reason: reason)]
    }

    /// The tracks of a publisher's streams. A disabled video stream after the first is a stopped
    /// screen share (its m-line taken out by a renegotiation; Janus lists it disabled and without
    /// its description): no track. Only the first video stream can be a muted camera.
    static func tracks(of streams: [JanusPublisherEntry.Stream]) -> [Track] {
        let firstVideo = streams.first { $0.kind == .video }?.mid
        return streams.compactMap { stream in
            if stream.kind == .video, stream.disabled, stream.mid != firstVideo { return nil }
            return track(stream)
        }
    }

    private static func track(_ stream: JanusPublisherEntry.Stream) -> Track? {
        switch stream.kind {
        case .audio: return Track(kind: .microphone, mid: stream.mid, muted: stream.disabled)
        case .video:
            let kind: TrackKind = stream.description == screenShareDescription ? .screenShare : .camera
            return Track(kind: kind, mid: stream.mid, muted: stream.disabled)
        case .data, .other: return nil
        }
    }
}
