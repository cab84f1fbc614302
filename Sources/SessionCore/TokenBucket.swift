/// A token bucket rate limiter (RFC 2697's single-rate idea without colours): tokens, in bytes,
/// refill at `bitsPerSecond / 8` per second up to `burstBytes`; a datagram passes when the
/// bucket holds its size, and is otherwise refused (a policer drops, it does not queue).
///
/// Time is a parameter (milliseconds on any monotonic clock).
public struct TokenBucket: Sendable, Equatable {
    /// The refill rate; nil means unlimited (everything passes).
    public private(set) var bitsPerSecond: Int?
    /// The bucket depth: the largest burst that passes at once.
    public let burstBytes: Int
    private var tokens: Double
    private var lastRefillMilliseconds: Int64?

    /// - Parameters:
    ///   - bitsPerSecond: the rate, nil for unlimited; negative rates count as 0.
    ///   - burstBytes: the depth (at least one MTU-sized datagram, 1500 bytes).
    public init(bitsPerSecond: Int?, burstBytes: Int = 15_000) {
        self.bitsPerSecond = bitsPerSecond.map { max(0, $0) }
        self.burstBytes = max(1500, burstBytes)
        tokens = Double(self.burstBytes)
    }

    /// Changes the rate from `nowMilliseconds` on (tokens earned so far are kept).
    public mutating func setRate(bitsPerSecond newRate: Int?, nowMilliseconds now: Int64) {
        refill(now)
        bitsPerSecond = newRate.map { max(0, $0) }
    }

    /// Whether a datagram of `bytes` may pass at `nowMilliseconds`; takes its tokens if so.
    public mutating func admit(bytes: Int, nowMilliseconds now: Int64) -> Bool {
        refill(now)
        guard bitsPerSecond != nil else { return true }
        let size = Double(max(0, bytes))
        guard tokens >= size else { return false }
        tokens -= size
        return true
    }

    private mutating func refill(_ now: Int64) {
        // Never moves back: a clock step backwards must not count as time earned afterwards.
        defer { lastRefillMilliseconds = max(lastRefillMilliseconds ?? now, now) }
        guard let last = lastRefillMilliseconds, let rate = bitsPerSecond else {
            if bitsPerSecond == nil { tokens = Double(burstBytes) }
            return
        }
        // Clamped: a clock going backwards earns nothing, a long pause at most a full bucket.
        let elapsed = Double(min(max(0, now &- last), 3_600_000))
        tokens = min(Double(burstBytes), tokens + elapsed * Double(rate) / 8000)
    }
}
