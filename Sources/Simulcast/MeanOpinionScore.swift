/// An estimate of perceived call quality on the 1.0...4.5 MOS scale, from the simplified ITU-T
/// G.107 E-model commonly used for VoIP monitoring (Cole & Rosenbluth, "Voice over IP
/// performance monitoring", 2001):
///
/// 1. Effective latency `Le = rtt/2 + 2·jitter + 10` ms (one-way delay, a jitter buffer sized
///    at twice the jitter, 10 ms of codec delay).
/// 2. Delay impairment `Id = Le/40` when `Le < 160` ms, else `(Le − 120)/10` (the knee where
///    conversation starts to suffer).
/// 3. Loss impairment `Ie = 2.5 · loss%` (loss in percent).
/// 4. `R = 93.2 − Id − Ie`, clamped to 0...100 (93.2 is G.107's default R with no impairment).
/// 5. `MOS = 1 + 0.035·R + 7·10⁻⁶·R·(R − 60)·(100 − R)`, clamped to 1.0...4.5 (G.107 Annex B).
///
/// `score` maps the MOS linearly onto 0...100: `round((MOS − 1) / 3.5 · 100)`.
///
/// Reference points (jitter 5 ms): loss 0 %, rtt 20 ms → 4.39; loss 3 %, rtt 100 ms → 4.16;
/// loss 15 %, rtt 20 ms → 2.84; loss ≥ 37.3 % → 1.0.
public struct MeanOpinionScore: Sendable, Hashable, Codable {
    /// The lowest MOS (unusable).
    public static let minimum = 1.0
    /// The highest MOS this model gives (G.107's ceiling for narrow-band equivalents).
    public static let maximum = 4.5

    /// The MOS, 1.0...4.5.
    public let value: Double
    /// The E-model transmission rating R, 0...100, the MOS was computed from.
    public let rFactor: Double

    /// The MOS for a given rating R (G.107 Annex B), R clamped to 0...100.
    public init(rFactor: Double) {
        let r = rFactor.isFinite ? min(max(rFactor, 0), 100) : 0
        self.rFactor = r
        let mos = 1 + 0.035 * r + 7e-6 * r * (r - 60) * (100 - r)
        value = min(max(mos, Self.minimum), Self.maximum)
    }

    /// The estimate for one interval's measurements.
    public init(_ sample: QualitySample) {
        let effectiveLatency = sample.rttMilliseconds / 2 + 2 * sample.jitterMilliseconds + 10
        let delayImpairment = effectiveLatency < 160 ? effectiveLatency / 40 : (effectiveLatency - 120) / 10
        let lossImpairment = 2.5 * (sample.loss * 100)
        self.init(rFactor: 93.2 - delayImpairment - lossImpairment)
    }

    /// The MOS mapped linearly onto 0...100 (1.0 → 0, 4.5 → 100).
    public var score: Int {
        Int(((value - Self.minimum) / (Self.maximum - Self.minimum) * 100).rounded())
    }
}
