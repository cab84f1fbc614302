public import RTPWire

/// One interval's raw measurements of one direction of a connection (docs/quality-and-speakers.md), as taken from
/// RTCP: loss from receiver reports (RFC 3550 §6.4.1 fraction lost), RTT from LSR/DLSR
/// (RFC 3550 §6.4.1), interarrival jitter (RFC 3550 §6.4.1, converted to milliseconds) and the
/// measured bitrate.
///
/// Inputs are sanitised on construction so grading can never see a NaN: loss is clamped to
/// 0...1 (non-finite → 1, since nothing is known to have arrived), times and bitrate to
/// 0...`maximumMilliseconds` / ≥ 0 (non-finite → the maximum, or 0 for the bitrate).
public struct QualitySample: Sendable, Hashable, Codable {
    /// The largest rtt or jitter kept (one minute): anything longer grades the same.
    public static let maximumMilliseconds = 60_000.0

    /// Fraction of packets lost in the interval, 0...1 (a ratio, not a percentage).
    public var loss: Double
    /// Round-trip time in milliseconds.
    public var rttMilliseconds: Double
    /// Interarrival jitter in milliseconds.
    public var jitterMilliseconds: Double
    /// Bitrate in kilobits per second.
    public var bitrateKbps: Double

    public init(loss: Double, rttMilliseconds: Double, jitterMilliseconds: Double, bitrateKbps: Double) {
        self.loss = loss.isFinite ? min(max(loss, 0), 1) : 1
        self.rttMilliseconds = Self.sanitisedMilliseconds(rttMilliseconds)
        self.jitterMilliseconds = Self.sanitisedMilliseconds(jitterMilliseconds)
        self.bitrateKbps = bitrateKbps.isFinite ? max(bitrateKbps, 0) : 0
    }

    private static func sanitisedMilliseconds(_ value: Double) -> Double {
        value.isFinite ? min(max(value, 0), maximumMilliseconds) : maximumMilliseconds
    }
}

extension QualitySample {
    /// A sample from an RTCP reception report block (RFC 3550 §6.4.1): loss from the 8-bit
    /// fraction lost (`fractionLost / 256`), jitter from RTP timestamp units at `clockRate` Hz
    /// (48 000 for Opus, 90 000 for VP8). RTT (from LSR/DLSR, measured by whoever holds the
    /// NTP clock) and bitrate come from outside the block. A non-positive clock rate gives the
    /// maximum jitter rather than a division by zero.
    public init(reportBlock: ReportBlock, clockRate: Int, rttMilliseconds: Double, bitrateKbps: Double) {
        let jitter = clockRate > 0
            ? Double(reportBlock.interarrivalJitter) * 1_000 / Double(clockRate)
            : QualitySample.maximumMilliseconds
        self.init(loss: Double(reportBlock.fractionLost) / 256, rttMilliseconds: rttMilliseconds,
                  jitterMilliseconds: jitter, bitrateKbps: bitrateKbps)
    }
}
