/// Extends 16-bit RTP sequence numbers (RFC 3550 §5.1, wrap handling as in Appendix A.1) to a
/// monotonic 64-bit count.
///
/// Each input is placed at the 64-bit value nearest to the previous output (difference in
/// −32768...32767), so reordered packets on either side of a wrap get the right value. The first
/// input maps to itself; a packet older than the first may map below zero.
public struct SequenceNumberUnwrapper: Sendable, Equatable {
    /// The most recent unwrapped value, nil before the first input.
    public private(set) var last: Int64?

    /// A fresh unwrapper.
    public init() {}

    /// The 64-bit value of `sequenceNumber`, nearest to the previously returned value.
    public mutating func unwrap(_ sequenceNumber: UInt16) -> Int64 {
        guard let last else {
            self.last = Int64(sequenceNumber)
            return Int64(sequenceNumber)
        }
        let delta = Int16(bitPattern: sequenceNumber &- UInt16(truncatingIfNeeded: last))
        // |delta| ≤ 2^15 per call, so overflow would need 2^48 calls.
        let value = last + Int64(delta)
        self.last = value
        return value
    }

    /// The value `sequenceNumber` would unwrap to, without updating state.
    public func peek(_ sequenceNumber: UInt16) -> Int64 {
        var copy = self
        return copy.unwrap(sequenceNumber)
    }
}
