/// One active publisher as a VideoRoom `joined` event or a later `event.publishers` lists it
/// (Janus 1.1, janus_videoroom.c "VideoRoom Publishers"): its feed id, display, and streams.
public struct JanusPublisherEntry: Sendable, Equatable {
    /// One published m-line of the publisher.
    public struct Stream: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            case audio, video, data
            case other(String)

            init(_ text: String) {
                switch text {
                case "audio": self = .audio
                case "video": self = .video
                case "data": self = .data
                default: self = .other(text)
                }
            }
        }

        public var kind: Kind
        public var mindex: Int
        public var mid: String
        public var codec: String?
        /// The publisher's text for the stream (`descriptions` of its publish request): how a
        /// screen share tells itself apart from a camera.
        public var description: String?
        /// The stream is inactive (codec and description then absent).
        public var disabled: Bool
        public var simulcast: Bool
        /// Audio activity, when the room uses audio levels.
        public var talking: Bool?

        public init(kind: Kind, mindex: Int, mid: String, codec: String? = nil, description: String? = nil,
                    disabled: Bool = false, simulcast: Bool = false, talking: Bool? = nil) {
            self.kind = kind
            self.mindex = mindex
            self.mid = mid
            self.codec = codec
            self.description = description
            self.disabled = disabled
            self.simulcast = simulcast
            self.talking = talking
        }
    }

    /// Janus's feed id (what a subscriber's `streams[].feed` names).
    public var id: Int
    public var display: String?
    public var streams: [Stream]
    /// Whether the publisher is talking (deprecated by Janus for the per-stream flag).
    public var talking: Bool?
    /// A dummy publisher (a placeholder created by the room, not a participant).
    public var dummy: Bool

    public init(id: Int, display: String? = nil, streams: [Stream], talking: Bool? = nil, dummy: Bool = false) {
        self.id = id
        self.display = display
        self.streams = streams
        self.talking = talking
        self.dummy = dummy
    }

    /// At most this many streams per publisher are read (Janus's own limit is far lower).
    public static let streamLimit = 64

    init(_ fields: JanusJSONFields) throws(JanusEventError) {
        id = try fields.integer("id")
        display = try fields.optionalString("display")
        talking = try fields.optionalBool("talking")
        dummy = try fields.optionalBool("dummy") ?? false
        streams = []
        for stream in try fields.objects("streams", limit: Self.streamLimit) {
            streams.append(Stream(
                kind: Stream.Kind(try stream.string("type")),
                mindex: try stream.integerOrNumericString("mindex"),
                mid: try stream.string("mid"),
                codec: try stream.optionalString("codec"),
                description: try stream.optionalString("description"),
                disabled: try stream.optionalBool("disabled") ?? false,
                simulcast: try stream.optionalBool("simulcast") ?? false,
                talking: try stream.optionalBool("talking")))
        }
    }
}
