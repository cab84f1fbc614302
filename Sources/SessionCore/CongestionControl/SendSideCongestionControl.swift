import RTPWire

/// Everything one sender keeps for the transport-wide congestion control of one transport
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01, draft-ietf-rmcat-gcc-02): what left under
/// each transport-wide sequence number (`TransportFeedbackAdapter`), the estimate the feedback
/// drives (`SendSideBandwidthEstimator`) and when to probe above it (`ProbeController`), with
/// media that leaves during a probe cluster counted towards it. A publisher keeps one for its
/// uplink; a forwarding node keeps one per subscriber it sends to. Numbering the packets is the
/// sender's (one counter per transport). Time is a parameter; no I/O.
public struct SendSideCongestionControl: Sendable {
    public private(set) var estimator: SendSideBandwidthEstimator
    private var adapter: TransportFeedbackAdapter
    private var probes: ProbeController
    private var probeResultsTaken = 0
    /// The probe cluster media packets leaving now belong to, and the media bytes sent in it
    /// that the controller has not counted yet.
    public private(set) var activeProbeCluster: Int?
    private var uncountedProbeMediaBytes = 0
    /// Feedback reports taken, and of those the ones that reported at least one known packet.
    public private(set) var feedbacksReceived = 0
    public private(set) var feedbacksUsed = 0

    public init(estimation: SendSideBandwidthEstimator.Configuration = .init(),
                probing: ProbeController.Configuration = .init(), historyCapacity: Int = 4_096) {
        estimator = SendSideBandwidthEstimator(configuration: estimation)
        adapter = TransportFeedbackAdapter(capacity: historyCapacity)
        probes = ProbeController(configuration: probing)
    }

    /// The target bitrate.
    public var targetBitsPerSecond: UInt64 { estimator.targetBitsPerSecond }
    /// Probe clusters started and those that proved their rate.
    public var probeClusters: (started: Int, succeeded: Int) { (probes.clustersStarted, probes.clustersSucceeded) }
    /// Reports that could not be used, and results for packets not (or no longer) known.
    public var malformedFeedback: Int { adapter.malformedFeedback }
    public var unknownPackets: Int { adapter.unknownPackets }

    /// The packet numbered `transportSequenceNumber` left at `sendMicroseconds` with `bytes` on
    /// the wire: padding of probe cluster `probeCluster`, or media (nil), which counts towards
    /// the cluster running now.
    public mutating func sent(transportSequenceNumber: UInt16, bytes: Int, sendMicroseconds: Int64, probeCluster: Int? = nil) {
        let cluster = probeCluster ?? activeProbeCluster
        if probeCluster == nil, cluster != nil { uncountedProbeMediaBytes += bytes }
        adapter.sent(transportSequenceNumber: transportSequenceNumber, sendMicroseconds: sendMicroseconds, bytes: bytes,
                     probeCluster: cluster)
    }

    /// One transport-wide feedback report into the estimator (a probe cluster it measures lets
    /// the next one start); returns the new target.
    @discardableResult
    public mutating func handle(_ feedback: TransportWideFeedback, roundTripMilliseconds: Double,
                                nowMilliseconds: Int64) -> UInt64 {
        feedbacksReceived += 1
        let results = adapter.results(from: feedback)
        if !results.isEmpty { feedbacksUsed += 1 }
        estimator.update(results, roundTripMilliseconds: roundTripMilliseconds, nowMilliseconds: nowMilliseconds)
        if estimator.probeResults > probeResultsTaken, let probed = estimator.lastProbeBitsPerSecond {
            probeResultsTaken = estimator.probeResults
            probes.measured(probed, nowMilliseconds: nowMilliseconds)
        }
        return estimator.targetBitsPerSecond
    }

    /// The padding bytes to send now for the probe cluster due (`ProbeController`: while the
    /// estimate is below `wanted` and the link shows no over-use), and that cluster's id; nil
    /// when nothing is due. Media sent during the cluster already counts towards it.
    public mutating func paddingDue(wanted: UInt64, nowMilliseconds: Int64) -> (cluster: Int, bytes: Int)? {
        probes.sent(bytes: uncountedProbeMediaBytes)
        uncountedProbeMediaBytes = 0
        guard let cluster = probes.cluster(estimate: estimator.targetBitsPerSecond, wanted: wanted,
                                           lastOveruseMilliseconds: estimator.lastOveruseMilliseconds,
                                           nowMilliseconds: nowMilliseconds) else {
            activeProbeCluster = nil
            return nil
        }
        activeProbeCluster = cluster.id
        let due = cluster.bytesDue(nowMilliseconds: nowMilliseconds)
        return due > 0 ? (cluster.id, due) : nil
    }

    /// When `paddingDue` may next have padding to send (ms; `ProbeController.nextProbeMilliseconds`).
    public func nextPaddingMilliseconds(nowMilliseconds: Int64) -> Int64? {
        probes.nextProbeMilliseconds(lastOveruseMilliseconds: estimator.lastOveruseMilliseconds, nowMilliseconds: nowMilliseconds)
    }

    /// `bytes` of padding went out for the active cluster.
    public mutating func paddingSent(bytes: Int) {
        probes.sent(bytes: bytes)
    }
}
