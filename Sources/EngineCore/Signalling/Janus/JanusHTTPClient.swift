import Foundation

/// Janus's HTTP API (https://janus.conf.meetecho.com/docs/rest.html), synchronously, over plain
/// `http://`: requests are POSTed as JSON, events arrive through a long poll of the session.
/// Everything read from Janus is bounded (`Limits`, `BoundedHTTPExchange`): a reply's size, a
/// request's time, and the time to wait for an expected event however many keepalives come
/// meanwhile. For the engine's own signalling thread; not `Sendable`.
public final class JanusHTTPClient {
    /// How much the client reads from Janus and how long it waits for it.
    public struct Limits: Sendable {
        /// The largest reply read (1 MiB): a larger one fails with `Failure.replyTooLarge`
        /// without being read further.
        public var replyBytes: Int
        /// How long one request may take, its reply complete (a byte-at-a-time drip included).
        public var requestSeconds: Double
        /// How long `waitForEvent` waits for the event it expects, across every long poll and
        /// keepalive meanwhile.
        public var eventSeconds: Double

        public init(replyBytes: Int = 1 << 20, requestSeconds: Double = 10, eventSeconds: Double = 30) {
            self.replyBytes = replyBytes
            self.requestSeconds = requestSeconds
            self.eventSeconds = eventSeconds
        }
    }

    /// Janus answers a long poll within 30 s, with a keepalive if nothing happened.
    static let longPollSeconds = 40.0

    public let base: URL
    public let limits: Limits
    public private(set) var session: Int?
    public private(set) var handle: Int?

    /// - Parameter base: e.g. http://127.0.0.1:8088/janus
    public init(base: URL, limits: Limits = Limits()) {
        self.base = base
        self.limits = limits
    }

    /// A client for a session and handle another client made (e.g. to leave and destroy, from
    /// another thread, a session whose own client waits in a long poll).
    public init(base: URL, session: Int, handle: Int?, limits: Limits = Limits()) {
        self.base = base
        self.limits = limits
        self.session = session
        self.handle = handle
    }

    /// Creates a session and attaches `plugin` (e.g. janus.plugin.videoroom).
    public func attach(plugin: String) throws(Failure) {
        let created = try post("", ["janus": "create"])
        guard let session = Self.integer(created["data"], "id") else { throw .unexpectedReply(request: "create", expected: "numeric data.id") }
        self.session = session
        let attached = try post("/\(session)", ["janus": "attach", "plugin": plugin])
        guard let handle = Self.integer(attached["data"], "id") else { throw .unexpectedReply(request: "attach", expected: "numeric data.id") }
        self.handle = handle
    }

    /// Sends a plugin message (with a JSEP, if any); returns Janus's immediate reply (ack or
    /// result). A result carrying the plugin's error (`plugindata.data.error`) throws `.refused`.
    @discardableResult
    public func message(_ body: [String: Any], jsep: [String: Any]? = nil) throws(Failure) -> [String: Any] {
        let name = body["request"] as? String ?? "message"
        guard let session, let handle else { throw .notAttached(request: name) }
        var request: [String: Any] = ["janus": "message", "body": body]
        if let jsep { request["jsep"] = jsep }
        let reply = try post("/\(session)/\(handle)", request)
        try Self.throwPluginError(in: reply, answering: name)
        return reply
    }

    /// The next event of the session: a long poll that Janus answers within 30 s (with a
    /// keepalive if nothing happened), given at most `seconds` (default 40).
    public func nextEvent(seconds: Double? = nil) throws(Failure) -> [String: Any] {
        guard let session else { throw .notAttached(request: "the event poll") }
        return try exchange("GET", base.appendingPathComponent("\(session)"), body: nil, named: "the event poll",
                            seconds: seconds ?? Self.longPollSeconds)
    }

