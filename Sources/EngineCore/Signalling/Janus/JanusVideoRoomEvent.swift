/// What a VideoRoom handle's event says (`plugindata.data` of a Janus `event`), typed: the
/// participant model of a Janus room is built from these (janus_videoroom.c, Janus 1.1:
/// "VideoRoom Publishers", "VideoRoom Subscribers"). Every field the engine relies on is checked:
/// a missing or wrong-typed one is a `JanusEventError`, never a trap or a guess.
public enum JanusVideoRoomEvent: Sendable, Equatable {
    /// Our `join` as a publisher succeeded: our feed id, and every publisher already active.
    case joined(room: Int?, id: Int, privateID: Int?, publishers: [JanusPublisherEntry], attendees: [JanusAttendee])
    /// Publishers became active (or changed their streams): `event.publishers`.
    case publishers(room: Int?, [JanusPublisherEntry])
    /// A publisher stopped publishing (its feed is gone; it may still be in the room).
    case unpublished(room: Int?, id: Int)
    /// A participant left the room (`reason`, e.g. "kicked", when Janus gives one).
    case leaving(room: Int?, id: Int, reason: String?)
    /// A passive participant joined (rooms with `notify_joining`).
    case joining(room: Int?, JanusAttendee)
    /// Janus's own audio-level verdict (`talking` / `stopped-talking`, rooms with `audiolevel_event`).
    case talking(room: Int?, id: Int, isTalking: Bool, averageLevelDBov: Double?)
    /// A subscription's streams, with Janus's JSEP offer beside the event (`attached`).
    case attached(room: Int?, streams: [JanusSubscribedStream])
    /// A subscription changed (`updated`, after `update` / `subscribe` / `unsubscribe`), with a new offer.
    case updated(room: Int?, streams: [JanusSubscribedStream])
    /// Our `publish` / `configure` was applied (`configured: "ok"`).
    case configured
    /// Our own `unpublish` / `leave` was applied (`unpublished: "ok"`, `leaving: "ok"`, `left: "ok"`).
    case ownUnpublished, ownLeft
    /// Our subscription started relaying (`started: "ok"`).
    case started
    /// The room was destroyed: every participant is out.
    case destroyed(room: Int?)
    /// The plugin refused a request (`error_code`, `error`).
    case error(code: Int?, reason: String)
    /// A `videoroom` kind this engine does not act on (named, not dropped silently).
    case other(kind: String)

    /// Reads `plugindata.data` of a VideoRoom event.
    public init(data: [String: Any]) throws(JanusEventError) {
        let fields = JanusJSONFields(data)
        let kind = try fields.string("videoroom")
        let room = try Self.room(fields)
        if fields.has("error") {
            self = .error(code: try fields.optionalInteger("error_code"), reason: (try? fields.string("error")) ?? "an error that is not text")
            return
        }
        switch kind {
        case "joined":
            self = .joined(room: room, id: try fields.integer("id"), privateID: try fields.optionalInteger("private_id"),
                           publishers: try Self.publishers(fields), attendees: try Self.attendees(fields))
        case "event":
            self = try Self.roomEvent(fields, room: room)
        case "talking", "stopped-talking":
            self = .talking(room: room, id: try fields.integer("id"), isTalking: kind == "talking",
                            averageLevelDBov: try fields.optionalNumber("audio-level-dBov-avg"))
        case "attached":
            self = .attached(room: room, streams: try Self.subscribedStreams(fields))
        case "updated":
            self = .updated(room: room, streams: try Self.subscribedStreams(fields))
        case "destroyed":
            self = .destroyed(room: room)
        default:
            self = .other(kind: kind)
        }
    }

    /// At most this many publishers (and attendees) are read from one event.
    public static let publisherLimit = 4096
    /// At most this many streams of one subscription are read from one event.
    public static let subscribedStreamLimit = 1024

    private static func roomEvent(_ fields: JanusJSONFields, room: Int?) throws(JanusEventError) -> JanusVideoRoomEvent {
        if fields.has("publishers") { return .publishers(room: room, try publishers(fields)) }
        if fields.has("unpublished") {
            if try ownAcknowledgement(fields, "unpublished") { return .ownUnpublished }
            return .unpublished(room: room, id: try fields.integer("unpublished"))
        }
        if fields.has("leaving") {
            if try ownAcknowledgement(fields, "leaving") { return .ownLeft }
            return .leaving(room: room, id: try fields.integer("leaving"), reason: try fields.optionalString("reason"))
        }
        if fields.has("kicked") { return .leaving(room: room, id: try fields.integer("kicked"), reason: "kicked") }
        if let joining = try fields.optionalObject("joining") { return .joining(room: room, try JanusAttendee(joining)) }
        if fields.has("configured") { return .configured }
        if fields.has("started") { return .started }
        if fields.has("left") { return .ownLeft }
        return .other(kind: "event")
    }

    /// `"ok"` where Janus acknowledges our own request in the field that otherwise names a feed.
    private static func ownAcknowledgement(_ fields: JanusJSONFields, _ key: String) throws(JanusEventError) -> Bool {
        guard let text = fields.object[key] as? String else { return false }
        guard text == "ok" else { throw .wrongType(field: key, expected: "a feed id or \"ok\"") }
        return true
    }

    /// A numeric room id; rooms with string ids (`string_ids`) have none here.
    private static func room(_ fields: JanusJSONFields) throws(JanusEventError) -> Int? {
        if fields.object["room"] is String { return nil }
        return try fields.optionalInteger("room")
    }

    private static func publishers(_ fields: JanusJSONFields) throws(JanusEventError) -> [JanusPublisherEntry] {
        var result: [JanusPublisherEntry] = []
        for entry in try fields.objects("publishers", limit: publisherLimit) { result.append(try JanusPublisherEntry(entry)) }
        return result
    }

    private static func attendees(_ fields: JanusJSONFields) throws(JanusEventError) -> [JanusAttendee] {
        var result: [JanusAttendee] = []
        for entry in try fields.objects("attendees", limit: publisherLimit) { result.append(try JanusAttendee(entry)) }
        return result
    }

    private static func subscribedStreams(_ fields: JanusJSONFields) throws(JanusEventError) -> [JanusSubscribedStream] {
        var result: [JanusSubscribedStream] = []
        for entry in try fields.objects("streams", limit: subscribedStreamLimit) { result.append(try JanusSubscribedStream(entry)) }
        return result
    }
}

/// A participant in a VideoRoom that publishes nothing (`attendees`, `joining`).
public struct JanusAttendee: Sendable, Equatable {
    public var id: Int
    public var display: String?

    public init(id: Int, display: String? = nil) {
        self.id = id
        self.display = display
    }

    init(_ fields: JanusJSONFields) throws(JanusEventError) {
        id = try fields.integer("id")
        display = try fields.optionalString("display")
    }
}
