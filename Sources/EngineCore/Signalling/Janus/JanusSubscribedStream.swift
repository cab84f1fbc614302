/// One m-line of a VideoRoom subscription as the `attached` and `updated` events list it (Janus 1.1
/// multistream subscriptions, janus_videoroom.c "VideoRoom Subscribers"): which publisher's
/// stream (`feedID`, `feedMid`) reaches the subscriber on which of its own mids.
public struct JanusSubscribedStream: Sendable, Equatable {
    public var mindex: Int
    /// The subscriber's mid for the stream (what RTP's MID extension carries to it).
    public var mid: String
    public var kind: JanusPublisherEntry.Stream.Kind
    /// The publisher the stream comes from; absent on an m-line Janus keeps but no longer feeds.
    public var feedID: Int?
    public var feedMid: String?
    public var feedDisplay: String?
    /// Whether Janus relays it (a subscriber's `configure` with `send` toggles it).
    public var send: Bool
    public var active: Bool
    public var codec: String?

    public init(mindex: Int, mid: String, kind: JanusPublisherEntry.Stream.Kind, feedID: Int? = nil, feedMid: String? = nil,
                feedDisplay: String? = nil, send: Bool = true, active: Bool = true, codec: String? = nil) {
        self.mindex = mindex
        self.mid = mid
        self.kind = kind
        self.feedID = feedID
        self.feedMid = feedMid
        self.feedDisplay = feedDisplay
        self.send = send
        self.active = active
        self.codec = codec
    }

    init(_ fields: JanusJSONFields) throws(JanusEventError) {
        mindex = try fields.integerOrNumericString("mindex")
        mid = try fields.string("mid")
        kind = JanusPublisherEntry.Stream.Kind(try fields.string("type"))
        feedID = try fields.optionalInteger("feed_id")
        feedMid = try fields.optionalString("feed_mid")
        feedDisplay = try fields.optionalString("feed_display")
        send = try fields.optionalBool("send") ?? true
        active = try fields.optionalBool("active") ?? true
        codec = try fields.optionalString("codec")
    }
}
