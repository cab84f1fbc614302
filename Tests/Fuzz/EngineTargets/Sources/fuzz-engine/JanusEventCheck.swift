import EngineCore

/// JanusSessionEvent(json:): the event stream of a Janus session as the room model reads it.
///
/// Invariants beyond no trap: an input is parsed or refused with a `JanusEventError`, never
/// anything else; a parsed VideoRoom event holds at most the entries the parser allows; the
/// display of every publisher it lists maps to a participant id (`JanusDisplayName`) that is
/// either the engine's own form or `janus-<feed id>`.
enum JanusEventCheck {
    static func run(_ bytes: [UInt8]) -> String? {
        let event: JanusSessionEvent
        do {
            event = try JanusSessionEvent(json: bytes)
        } catch {
            return nil  // a typed refusal is the expected outcome for most inputs
        }
        guard case let .videoRoom(_, roomEvent, _) = event else { return nil }
        let publishers: [JanusPublisherEntry]
        switch roomEvent {
        case let .joined(_, _, _, list, attendees):
            guard attendees.count <= JanusVideoRoomEvent.publisherLimit else { return "\(attendees.count) attendees kept" }
            publishers = list
        case let .publishers(_, list): publishers = list
        case let .attached(_, streams), let .updated(_, streams):
            return streams.count <= JanusVideoRoomEvent.subscribedStreamLimit ? nil : "\(streams.count) subscribed streams kept"
        default: return nil
        }
        guard publishers.count <= JanusVideoRoomEvent.publisherLimit else { return "\(publishers.count) publishers kept" }
        for publisher in publishers {
            guard publisher.streams.count <= JanusPublisherEntry.streamLimit else { return "\(publisher.streams.count) streams kept" }
            let name = JanusDisplayName(display: publisher.display, feedID: publisher.id)
            guard !name.participantId.isEmpty, name.participantId.utf8.count <= 64 || name.participantId.hasPrefix("janus-") else {
                return "participant id \(name.participantId) from display \(publisher.display ?? "nil")"
            }
        }
        return nil
    }
}
