/// The send-side estimate of a link (draft-ietf-rmcat-gcc-02): transport-wide feedback in, a
/// target bitrate out. Delay-based (`TrendlineEstimator` → `OveruseDetector` →
/// `AIMDRateController`, on the acknowledged rate) and loss-based (`LossBasedRateControl` on the
/// loss the feedback reports, less the link's own loss: `InherentLossEstimator`, told of
/// queueing by the delay-based detector's over-use; a collapse of the delivery moves it at once);
/// the target is the lower of the two, within the configured floor
/// and ceiling whatever the feedback says. Probe clusters (`ProbeBitrateEstimator`) lift both
/// when they prove the link carries more. Time is a parameter; no I/O.
public struct SendSideBandwidthEstimator: Sendable {
    public struct Configuration: Sendable, Equatable {
        public var initialBitsPerSecond: UInt64
        public var minimumBitsPerSecond: UInt64
        public var maximumBitsPerSecond: UInt64

        public init(initialBitsPerSecond: UInt64 = 300_000, minimumBitsPerSecond: UInt64 = 30_000,
                    maximumBitsPerSecond: UInt64 = 20_000_000) {
            self.minimumBitsPerSecond = minimumBitsPerSecond
            self.maximumBitsPerSecond = max(minimumBitsPerSecond, maximumBitsPerSecond)
            self.initialBitsPerSecond = min(max(initialBitsPerSecond, minimumBitsPerSecond), self.maximumBitsPerSecond)
        }
    }

