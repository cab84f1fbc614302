/// Extends wrapping RTP counters to a monotonic 64-bit count: 16-bit sequence numbers and 32-bit
/// timestamps (RFC 3550 §5.1; wrap handling as in Appendix A.1).
///
/// Each input is placed at the 64-bit value nearest to the previous output (a difference of at
/// most half the counter's range either way), so reordered packets on either side of a wrap get
/// the right value. The first input maps to itself; a packet older than the first may map below zero.
public struct Unwrapper<Wrapped: FixedWidthInteger & UnsignedInteger & Sendable>: Sendable, Equatable {
    /// The most recent unwrapped value, nil before the first input.
    public var last: Int64? { latest }
    /// Storage of `last`, settable by the inlinable `unwrap`.
    @usableFromInline var latest: Int64?

    /// A fresh unwrapper.
    public init() {}

    /// The 64-bit value of `value`, nearest to the previously returned value. Inlinable: every
    /// packet of every receive path goes through it, and a generic call across modules would
    /// run the arithmetic through protocol witnesses.
    @inlinable
    public mutating func unwrap(_ value: Wrapped) -> Int64 {
        guard let last = latest else {
            latest = Int64(value)
            return Int64(value)
        }
        let forward = value &- Wrapped(truncatingIfNeeded: last)
        let half = Wrapped(1) << (Wrapped.bitWidth - 1)
        // Wrapped is at most 32 bits wide here, so 1 << bitWidth fits an Int64; |delta| ≤ 2^31 per
        // call, so `last + delta` would need 2^32 maximal steps to overflow.
        let delta = forward < half ? Int64(forward) : Int64(forward) - (Int64(1) << Wrapped.bitWidth)
        let unwrapped = last + delta
        latest = unwrapped
        return unwrapped
    }

    /// The value `value` would unwrap to, without updating state.
    @inlinable
    public func peek(_ value: Wrapped) -> Int64 {
        var copy = self
        return copy.unwrap(value)
    }
}

/// 16-bit RTP sequence numbers (RFC 3550 §5.1) to 64 bits.
public typealias SequenceNumberUnwrapper = Unwrapper<UInt16>
/// 32-bit RTP timestamps (RFC 3550 §5.1) to 64 bits.
public typealias TimestampUnwrapper = Unwrapper<UInt32>
