import Foundation

/// One message of a Janus session's event stream (the long poll of the HTTP API, janus.c
/// "Janus events"), typed: a plugin event (with its JSEP, if any) or one of the core's own
/// events about a handle's PeerConnection. The room model reads these; `init(json:)` is the
/// parser `make fuzz` exercises (target `janus`).
public enum JanusSessionEvent: Sendable, Equatable {
    /// A VideoRoom handle's event; `jsep` is the offer or answer that came with it.
    case videoRoom(sender: Int?, JanusVideoRoomEvent, jsep: JanusJSEP?)
    /// The handle's PeerConnection is up (ICE + DTLS done).
    case webrtcUp(sender: Int?)
    /// The handle's PeerConnection is gone.
    case hangup(sender: Int?, reason: String?)
    /// Janus started or stopped receiving a medium on the handle (`mid` in multistream).
    case media(sender: Int?, type: String?, mid: String?, receiving: Bool)
    /// Janus saw losses on the handle's link (`uplink` true: what it receives from us).
    case slowLink(sender: Int?, uplink: Bool, lost: Int?)
    /// A trickled ICE candidate (nil with `completed`).
    case trickle(sender: Int?, candidate: String?)
    /// The handle was detached (Janus is done with it).
    case detached(sender: Int?)
    /// Janus's answer to a long poll with nothing to say.
    case keepalive
    /// The core refused something (`error.code`, `error.reason`).
    case error(code: Int?, reason: String)
    /// Another plugin's event, an ack, or a core event this engine does not act on (named).
    case other(kind: String)

    /// At most this many bytes are parsed as one event (the HTTP client bounds replies at 1 MiB too).
    public static let byteLimit = 1 << 20

    /// Parses one event from its JSON text.
    public init(json: [UInt8]) throws(JanusEventError) {
        guard json.count <= Self.byteLimit else { throw .tooManyEntries(field: "the event's bytes", limit: Self.byteLimit) }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(json))) as? [String: Any] else { throw .notAnObject }
        try self.init(object: object)
    }

    /// Reads an event JSONSerialization has already parsed.
    public init(object: [String: Any]) throws(JanusEventError) {
        let fields = JanusJSONFields(object)
        let kind = try fields.string("janus")
        let sender = try fields.optionalInteger("sender")
        switch kind {
        case "event":
            guard let plugin = try fields.optionalObject("plugindata") else { throw .missingField("plugindata") }
            let name = try plugin.optionalString("plugin")
            guard name == nil || name == "janus.plugin.videoroom" else {
                self = .other(kind: name ?? "event")
                return
            }
            guard let data = plugin.object["data"] as? [String: Any] else {
                throw plugin.has("data") ? .wrongType(field: "plugindata.data", expected: "an object") : .missingField("plugindata.data")
            }
            let jsep = try fields.optionalObject("jsep").map { (jsep) throws(JanusEventError) in try JanusJSEP(jsep) }
            self = .videoRoom(sender: sender, try JanusVideoRoomEvent(data: data), jsep: jsep)
        case "webrtcup":
            self = .webrtcUp(sender: sender)
        case "hangup":
            self = .hangup(sender: sender, reason: try fields.optionalString("reason"))
        case "media":
            self = .media(sender: sender, type: try fields.optionalString("type"), mid: try fields.optionalString("mid"),
                          receiving: try fields.optionalBool("receiving") ?? false)
        case "slowlink":
            self = .slowLink(sender: sender, uplink: try fields.optionalBool("uplink") ?? false, lost: try fields.optionalInteger("lost"))
        case "trickle":
            let candidate = try fields.optionalObject("candidate")
            if let candidate, try candidate.optionalBool("completed") == true {
                self = .trickle(sender: sender, candidate: nil)
            } else {
                self = .trickle(sender: sender, candidate: try candidate?.optionalString("candidate"))
            }
        case "detached":
            self = .detached(sender: sender)
        case "keepalive":
            self = .keepalive
        case "error":
            let error = try fields.optionalObject("error")
            self = .error(code: try error?.optionalInteger("code"), reason: try error?.optionalString("reason") ?? "no reason given")
        default:
            self = .other(kind: kind)
        }
    }
}

/// A JSEP description that rides beside a Janus event or request (`type` offer/answer, `sdp`).
public struct JanusJSEP: Sendable, Equatable {
    public enum Kind: String, Sendable { case offer, answer }
    public var kind: Kind
    public var sdp: String

    public init(kind: Kind, sdp: String) {
        self.kind = kind
        self.sdp = sdp
    }

    init(_ fields: JanusJSONFields) throws(JanusEventError) {
        let type = try fields.string("type")
        guard let kind = Kind(rawValue: type) else { throw .wrongType(field: fields.name("type"), expected: "offer or answer") }
        self.kind = kind
        sdp = try fields.string("sdp")
    }
}
