/// How good a connection is (docs/quality-and-speakers.md). Ordered by badness:
/// `unknown < excellent < good < poor < lost`, so the worse of two levels is `max(a, b)`.
public enum ConnectionQualityLevel: Int, Sendable, Hashable, Comparable, CaseIterable, Codable {
    /// No report yet (cold start, or just reconnected).
    case unknown = 0
    /// Transparent call quality.
    case excellent = 1
    /// Noticeable but minor impairment.
    case good = 2
    /// Clearly degraded.
    case poor = 3
    /// Nothing usable arrives: reports stopped, or most packets are lost.
    case lost = 4

    public static func < (lhs: ConnectionQualityLevel, rhs: ConnectionQualityLevel) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

/// Where one level ends and the next begins, and how wide the hysteresis band around each
/// boundary is.
///
/// Raw grading of one sample (`level(mos:loss:)`):
/// - `lost` when loss ≥ `lostLoss` (default 0.5: half the packets gone; the E-model has
///   already bottomed out at MOS 1.0 from 37 % loss, so MOS cannot separate "poor" from "gone");
/// - otherwise `excellent` when MOS ≥ `excellentMOS` (default 4.3), `good` when MOS ≥
///   `goodMOS` (default 3.6), else `poor`.
///
/// With `MeanOpinionScore`'s model, rtt 20 ms and jitter 5 ms, that puts the loss boundaries at
/// about 1.6 % (excellent → good) and 9 % (good → poor); with no loss, rtt alone costs
/// "excellent" from about 300 ms.
/// The bands follow ITU-T G.109's user-satisfaction categories of the R rating: excellent ≈
/// "very satisfied" (R ≥ 90 ↔ MOS 4.34; 4.3 ↔ R ≈ 88.5, a little slack so a clean link with some
/// rtt still qualifies), good = "satisfied" and "some users dissatisfied" (R 70...90), poor =
/// "many users dissatisfied" and worse (R < 70 ↔ MOS < 3.6).
public struct ConnectionQualityThresholds: Sendable, Hashable {
    /// Lowest MOS still graded excellent.
    public var excellentMOS: Double
    /// Lowest MOS still graded good.
    public var goodMOS: Double
    /// Loss ratio from which a sample is graded lost.
    public var lostLoss: Double
    /// Half-width of the hysteresis band around each MOS boundary. Kept small (default 0.05)
    /// because the model's ceiling is only ~4.41: recovering to excellent needs MOS ≥ 4.35.
    public var mosMargin: Double
    /// Half-width of the hysteresis band around `lostLoss`.
    public var lossMargin: Double

    public init(excellentMOS: Double = 4.3, goodMOS: Double = 3.6, lostLoss: Double = 0.5,
                mosMargin: Double = 0.05, lossMargin: Double = 0.05) {
        self.excellentMOS = excellentMOS
        self.goodMOS = goodMOS
        self.lostLoss = lostLoss
        // A negative margin would invert the band and make every boundary flap.
        self.mosMargin = mosMargin.isFinite ? max(mosMargin, 0) : 0
        self.lossMargin = lossMargin.isFinite ? max(lossMargin, 0) : 0
    }

    /// The level of one sample with no hysteresis.
    public func level(mos: Double, loss: Double) -> ConnectionQualityLevel {
        if loss >= lostLoss { return .lost }
        if mos >= excellentMOS { return .excellent }
        if mos >= goodMOS { return .good }
        return .poor
    }

    /// The level of one sample with no hysteresis.
    public func level(_ sample: QualitySample) -> ConnectionQualityLevel {
        level(mos: MeanOpinionScore(sample).value, loss: sample.loss)
    }
}
