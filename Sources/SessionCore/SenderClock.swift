import RTPWire

/// A sender's clock as its last RTCP sender report states it (RFC 3550 §6.4.1: the report pairs
/// an NTP wallclock with the RTP time of the same instant), so any RTP time of that stream maps
/// onto the sender's wallclock: the presentation time an app lines audio and video up by.
public struct SenderClock: Sendable, Equatable {
    /// The report's NTP timestamp (64-bit NTP format).
    public var ntpTimestamp: UInt64
    /// The report's RTP timestamp.
    public var rtpTimestamp: UInt32
    /// The stream's RTP clock rate (90,000 for video, 48,000 for Opus).
    public var clockRate: Int

    public init(report: SenderReport, clockRate: Int) {
        ntpTimestamp = report.ntpTimestamp
        rtpTimestamp = report.rtpTimestamp
        self.clockRate = clockRate
    }

    /// The sender's wallclock of RTP time `rtpTimestamp`, µs since the NTP epoch (1900): the
    /// report's time plus the signed RTP distance (modulo 2^32, so a timestamp up to half the
    /// RTP range before or after the report maps) at `clockRate`.
    public func microsecondsSinceEpoch(ofRTPTimestamp rtpTimestamp: UInt32) -> Int64 {
        let ticks = Int64(Int32(bitPattern: rtpTimestamp &- self.rtpTimestamp))
        return NTPTime.microsecondsSinceEpoch(ntpTimestamp) + ticks * 1_000_000 / Int64(max(clockRate, 1))
    }
}
