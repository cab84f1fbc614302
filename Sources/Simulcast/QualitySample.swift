/// One interval's raw measurements of one direction of a connection (SPEC §4), as taken from
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