    public let configuration: Configuration
    private var trendline = TrendlineEstimator()
    private var detector = OveruseDetector()
    private var rateControl: AIMDRateController
    private var lossControl: LossBasedRateControl
    private var acknowledged = ByteRateWindow(windowMilliseconds: 500, bucketCount: 10)
    private var lastSendMicroseconds: Int64?
    /// The latest arrival time reported (the receiver's clock: acknowledged rates are measured on it).
    private var latestArrivalMilliseconds: Int64?
    /// What feedback was dropped as impossible (arrival before send by more than a second of
    /// clock offset is fine; sizes out of range, send times far from the last are not).
    public private(set) var implausibleResults = 0
    private var probes = ProbeBitrateEstimator()
    /// What the last probe cluster measured, and when the link last showed over-use (ms).
    public private(set) var lastProbeBitsPerSecond: UInt64?
    public private(set) var lastOveruseMilliseconds: Int64?
    /// Loss reported since the loss-based controller last moved (it moves at most every
    /// `lossIntervalMilliseconds`, on at least 20 packets: feedback every 50 ms must not cut the
    /// rate twenty times a second for one loss episode), and in the previous report alone.
    private var lossWindow = LossTally(), previousReport = LossTally()
    private var lastLossUpdateMilliseconds: Int64?
    static let lossIntervalMilliseconds: Int64 = 300
    /// Loss over this share of at least 20 packets in the last two reports (about 100 ms) is a
    /// collapse (a policer, a link that just lost most of its capacity): the controller moves at
    /// once, down to what got through meanwhile, without waiting for the interval, so a
    /// forwarding node moves its subscriber down to a layer that fits in one step, within about
    /// a feedback interval. (Random loss of 15 % reaches it on 20 packets about once in 10⁵.)
    static let collapseLossFraction = 0.5
    /// Over this loss the controller backs off (`LossBasedRateControl`'s high-loss threshold) to
    /// at most what the packets counted delivered.
    static let heavyLossFraction = 0.1
    /// Over-use within this long counts as queueing for the loss-based controller.
    static let queueingMemoryMilliseconds: Int64 = 1_000
    /// Probe clusters measured so far.
    public var probeResults: Int { probes.results }

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        rateControl = AIMDRateController(initialBitsPerSecond: Double(configuration.initialBitsPerSecond),
                                         minimumBitsPerSecond: Double(configuration.minimumBitsPerSecond),
                                         maximumBitsPerSecond: Double(configuration.maximumBitsPerSecond))
        lossControl = LossBasedRateControl(configuration: .init(
            initialBitsPerSecond: configuration.maximumBitsPerSecond, minimumBitsPerSecond: configuration.minimumBitsPerSecond,
            maximumBitsPerSecond: configuration.maximumBitsPerSecond, increasePerSecond: 0.08))
    }

    /// The target bitrate.
    public var targetBitsPerSecond: UInt64 {
        let target = min(UInt64(rateControl.bitsPerSecond), lossControl.bitsPerSecond)
        return min(max(target, configuration.minimumBitsPerSecond), configuration.maximumBitsPerSecond)
    }

    /// The delay-based detector's latest signal.
    public var signal: OveruseDetector.Signal { detector.signal }

    /// Takes one feedback report's results (in send order) at `nowMilliseconds`; returns the
    /// target. A probe cluster measured in it is in `lastProbeBitsPerSecond`.
    @discardableResult
    public mutating func update(_ results: [PacketResult], roundTripMilliseconds: Double = 100,
                                nowMilliseconds: Int64) -> UInt64 {
        var report = LossTally()
        for result in results {
            guard (1...65_535).contains(result.bytes),
                  lastSendMicroseconds.map({ abs(result.sendMicroseconds - $0) < 60_000_000 }) ?? true else {
                implausibleResults += 1
                continue
            }
            lastSendMicroseconds = result.sendMicroseconds
            report.add(sendMicroseconds: result.sendMicroseconds, bytes: result.bytes, arrived: result.arrivalMicroseconds != nil)
            guard let arrival = result.arrivalMicroseconds else { continue }
            probes.add(result)
            latestArrivalMilliseconds = max(latestArrivalMilliseconds ?? .min, arrival / 1000)
            acknowledged.add(bytes: result.bytes, nowMilliseconds: arrival / 1000)
            // Probe clusters are sent faster than the estimate on purpose: the queue they build
            // for a few milliseconds is their measurement, not a sign of congestion.
            if result.probeCluster == nil,
               trendline.add(sendMicroseconds: result.sendMicroseconds, arrivalMicroseconds: arrival) {
                detector.update(trend: trendline.trend, deltaMilliseconds: trendline.lastDeltaMilliseconds,
                                nowMilliseconds: Double(arrival) / 1000)
            }
        }
        if detector.signal == .overuse { lastOveruseMilliseconds = nowMilliseconds }
        if let probed = probes.measured() {
            lastProbeBitsPerSecond = probed
            rateControl.raise(to: Double(probed))
            lossControl.raise(to: probed)
        }
        let ackedRate = latestArrivalMilliseconds.map { acknowledged.bitsPerSecond(nowMilliseconds: $0) } ?? 0
        rateControl.update(signal: detector.signal, acknowledgedBitsPerSecond: ackedRate > 0 ? Double(ackedRate) : nil,
                           roundTripMilliseconds: roundTripMilliseconds, nowMilliseconds: Double(nowMilliseconds))
        lossWindow = lossWindow.merged(with: report)
        let recent = previousReport.merged(with: report)
        previousReport = report
        let collapse = recent.packets >= 20 && recent.lossFraction > Self.collapseLossFraction
        if collapse || lossWindow.packets >= 20
            && lastLossUpdateMilliseconds.map({ nowMilliseconds - $0 >= Self.lossIntervalMilliseconds }) ?? true {
            let counted = collapse ? recent : lossWindow
            // On heavy loss, at most what the counted packets delivered: the window's acknowledged
            // rate still holds the time before a squeeze.
            var delivered = ackedRate
            if counted.lossFraction > Self.heavyLossFraction, let through = counted.deliveredBitsPerSecond {
                delivered = min(delivered, through)
            }
            let queueing = lastOveruseMilliseconds.map { nowMilliseconds - $0 < Self.queueingMemoryMilliseconds } ?? false
            lossControl.update(lossFraction: counted.lossFraction, deliveredBitsPerSecond: delivered > 0 ? delivered : nil,
                               nowMilliseconds: nowMilliseconds, packets: counted.packets, queueing: queueing)
            (lossWindow, lastLossUpdateMilliseconds) = (LossTally(), nowMilliseconds)
            if collapse { previousReport = LossTally() }  // one collapse moves it once
        }
        return targetBitsPerSecond
    }
}
