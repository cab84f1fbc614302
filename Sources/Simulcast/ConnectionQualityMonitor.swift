/// Turns one connection's per-interval measurements into quality reports and level-change events
/// (docs/quality-and-speakers.md). Pure state: the caller calls `record` (or `recordMissedInterval`) once per interval.
///
/// Each direction (uplink, downlink) keeps its own level, filtered by two kinds of hysteresis:
/// - A band around every boundary (`ConnectionQualityThresholds.mosMargin`, `lossMargin`): a
///   level improves only when the sample clears the boundary by the margin (MOS ≥ threshold +
///   margin), and worsens only when it falls below it by the margin (MOS < threshold − margin).
///   A value jittering within ±margin of a boundary therefore never changes the level.
/// - Confirmation: an improvement must be seen in `reportsToImprove` consecutive reports
///   (default 2), a degradation in `reportsToWorsen` (default 1). Degrading fast and recovering
///   slowly means a brief good spell during a bad period does not announce a recovery; the
///   improvement applied is the smallest one seen during the streak.
/// The first report of a direction is graded with no hysteresis (there is nothing to hold).
///
/// `lost`: a sample with loss ≥ `lostLoss` grades lost like any other level, and
/// `missedIntervalsUntilLost` consecutive intervals with no report at all (default 3) make both
/// directions lost at once.
///
/// A change event is emitted only when the overall level (the worse of the two directions)
/// changes; `previous` is `.unknown` the first time. `reconnected()` forgets everything, so
/// `connectionQuality()` is nil again and the next change starts from `.unknown`.
public struct ConnectionQualityMonitor: Sendable {
    /// Tuning.
    public struct Configuration: Sendable, Hashable {
        /// Level boundaries and hysteresis bands.
        public var thresholds: ConnectionQualityThresholds
        /// Consecutive reports that must show an improvement before it is applied (≥ 1).
        public var reportsToImprove: Int
        /// Consecutive reports that must show a degradation before it is applied (≥ 1).
        public var reportsToWorsen: Int
        /// Consecutive intervals without a report after which the connection is lost (≥ 1).
        public var missedIntervalsUntilLost: Int

        public init(thresholds: ConnectionQualityThresholds = .init(), reportsToImprove: Int = 2,
                    reportsToWorsen: Int = 1, missedIntervalsUntilLost: Int = 3) {
            self.thresholds = thresholds
            self.reportsToImprove = max(1, reportsToImprove)
            self.reportsToWorsen = max(1, reportsToWorsen)
            self.missedIntervalsUntilLost = max(1, missedIntervalsUntilLost)
        }
    }

    /// The tuning in use.
    public let configuration: Configuration
    private var uplink = LevelFilter()
    private var downlink = LevelFilter()
    private var latest: QualityReport?
    private var missedIntervals = 0

    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// The latest report; nil before the first one and right after `reconnected()`.
    public func connectionQuality() -> QualityReport? { latest }

    /// Records one interval's measurements of both directions.
    public mutating func record(uplink uplinkSample: QualitySample,
                                downlink downlinkSample: QualitySample) -> ConnectionQualityUpdate {
        missedIntervals = 0
        let uplinkLevel = uplink.update(with: uplinkSample, configuration)
        let downlinkLevel = downlink.update(with: downlinkSample, configuration)
        return publish(QualityReport(uplink: QualityReportSample(uplinkSample, level: uplinkLevel),
                                     downlink: QualityReportSample(downlinkSample, level: downlinkLevel)))
    }

    /// Records an interval in which no report (no RTCP, no packets) arrived. Nil before the first
    /// report (a connection never heard from stays unknown). Until `missedIntervalsUntilLost`
    /// consecutive misses the last report is repeated unchanged; from then on both directions are
    /// lost (`QualityReportSample.nothingArrived()`).
    public mutating func recordMissedInterval() -> ConnectionQualityUpdate? {
        guard let last = latest else { return nil }
        missedIntervals += 1
        guard missedIntervals >= configuration.missedIntervalsUntilLost else {
            return ConnectionQualityUpdate(report: last, change: nil)
        }
        uplink.force(.lost)
        downlink.force(.lost)
        return publish(QualityReport(uplink: last.uplink.nothingArrived(), downlink: last.downlink.nothingArrived()))
    }

    /// The connection was re-established: forget all history.
    public mutating func reconnected() {
        self = ConnectionQualityMonitor(configuration: configuration)
    }

    private mutating func publish(_ report: QualityReport) -> ConnectionQualityUpdate {
        let previous = latest?.overall ?? .unknown
        latest = report
        let change = report.overall == previous ? nil : ConnectionQualityChange(previous: previous, current: report)
        return ConnectionQualityUpdate(report: report, change: change)
    }
}

/// One direction's level with the band and confirmation hysteresis described on
/// `ConnectionQualityMonitor`.
private struct LevelFilter: Sendable {
    var level: ConnectionQualityLevel = .unknown
    /// The level a streak of reports is moving towards, and how long the streak is.
    var pending: ConnectionQualityLevel?
    var pendingCount = 0

    mutating func update(with sample: QualitySample, _ configuration: ConnectionQualityMonitor.Configuration) -> ConnectionQualityLevel {
        let thresholds = configuration.thresholds
        let mos = MeanOpinionScore(sample).value
        guard level != .unknown else {
            force(thresholds.level(mos: mos, loss: sample.loss))
            return level
        }
        // Grading the sample as slightly worse than it is tells whether it clears a boundary
        // upwards by the margin; grading it as slightly better, whether it falls below one.
        let pessimistic = thresholds.level(mos: mos - thresholds.mosMargin, loss: sample.loss + thresholds.lossMargin)
        let optimistic = thresholds.level(mos: mos + thresholds.mosMargin, loss: sample.loss - thresholds.lossMargin)
        let candidate: ConnectionQualityLevel
        if pessimistic < level {
            candidate = pessimistic
        } else if optimistic > level {
            candidate = optimistic
        } else {
            candidate = level
        }
        guard candidate != level else {
            pending = nil
            pendingCount = 0
            return level
        }
        let improving = candidate < level
        if let streak = pending, (streak < level) == improving {
            // Same direction as the running streak: keep the smallest move seen.
            pending = improving ? max(streak, candidate) : min(streak, candidate)
            pendingCount += 1
        } else {
            pending = candidate
            pendingCount = 1
        }
        let needed = improving ? configuration.reportsToImprove : configuration.reportsToWorsen
        if pendingCount >= needed, let target = pending {
            force(target)
        }
        return level
    }

    mutating func force(_ newLevel: ConnectionQualityLevel) {
        level = newLevel
        pending = nil
        pendingCount = 0
    }
}
