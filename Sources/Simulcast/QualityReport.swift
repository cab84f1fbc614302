/// One direction of a quality report (docs/quality-and-speakers.md): the interval's measurements with their grade.
public struct QualityReportSample: Sendable, Hashable, Codable {
    /// The level after hysteresis (see `ConnectionQualityMonitor`).
    public var level: ConnectionQualityLevel
    /// `MeanOpinionScore.score`, 0...100.
    public var score: Int
    /// `MeanOpinionScore.value`, 1.0...4.5.
    public var mos: Double
    /// Loss ratio 0...1.
    public var loss: Double
    /// Round-trip time, ms.
    public var rttMilliseconds: Double
    /// Interarrival jitter, ms.
    public var jitterMilliseconds: Double
    /// Bitrate, kbps.
    public var bitrateKbps: Double

    public init(level: ConnectionQualityLevel, score: Int, mos: Double, loss: Double,
                rttMilliseconds: Double, jitterMilliseconds: Double, bitrateKbps: Double) {
        self.level = level
        self.score = score
        self.mos = mos
        self.loss = loss
        self.rttMilliseconds = rttMilliseconds
        self.jitterMilliseconds = jitterMilliseconds
        self.bitrateKbps = bitrateKbps
    }

    /// A measured sample with its estimate and the given (hysteresis-filtered) level.
    public init(_ sample: QualitySample, level: ConnectionQualityLevel) {
        let estimate = MeanOpinionScore(sample)
        self.init(level: level, score: estimate.score, mos: estimate.value, loss: sample.loss,
                  rttMilliseconds: sample.rttMilliseconds, jitterMilliseconds: sample.jitterMilliseconds,
                  bitrateKbps: sample.bitrateKbps)
    }

    /// What an interval in which nothing arrived looks like: level lost, MOS 1.0, score 0, all
    /// packets lost, no bitrate; rtt and jitter keep their last known values.
    public func nothingArrived() -> QualityReportSample {
        QualityReportSample(level: .lost, score: 0, mos: MeanOpinionScore.minimum, loss: 1,
                            rttMilliseconds: rttMilliseconds, jitterMilliseconds: jitterMilliseconds,
                            bitrateKbps: 0)
    }
}

/// A connection's quality for one interval (docs/quality-and-speakers.md): uplink (what this side publishes, as
/// the far end reports it) and downlink (what this side receives).
public struct QualityReport: Sendable, Hashable, Codable {
    /// The publish direction.
    public var uplink: QualityReportSample
    /// The subscribe direction.
    public var downlink: QualityReportSample

    public init(uplink: QualityReportSample, downlink: QualityReportSample) {
        self.uplink = uplink
        self.downlink = downlink
    }

    /// The worse of the two levels.
    public var overall: ConnectionQualityLevel { max(uplink.level, downlink.level) }
    /// The smaller of the two MOS values.
    public var mos: Double { min(uplink.mos, downlink.mos) }
}

/// Emitted only when a connection's overall level changes (docs/quality-and-speakers.md).
public struct ConnectionQualityChange: Sendable, Hashable, Codable {
    /// The overall level before: `.unknown` on the first change (and the first after a reconnect).
    public var previous: ConnectionQualityLevel
    /// The report that caused the change.
    public var current: QualityReport
    /// The new overall level: the worse of uplink and downlink (`current.overall`).
    public var overall: ConnectionQualityLevel
    /// The smaller of the uplink and downlink MOS (`current.mos`).
    public var mos: Double

    public init(previous: ConnectionQualityLevel, current: QualityReport) {
        self.previous = previous
        self.current = current
        overall = current.overall
        mos = current.mos
    }
}

/// What one interval produced: the report (emitted every interval) and, when the overall level
/// changed, the change event.
public struct ConnectionQualityUpdate: Sendable, Hashable {
    /// This interval's report.
    public var report: QualityReport
    /// Non-nil only when the overall level changed.
    public var change: ConnectionQualityChange?

    public init(report: QualityReport, change: ConnectionQualityChange?) {
        self.report = report
        self.change = change
    }
}
