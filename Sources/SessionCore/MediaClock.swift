import Glibc

/// The one clock every endpoint reads (ARCHITECTURE: nothing reads a clock a test cannot
/// inject): monotonic time for pacing, intervals, jitter and timeouts, and wall time for the NTP
/// timestamps of sender reports (RFC 3550 §4, §6.4.1). Both in microseconds.
///
/// Not `Sendable` (the closures need not be): an endpoint and its clock share a thread.
public struct MediaClock {
    /// Microseconds on a monotonic clock of any epoch.
    public var monotonicMicroseconds: () -> Int64
    /// Microseconds since the Unix epoch.
    public var wallMicroseconds: () -> Int64

    /// Microseconds between the NTP epoch (1900) and the Unix epoch (1970): RFC 868's 2,208,988,800 s.
    public static let ntpUnixOffsetMicroseconds: Int64 = 2_208_988_800 * 1_000_000

    public init(monotonicMicroseconds: @escaping () -> Int64, wallMicroseconds: @escaping () -> Int64) {
        self.monotonicMicroseconds = monotonicMicroseconds
        self.wallMicroseconds = wallMicroseconds
    }

    /// A clock whose wall time moves with `monotonicMicroseconds` (tests, simulations): the wall
    /// clock reads `wallAtZero` plus the monotonic reading.
    public init(wallAtZero: Int64 = 1_780_000_000_000_000, monotonicMicroseconds: @escaping () -> Int64) {
        self.monotonicMicroseconds = monotonicMicroseconds
        wallMicroseconds = { wallAtZero + monotonicMicroseconds() }
    }

    /// `CLOCK_MONOTONIC` and `CLOCK_REALTIME` (clock_gettime).
    public static var system: MediaClock {
        MediaClock(monotonicMicroseconds: { read(CLOCK_MONOTONIC) }, wallMicroseconds: { read(CLOCK_REALTIME) })
    }

    private static func read(_ id: clockid_t) -> Int64 {
        var now = timespec()
        clock_gettime(id, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }

    /// Monotonic milliseconds.
    public func monotonicMilliseconds() -> Int64 { monotonicMicroseconds() / 1000 }

    /// The wall clock now as a 64-bit NTP timestamp (RFC 3550 §4).
    public func ntpTimestamp() -> UInt64 {
        NTPTime.timestamp(microsecondsSinceEpoch: wallMicroseconds() + Self.ntpUnixOffsetMicroseconds)
    }
}
