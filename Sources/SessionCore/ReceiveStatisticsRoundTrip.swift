import RTPWire

/// NTP time helpers for RTCP (RFC 3550 §4): the 64-bit NTP format and its "compact" middle
/// 32 bits (16.16 fixed-point seconds) used by LSR, DLSR and round-trip times.
public enum NTPTime {
    /// Compact (middle 32 bits) form of a 64-bit NTP timestamp (RFC 3550 §6.4.1 LSR).
    public static func compact(_ ntpTimestamp: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: ntpTimestamp >> 16)
    }

    /// A duration in units of 1/65536 s (RFC 3550 §6.4.1 DLSR), saturating at `UInt32.max`.
    public static func compactDuration(microseconds: Int64) -> UInt32 {
        guard microseconds > 0 else { return 0 }
        let units = microseconds / 1_000_000 * 65_536 + microseconds % 1_000_000 * 65_536 / 1_000_000
        return UInt32(clamping: units)
    }

    /// A compact NTP duration in microseconds.
    public static func microseconds(compact units: UInt32) -> Int64 {
        Int64(units) * 1_000_000 / 65_536
    }

    /// A 64-bit NTP timestamp for `microseconds` since the NTP epoch (1900-01-01).
    public static func timestamp(microsecondsSinceEpoch microseconds: Int64) -> UInt64 {
        let value = max(0, microseconds)
        let seconds = UInt64(value / 1_000_000)
        let fraction = UInt64(value % 1_000_000) << 32 / 1_000_000
        return seconds << 32 | fraction
    }

    /// Microseconds since the NTP epoch (1900-01-01) of a 64-bit NTP timestamp: the inverse of
    /// `timestamp(microsecondsSinceEpoch:)` (RFC 3550 §4, 32.32 fixed-point seconds).
    public static func microsecondsSinceEpoch(_ ntpTimestamp: UInt64) -> Int64 {
        let seconds = Int64(ntpTimestamp >> 32)
        let fraction = Int64((ntpTimestamp & 0xFFFF_FFFF) * 1_000_000 >> 32)
        return seconds * 1_000_000 + fraction
    }
}

extension ReceiveStatistics {
    /// Round-trip time seen by a *sender* from a report block about its stream (RFC 3550 §6.4.1,
    /// A.8): RTT = A − LSR − DLSR, all in compact NTP units, where A is the block's arrival time
    /// as compact NTP. Returns microseconds, or nil when the block carries no LSR (no SR received
    /// yet) or the result would be negative (clock trouble).
    public static func roundTripMicroseconds(reportBlock: ReportBlock, arrivalCompactNTP: UInt32) -> Int64? {
        guard reportBlock.lastSenderReport != 0 else { return nil }
        let rtt = arrivalCompactNTP &- reportBlock.lastSenderReport &- reportBlock.delaySinceLastSenderReport
        // A negative value wraps to a huge one; half the 32-bit range (~9 h) is certainly bogus.
        guard rtt < 0x8000_0000 else { return nil }
        return NTPTime.microseconds(compact: rtt)
    }
}
