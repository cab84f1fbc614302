import Glibc

/// The two clocks the publish path reads, injected so tests control time (ARCHITECTURE: nothing
/// reads a clock a test cannot inject).
public struct PublisherClock {
    /// Monotonic microseconds on any epoch: abs-send-time, RTCP intervals, key-frame throttling.
    public var monotonicMicroseconds: () -> UInt64
    /// Wall-clock microseconds since the Unix epoch: SR NTP timestamps (RFC 3550 §6.4.1) and pcap.
    public var wallMicroseconds: () -> UInt64

    /// A clock from two closures.
    public init(monotonicMicroseconds: @escaping () -> UInt64, wallMicroseconds: @escaping () -> UInt64) {
        self.monotonicMicroseconds = monotonicMicroseconds
        self.wallMicroseconds = wallMicroseconds
    }

    /// `CLOCK_MONOTONIC` and `CLOCK_REALTIME`.
    public static var system: PublisherClock {
        PublisherClock(monotonicMicroseconds: { read(CLOCK_MONOTONIC) }, wallMicroseconds: { read(CLOCK_REALTIME) })
    }

    private static func read(_ id: clockid_t) -> UInt64 {
        var ts = timespec()
        clock_gettime(id, &ts)
        return UInt64(max(0, ts.tv_sec)) * 1_000_000 + UInt64(max(0, ts.tv_nsec)) / 1000
    }

    /// Seconds between the NTP epoch (1900) and the Unix epoch (1970), RFC 868.
    static let ntpUnixOffsetSeconds: UInt64 = 2_208_988_800

    /// 64-bit NTP timestamp (RFC 3550 §4) of `unixMicroseconds`.
    public static func ntpTimestamp(unixMicroseconds: UInt64) -> UInt64 {
        let seconds = unixMicroseconds / 1_000_000 + ntpUnixOffsetSeconds
        let micros = unixMicroseconds % 1_000_000
        // micros < 1e6 < 2^20, so micros << 32 < 2^52: no overflow.
        let fraction = (micros << 32) / 1_000_000
        return seconds << 32 | fraction
    }
}
