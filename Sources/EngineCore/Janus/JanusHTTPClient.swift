import Foundation
import FoundationNetworking

/// Janus's HTTP API (https://janus.conf.meetecho.com/docs/rest.html), synchronously: requests
/// are POSTed as JSON, events arrive through a long poll of the session. For the engine's own
/// signalling thread; not `Sendable`.
public final class JanusHTTPClient {
    /// Why a request failed: no answer, no JSON, or Janus's own error.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public let base: URL
    public private(set) var session: Int?
    public private(set) var handle: Int?

    /// - Parameter base: e.g. http://127.0.0.1:8088/janus
    public init(base: URL) {
        self.base = base
    }

    /// Creates a session and attaches `plugin` (e.g. janus.plugin.videoroom).
    public func attach(plugin: String) throws(Failure) {
        let created = try post("", ["janus": "create"])
        guard let session = (created["data"] as? [String: Any])?["id"] as? Int else { throw Failure(description: "create: \(created)") }
        self.session = session
        let attached = try post("/\(session)", ["janus": "attach", "plugin": plugin])
        guard let handle = (attached["data"] as? [String: Any])?["id"] as? Int else { throw Failure(description: "attach: \(attached)") }
        self.handle = handle
    }

    /// Sends a plugin message (with a JSEP, if any); returns Janus's immediate reply (ack or result).
    @discardableResult
    public func message(_ body: [String: Any], jsep: [String: Any]? = nil) throws(Failure) -> [String: Any] {
        guard let session, let handle else { throw Failure(description: "not attached") }
        var request: [String: Any] = ["janus": "message", "body": body]
        if let jsep { request["jsep"] = jsep }
        return try post("/\(session)/\(handle)", request)
    }

    /// The next event of the session (long poll, Janus answers within 30 s with a keepalive).
    public func nextEvent() throws(Failure) -> [String: Any] {
        guard let session else { throw Failure(description: "no session") }
        var request = URLRequest(url: base.appendingPathComponent("\(session)"))
        request.timeoutInterval = 40
        return try Self.fetch(request)
    }

    /// Waits (at most `events` events) for one `accept` takes; returns it.
    public func waitForEvent(within events: Int = 10, _ accept: ([String: Any]) -> Bool) throws(Failure) -> [String: Any] {
        for _ in 0..<events {
            let event = try nextEvent()
            if let data = (event["plugindata"] as? [String: Any])?["data"] as? [String: Any], let error = data["error"] {
                throw Failure(description: "plugin error: \(error)")
            }
            if accept(event) { return event }
        }
        throw Failure(description: "no expected event among \(events)")
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

    @discardableResult
    private func post(_ path: String, _ body: [String: Any]) throws(Failure) -> [String: Any] {
        var request = URLRequest(url: path.isEmpty ? base : URL(string: base.absoluteString + path)!)
        request.httpMethod = "POST"
        request.timeoutInterval = 10
        var body = body
        body["transaction"] = UUID().uuidString
        do {
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
        } catch {
            throw Failure(description: "request not JSON: \(error)")
        }
        let reply = try Self.fetch(request)
        if reply["janus"] as? String == "error" { throw Failure(description: "Janus error: \(reply["error"] ?? reply)") }
        return reply
    }

    private final class Reply: @unchecked Sendable {
        private let lock = NSLock()
        private var data: Data?
        private var error: Error?
        func set(_ data: Data?, _ error: Error?) { lock.withLock { (self.data, self.error) = (data, error) } }
        var value: (Data?, Error?) { lock.withLock { (data, error) } }
    }

    private static func fetch(_ request: URLRequest) throws(Failure) -> [String: Any] {
        let done = DispatchSemaphore(value: 0)
        let reply = Reply()
        URLSession.shared.dataTask(with: request) { data, _, error in
            reply.set(data, error)
            done.signal()
        }.resume()
        guard done.wait(timeout: .now() + request.timeoutInterval + 5) == .success else {
            throw Failure(description: "no answer from \(request.url?.absoluteString ?? "")")
        }
        let (data, error) = reply.value
        guard let data, let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Failure(description: "\(request.url?.absoluteString ?? ""): \(error.map { "\($0)" } ?? "no JSON")")
        }
        return object
    }
}
