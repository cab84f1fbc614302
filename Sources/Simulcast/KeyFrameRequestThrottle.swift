/// Rate-limits key-frame requests (PLI/FIR, RFC 4585 §6.3.1 / RFC 5104 §4.3.1) per SSRC:
/// a request passes only if none passed for that SSRC within `minimumInterval`.
/// Time is a parameter (milliseconds on any monotonic clock), so the policy is deterministic.
public struct KeyFrameRequestThrottle: Sendable {
    public let minimumIntervalMilliseconds: Int64
    private var lastPassed: [UInt32: Int64] = [:]

    public init(minimumIntervalMilliseconds: Int64 = 300) {
        self.minimumIntervalMilliseconds = minimumIntervalMilliseconds
    }

    /// When a request for `ssrc` would next pass (`Int64.min`: at once).
    public func nextPassMilliseconds(ssrc: UInt32) -> Int64 {
        guard let last = lastPassed[ssrc] else { return .min }
        return last.addingReportingOverflow(minimumIntervalMilliseconds).overflow ? .max : last + minimumIntervalMilliseconds
    }

    /// Whether a request for `ssrc` at `nowMilliseconds` should go through; records it if so.
    public mutating func shouldPass(ssrc: UInt32, nowMilliseconds: Int64) -> Bool {
        if let last = lastPassed[ssrc] {
            // Clock values come from the caller; a wildly out-of-range one must not trap.
            let (elapsed, overflow) = nowMilliseconds.subtractingReportingOverflow(last)
            if !overflow, elapsed < minimumIntervalMilliseconds { return false }
        }
        lastPassed[ssrc] = nowMilliseconds
        return true
    }
}
