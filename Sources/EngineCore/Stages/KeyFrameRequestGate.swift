import Simulcast

/// The key-frame request stage (RFC 4585 §6.3.1 PLI, RFC 5104 §4.3.1 FIR): lets at most one
/// request per key through each interval (`KeyFrameRequestThrottle`), and can remember a
/// throttled request so the first moment after the interval serves it (`deferIfThrottled`):
/// a requester that asks once is never starved.
///
/// Keys are what the caller throttles by (an SSRC, or one SSRC for a whole track); a deferred
/// request carries a value (e.g. the layer it named). Nothing is allocated once each key has
/// passed once.
struct KeyFrameRequestGate {
    private var throttle: KeyFrameRequestThrottle
    /// Throttled requests still owed, by key.
    private var deferred: [UInt32: Int] = [:]
    /// Requests the throttle held back.
    private(set) var throttled = 0

    init(minimumIntervalMilliseconds: Int64) {
        throttle = KeyFrameRequestThrottle(minimumIntervalMilliseconds: minimumIntervalMilliseconds)
    }

    /// Whether a request for `key` may go now (then it counts as the interval's one).
    mutating func admit(_ key: UInt32, nowMilliseconds: Int64) -> Bool {
        guard throttle.shouldPass(ssrc: key, nowMilliseconds: nowMilliseconds) else {
            throttled += 1
            return false
        }
        return true
    }

    /// `admit`, and a request held back is kept (with `value`, the latest wins) until
    /// `serveDeferred` finds its interval over; one that passes clears what was owed for `key`.
    mutating func admitOrDefer(_ key: UInt32, value: Int, nowMilliseconds: Int64) -> Bool {
        guard admit(key, nowMilliseconds: nowMilliseconds) else {
            deferred[key] = value
            return false
        }
        deferred[key] = nil
        return true
    }

    /// Whether throttled requests are still owed.
    var hasDeferred: Bool { !deferred.isEmpty }

    /// When a request for `key` would next pass (ms; `Int64.min`: at once).
    func nextAdmission(_ key: UInt32) -> Int64 { throttle.nextPassMilliseconds(ssrc: key) }

    /// When `serveDeferred` next serves a deferred request (ms; nil: none is owed).
    var nextDeferredDeadline: Int64? {
        var earliest: Int64?
        for key in deferred.keys { earliest = min(earliest ?? .max, throttle.nextPassMilliseconds(ssrc: key)) }
        return earliest
    }

    /// Hands `serve` the value of every deferred request whose interval is over now.
    mutating func serveDeferred(nowMilliseconds: Int64, _ serve: (Int) -> Void) {
        for (key, value) in deferred where throttle.shouldPass(ssrc: key, nowMilliseconds: nowMilliseconds) {
            serve(value)
            deferred[key] = nil
        }
    }
}
