/// How long a forwarding node holds what it forwards: from a datagram's arrival at the node's
/// UDP socket (the kernel's stamp, `SO_TIMESTAMPNS`) to each send it causes (`sendto` of the
/// forwarded packet to a subscriber), in a histogram of 1 µs bins up to 20 ms (later ones in the
/// last bin). Attached to a node's `UDPAndTCPTransport` (`forwardLatency`) by a benchmark; it
/// costs a clock read per send and nothing when absent. Recording allocates nothing.
public final class ForwardLatencyProbe {
    static let binCount = 20_001
    private var bins = [Int](repeating: 0, count: ForwardLatencyProbe.binCount)
    /// Sends recorded.
    public private(set) var count = 0

    public init() {}

    /// Records one send `nanoseconds` after its datagram arrived.
    func record(nanoseconds: Int64) {
        let microseconds = Int(clamping: max(0, nanoseconds) / 1000)
        bins[min(microseconds, Self.binCount - 1)] += 1
        count += 1
    }

    /// The `fraction` quantile (0.5: the median) in milliseconds, to the µs; nil before any send.
    public func quantileMilliseconds(_ fraction: Double) -> Double? {
        guard count > 0 else { return nil }
        let rank = max(1, Int((Double(count) * min(1, max(0, fraction))).rounded(.up)))
        var seen = 0
        for (microseconds, binCount) in bins.enumerated() {
            seen += binCount
            if seen >= rank { return Double(microseconds) / 1000 }
        }
        return Double(Self.binCount - 1) / 1000
    }

    /// Forgets what was recorded (a warm-up's sends).
    public func reset() {
        for index in bins.indices { bins[index] = 0 }
        count = 0
    }
}