    /// Waits for the event `accept` takes (`awaited` names it for the error, e.g. "joined"),
    /// at most `limits.eventSeconds` in all however many other events and keepalives arrive; an
    /// event carrying the plugin's error throws `.refused` naming `request`, what it answers.
    public func waitForEvent(_ awaited: String, after request: String,
                             _ accept: ([String: Any]) -> Bool) throws(Failure) -> [String: Any] {
        let deadline = BoundedHTTPExchange.deadline(after: limits.eventSeconds)
        var seen = 0
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { throw .noExpectedEvent(awaited: awaited, seconds: limits.eventSeconds, eventsSeen: seen) }
            let event: [String: Any]
            do {
                event = try nextEvent(seconds: min(Double(deadline - now) / 1e9, Self.longPollSeconds))
            } catch {
                guard case .timedOut = error else { throw error }
                throw .noExpectedEvent(awaited: awaited, seconds: limits.eventSeconds, eventsSeen: seen)
            }
            try Self.throwPluginError(in: event, answering: request)
            if accept(event) { return event }
            seen += 1
        }
    }

    /// Keeps the session alive (Janus drops sessions silent for 60 s).
    public func keepAlive() throws(Failure) {
        guard let session else { return }
        try post("/\(session)", ["janus": "keepalive"])
    }

    /// Detaches and destroys the session (errors ignored: Janus may be gone).
    public func close() {
        guard let session else { return }
        if let handle { _ = try? post("/\(session)/\(handle)", ["janus": "detach"]) }
        _ = try? post("/\(session)", ["janus": "destroy"])
        self.session = nil
        self.handle = nil
    }

    /// POSTs `body` (a `janus` verb, a transaction added) to `base + path`; a Janus error reply throws `.refused`.
    @discardableResult
    func post(_ path: String, _ body: [String: Any]) throws(Failure) -> [String: Any] {
        let name = (body["body"] as? [String: Any])?["request"] as? String ?? body["janus"] as? String ?? "request"
        let url = path.isEmpty ? base : base.appendingPathComponent(String(path.dropFirst()))
        var body = body
        body["transaction"] = UUID().uuidString
        // Only our own dictionaries of strings, numbers, arrays and dictionaries come here.
        let json = (try? JSONSerialization.data(withJSONObject: body)).map { [UInt8]($0) } ?? []
        return try exchange("POST", url, body: json, named: name, seconds: limits.requestSeconds)
    }

    /// One bounded exchange (`BoundedHTTPExchange`); its reply as a JSON object, Janus's error
    /// (`"janus": "error"`) thrown as `.refused`.
    private func exchange(_ method: String, _ url: URL, body: [UInt8]?, named name: String, seconds: Double) throws(Failure) -> [String: Any] {
        let reply: (status: Int, body: [UInt8])
        switch BoundedHTTPExchange.perform(method, url, body: body, byteLimit: limits.replyBytes, seconds: seconds) {
        case let .reply(status, body): reply = (status, body)
        case .tooLarge: throw .replyTooLarge(request: name, limit: limits.replyBytes)
        case .timedOut: throw .timedOut(request: name, seconds: seconds)
        case let .cannotConnect(reason): throw .unreachable(endpoint: Self.endpoint(of: url), reason: reason)
        case let .broken(reason): throw .brokenReply(request: name, reason: reason)
        }
        let object = (try? JSONSerialization.jsonObject(with: Data(reply.body))) as? [String: Any]
        if let object, object["janus"] as? String == "error" {
            let error = object["error"] as? [String: Any]
            throw .refused(request: name, code: Self.integer(error, "code"), reason: error?["reason"] as? String ?? "no reason given")
        }
        guard reply.status == 200 else { throw .httpStatus(request: name, status: reply.status) }
        guard let object else { throw .notJSON(request: name) }
        return object
    }

    /// Throws the plugin's error (`plugindata.data.error`, `error_code`) of a reply or event as `.refused`.
    private static func throwPluginError(in reply: [String: Any], answering request: String) throws(Failure) {
        guard let data = pluginData(reply), let error = data["error"] else { return }
        throw .refused(request: request, code: integer(data, "error_code"), reason: error as? String ?? "an error that is not text")
    }

    /// `object[key]` if `object` is a JSON object and that value an integer (`JanusJSONFields.integer`).
    static func integer(_ object: Any?, _ key: String) -> Int? {
        guard let object = object as? [String: Any] else { return nil }
        return try? JanusJSONFields(object).integer(key)
    }

    /// `host:port` of `url` (the scheme's port when it names none).
    static func endpoint(of url: URL) -> String {
        let port = url.port ?? (url.scheme == "https" ? 443 : 80)
        return "\(url.host ?? "?"):\(port)"
    }
}
