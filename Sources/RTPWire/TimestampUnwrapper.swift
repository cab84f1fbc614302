/// Extends 32-bit RTP timestamps (RFC 3550 §5.1) to a monotonic 64-bit count, placing each input
/// nearest to the previous output (difference in −2^31...2^31−1) so reordering across a wrap is
/// handled. The first input maps to itself.
public struct TimestampUnwrapper: Sendable, Equatable {
    /// The most recent unwrapped value, nil before the first input.
    public private(set) var last: Int64?

    /// A fresh unwrapper.
    public init() {}

    /// The 64-bit value of `timestamp`, nearest to the previously returned value.
    public mutating func unwrap(_ timestamp: UInt32) -> Int64 {
        guard let last else {
            self.last = Int64(timestamp)
            return Int64(timestamp)
        }
        let delta = Int32(bitPattern: timestamp &- UInt32(truncatingIfNeeded: last))
        // |delta| ≤ 2^31 per call, so overflow would need 2^32 calls each at the maximum.
        let value = last + Int64(delta)
        self.last = value
        return value
    }

    /// The value `timestamp` would unwrap to, without updating state.
    public func peek(_ timestamp: UInt32) -> Int64 {
        var copy = self
        return copy.unwrap(timestamp)
    }
}
