import SessionCore
/// The path from a `ForwardingNode` to one subscriber, between protection and the socket: where
/// a demo or a test shapes or impairs what the subscriber gets (a throttled downlink, loss,
/// reordering). The node hands every protected datagram (media and retransmissions) to
/// `transmit`, which calls `deliver` for what actually goes out, now or at a later `flush`.
public protocol ForwardingLink: AnyObject {
    /// Offers one protected datagram at `nowMilliseconds`.
    func transmit(_ datagram: ArraySlice<UInt8>, nowMilliseconds: Int64, deliver: (ArraySlice<UInt8>) -> Void)
    /// Releases anything held back (e.g. for reordering); called every node service.
    func flush(nowMilliseconds: Int64, deliver: (ArraySlice<UInt8>) -> Void)
    /// When `flush` next releases something held back (monotonic ms; nil: nothing is held), so
    /// the node's next deadline includes it.
    var nextReleaseMilliseconds: Int64? { get }
}

extension ForwardingLink {
    /// Default: nothing is ever held back.
    public func flush(nowMilliseconds: Int64, deliver: (ArraySlice<UInt8>) -> Void) {}
    /// A link that holds nothing back.
    public var nextReleaseMilliseconds: Int64? { nil }
}

/// A downlink with a rate limit that can change during a call: a `TokenBucket` policer that drops
/// what exceeds the rate, so the subscriber sees real loss and its REMB estimate falls.
public final class ThrottledLink: ForwardingLink {
    private var bucket: TokenBucket
    /// Datagrams and bytes let through and dropped.
    public private(set) var delivered = 0
    public private(set) var dropped = 0
    public private(set) var droppedBytes = 0

    /// - Parameters:
    ///   - bitsPerSecond: the initial rate (nil: unlimited).
    ///   - burstBytes: the bucket depth.
    public init(bitsPerSecond: Int? = nil, burstBytes: Int = 15_000) {
        bucket = TokenBucket(bitsPerSecond: bitsPerSecond, burstBytes: burstBytes)
    }

    /// The current rate (nil: unlimited).
    public var bitsPerSecond: Int? { bucket.bitsPerSecond }

    /// Changes the rate from `nowMilliseconds` on (nil: unlimited).
    public func setRate(bitsPerSecond: Int?, nowMilliseconds: Int64) {
        bucket.setRate(bitsPerSecond: bitsPerSecond, nowMilliseconds: nowMilliseconds)
    }

    public func transmit(_ datagram: ArraySlice<UInt8>, nowMilliseconds: Int64,
                         deliver: (ArraySlice<UInt8>) -> Void) {
        if bucket.admit(bytes: datagram.count, nowMilliseconds: nowMilliseconds) {
            delivered += 1
            deliver(datagram)
        } else {
            dropped += 1
            droppedBytes += datagram.count
        }
    }
}
