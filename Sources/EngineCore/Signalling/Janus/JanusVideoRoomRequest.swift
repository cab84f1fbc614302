/// The VideoRoom requests the engine sends (janus_videoroom.c, Janus 1.1: "VideoRoom Publishers",
/// "VideoRoom Subscribers"), typed, each written as the `body` of a Janus `message` by `body`.
/// One place for the plugin's request shapes instead of dictionaries at every call site.
public enum JanusVideoRoomRequest: Sendable, Equatable {
    /// Join `room` as a publisher (who may publish nothing: it then only gets the room's events).
    case joinAsPublisher(room: Int, display: String)
    /// Join `room` as a subscriber to these publishers' streams (one peer connection for all;
    /// `privateID` ties the subscription to our publisher handle, as Janus asks).
    case joinAsSubscriber(room: Int, streams: [StreamSelector], privateID: Int?)
    /// Change a subscription in one renegotiation: add `subscribe`, drop `unsubscribe`.
    case update(subscribe: [StreamSelector], unsubscribe: [StreamSelector])
    /// Start relaying to a subscriber (sent with our JSEP answer).
    case start
    /// Publish (sent with our JSEP offer); `descriptions` name streams by mid (e.g. "screen").
    case publish(audio: Bool, video: Bool, descriptions: [String: String])
    /// Per-stream settings of a subscription: relay it or not, and which simulcast layers.
    case configureSubscription([StreamSetting])
    /// A publisher's renegotiation (sent with our new JSEP offer): `descriptions` name its
    /// streams by mid as in `publish`.
    case configurePublisher(descriptions: [String: String])
    /// A publisher's `configure` sent with a new JSEP offer whose ICE credentials changed: Janus
    /// 1.1.2 sees the new ufrag/pwd, restarts its ICE agent and answers (RFC 8445 §9).
    case restartPublisherICE
    /// A subscriber's `configure` with `restart: true`: Janus restarts ICE and sends a new offer
    /// (new credentials), answered with `start`.
    case restartSubscriptionICE
    case unpublish
    case leave
    /// The room's participants (a synchronous request: the reply carries them).
    case listParticipants(room: Int)

    /// A publisher's stream (`feed`, and one of its mids; nil: all of its streams).
    public struct StreamSelector: Sendable, Equatable {
        public var feed: Int
        public var mid: String?

        public init(feed: Int, mid: String? = nil) {
            self.feed = feed
            self.mid = mid
        }
    }

    /// What `configure` changes on one of the subscriber's mids.
    public struct StreamSetting: Sendable, Equatable {
        public var mid: String
        /// Relay the stream (false pauses it at Janus: nothing reaches us).
        public var send: Bool?
        /// The simulcast substream (0 lowest) and temporal layer.
        public var substream: Int?
        public var temporal: Int?

        public init(mid: String, send: Bool? = nil, substream: Int? = nil, temporal: Int? = nil) {
            self.mid = mid
            self.send = send
            self.substream = substream
            self.temporal = temporal
        }
    }

    /// The request's name, as Janus's replies and errors refer to it.
    public var name: String {
        switch self {
        case .joinAsPublisher, .joinAsSubscriber: return "join"
        case .update: return "update"
        case .start: return "start"
        case .publish: return "publish"
        case .configureSubscription, .configurePublisher, .restartPublisherICE, .restartSubscriptionICE: return "configure"
        case .unpublish: return "unpublish"
        case .leave: return "leave"
        case .listParticipants: return "listparticipants"
        }
    }

    /// The JSON object of the message's `body`.
    public var body: [String: Any] {
        var body: [String: Any] = ["request": name]
        switch self {
        case let .joinAsPublisher(room, display):
            body["ptype"] = "publisher"
            body["room"] = room
            body["display"] = display
        case let .joinAsSubscriber(room, streams, privateID):
            body["ptype"] = "subscriber"
            body["room"] = room
            body["streams"] = streams.map(\.json)
            if let privateID { body["private_id"] = privateID }
        case let .update(subscribe, unsubscribe):
            if !subscribe.isEmpty { body["subscribe"] = subscribe.map(\.json) }
            if !unsubscribe.isEmpty { body["unsubscribe"] = unsubscribe.map(\.json) }
        case let .publish(audio, video, descriptions):
            body["audio"] = audio
            body["video"] = video
            if !descriptions.isEmpty {
                body["descriptions"] = descriptions.keys.sorted().map { ["mid": $0, "description": descriptions[$0] ?? ""] }
            }
        case let .configureSubscription(settings):
            body["streams"] = settings.map(\.json)
        case let .configurePublisher(descriptions):
            if !descriptions.isEmpty {
                body["descriptions"] = descriptions.keys.sorted().map { ["mid": $0, "description": descriptions[$0] ?? ""] }
            }
        case let .listParticipants(room):
            body["room"] = room
        case .restartSubscriptionICE:
            body["restart"] = true
        case .start, .unpublish, .leave, .restartPublisherICE:
            break
        }
        return body
    }
}

extension JanusVideoRoomRequest.StreamSelector {
    var json: [String: Any] {
        var object: [String: Any] = ["feed": feed]
        if let mid { object["mid"] = mid }
        return object
    }
}

extension JanusVideoRoomRequest.StreamSetting {
    var json: [String: Any] {
        var object: [String: Any] = ["mid": mid]
        if let send { object["send"] = send }
        if let substream { object["substream"] = substream }
        if let temporal { object["temporal"] = temporal }
        return object
    }
}
