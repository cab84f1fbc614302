internal import SessionCore

/// The reconnect state of a room the engine joined on a server (a Janus room: its publishing
/// and receiving peer connections), from each connection's path (issue 29 item 3, SPEC §8's
/// "room reconnecting"): one path silent (`PathLiveness`, nothing for 2.5 s although consent
/// checks went out) makes the room reconnecting; every path live again makes it reconnected.
/// A path still silent `restartAfterMilliseconds` (3.5 s) after reconnecting began (about 6 s
/// without a datagram), or at once when the peer sees us at another address (`Path.moved`), asks for an ICE restart (`.restartICE`, RFC 8445 §9: the room gathers
/// again and renegotiates), and again every `restartRetryMilliseconds` (5 s) while it lasts.
/// Reconnecting for `limitMilliseconds` (30 s), or a connection whose ICE consent expired
/// (RFC 7675 §5.1, which stops it sending), ends the room: `.lost`, once. No clock of its own:
/// the room evaluates it at each pass and wakes for `nextDeadlineMilliseconds`.
struct RoomReconnectWatch {
    /// One peer connection's path as its ICE transport sees it.
    struct Path {
        var kind: ReconnectingPath
        var state: PathLiveness.State
        /// ICE failed or consent expired: the connection sends nothing more.
        var failed: Bool
        /// The peer sees us at another address than the selected pair's (`ICEDatagramTransport.hasMoved`):
        /// as good as dead, and restarted at once.
        var moved = false
    }

    enum Change: Equatable {
        case reconnecting(ReconnectingPath)
        case reconnected(afterMilliseconds: Int64)
        case restartICE
        case lost(String)
    }

    /// How long the room may stay reconnecting before it ends (issue 29: 30 s).
    static let defaultLimitMilliseconds: Int64 = 30_000

    let limitMilliseconds: Int64
    let restartAfterMilliseconds: Int64
    let restartRetryMilliseconds: Int64
    /// When the next ICE restart is due while reconnecting.
    private var nextRestartAt: Int64 = .max
    /// When `.reconnecting` was reported (monotonic milliseconds), nil while connected.
    private(set) var reconnectingSince: Int64?
    /// `.lost` was reported: nothing more is.
    private(set) var hasEnded = false

    init(limitMilliseconds: Int64 = Self.defaultLimitMilliseconds, restartAfterMilliseconds: Int64 = 3_500,
         restartRetryMilliseconds: Int64 = 5_000) {
        self.limitMilliseconds = max(1, limitMilliseconds)
        self.restartAfterMilliseconds = max(0, restartAfterMilliseconds)
        self.restartRetryMilliseconds = max(1, restartRetryMilliseconds)
    }

    var isReconnecting: Bool { reconnectingSince != nil && !hasEnded }

    /// The change `paths` make at `now`, if any.
    mutating func evaluate(_ paths: [Path], nowMilliseconds now: Int64) -> Change? {
        guard !hasEnded else { return nil }
        if let failed = paths.first(where: \.failed) {
            hasEnded = true
            return .lost("ICE consent of the \(failed.kind.rawValue) connection expired (RFC 7675)")
        }
        let silent = paths.first { $0.state == .silent || $0.moved }
        if let since = reconnectingSince {
            guard silent != nil else {
                reconnectingSince = nil
                return .reconnected(afterMilliseconds: now - since)
            }
            guard now - since < limitMilliseconds else {
                hasEnded = true
                return .lost("no traffic from the server for \(limitMilliseconds / 1_000) s after reconnecting began")
            }
            guard now >= nextRestartAt else { return nil }
            nextRestartAt = now + restartRetryMilliseconds
            return .restartICE
        }
        guard let silent else { return nil }
        reconnectingSince = now
        nextRestartAt = silent.moved ? now : now + restartAfterMilliseconds
        return .reconnecting(silent.kind)
    }

    /// When the limit runs out (nil while connected).
    var nextDeadlineMilliseconds: Int64? {
        guard let reconnectingSince, !hasEnded else { return nil }
        return min(reconnectingSince + limitMilliseconds, nextRestartAt)
    }
}
