import Foundation
import RTPWire

extension JanusHTTPClient {
    /// Why a request to Janus failed. Each description is one sentence for a person: it names the
    /// request (`create`, `attach`, `join`, `publish`, …) and quotes what Janus sent only through
    /// `PeerText.shown` (at most 200 characters, no control characters), never a dictionary dump.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// No HTTP exchange with `endpoint` (host:port): `reason` says why in words.
        case unreachable(endpoint: String, reason: String)
        /// The exchange of `request` broke off (the connection reset or closed early) or its reply
        /// was not HTTP/1.1: `reason` in words.
        case brokenReply(request: String, reason: String)
        /// Janus did not complete its reply to `request` within `seconds`.
        case timedOut(request: String, seconds: Double)
        /// Janus's reply to `request` declared or reached more than `limit` bytes; the rest was not read.
        case replyTooLarge(request: String, limit: Int)
        /// Janus answered `request` with an HTTP status other than 200 and no Janus error.
        case httpStatus(request: String, status: Int)
        /// Janus's reply to `request` was not a JSON object.
        case notJSON(request: String)
        /// Janus's reply to `request` had no `expected` (missing, or of another type).
        case unexpectedReply(request: String, expected: String)
        /// Janus (or its plugin) refused `request`: its error code, if any, and reason as sent.
        case refused(request: String, code: Int?, reason: String)
        /// Janus sent no `awaited` event within `seconds` (`eventsSeen` others, keepalives included).
        case noExpectedEvent(awaited: String, seconds: Double, eventsSeen: Int)
        /// A request that needs a session (and plugin handle) before `attach` succeeded.
        case notAttached(request: String)

        public var description: String {
            switch self {
            case let .unreachable(endpoint, reason):
                return "could not connect to \(endpoint): \(reason)"
            case let .brokenReply(request, reason):
                return "the exchange of \(request) with Janus broke off: \(reason)"
            case let .timedOut(request, seconds):
                return "Janus did not answer \(request) within \(Self.format(seconds)) s"
            case let .replyTooLarge(request, limit):
                let size = limit % (1 << 20) == 0 ? "\(limit >> 20) MiB" : "\(limit) bytes"
                return "Janus's reply to \(request) was larger than \(size); the rest was not read"
            case let .httpStatus(request, status):
                return "Janus answered \(request) with HTTP status \(status)"
            case let .notJSON(request):
                return "Janus's reply to \(request) was not a JSON object"
            case let .unexpectedReply(request, expected):
                return "Janus's reply to \(request) had no \(expected)"
            case let .refused(request, code, reason):
                return "Janus refused \(request)\(code.map { " (error \($0))" } ?? ""): \(PeerText.shown(reason))"
            case let .noExpectedEvent(awaited, seconds, eventsSeen):
                return "Janus sent no \(awaited) event within \(Self.format(seconds)) s (\(eventsSeen) other events, keepalives included)"
            case let .notAttached(request):
                return "\(request) needs a Janus session; attach first"
            }
        }

        private static func format(_ seconds: Double) -> String {
            seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.1f", seconds)
        }
    }
}
