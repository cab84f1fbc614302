import RTPWire
import Simulcast

/// What a `ForwardingNode` tells about each subscriber: counters, docs/receiving.md stats, the
/// bandwidth estimate its layer selector follows.
extension ForwardingNode {
    /// Counters for one subscriber.
    public func counters(for id: String) -> ForwardedSubscriberCounters? {
        guard let downstream = downstreams[id] else { return nil }
        var counters = downstream.counters
        counters.rembsReceived = downstream.rembLimit.received
        counters.lastREMBBitsPerSecond = downstream.rembLimit.bitsPerSecond
        if let congestion = downstream.downlink?.congestion {
            counters.transportFeedbackResultsDropped = congestion.unknownPackets + congestion.malformedFeedback
                + congestion.estimator.implausibleResults
        }
        return counters
    }

    /// docs/receiving.md stats of the track for one subscriber.
    public func stats(for id: String) throws(ForwarderError) -> ForwardedSubscriberStats {
        guard let downstream = downstreams[id] else { throw .unknownSubscriber(id) }
        let forwarded = try forwarder.stats(for: id)
        var stats = ForwardedSubscriberStats(
            currentSpatialLayer: forwarded.current?.spatial, currentTemporalLayer: forwarded.current?.temporal,
            preferredSpatialLayer: forwarded.preferredSpatialLayer, preferredTemporalLayer: forwarded.preferredTemporalLayer,
            target: forwarded.target, bitsPerSecond: downstream.bitsPerSecond)
        if let spatial = forwarded.current?.spatial, configuration.plan.layers.indices.contains(spatial) {
            stats.frameWidth = configuration.plan.layers[spatial].width
            stats.frameHeight = configuration.plan.layers[spatial].height
        }
        if let block = downstream.counters.lastReportBlock {
            stats.packetsLost = Int(block.cumulativeLost)
            stats.fractionLost = block.fractionLost
            stats.jitterMilliseconds = Double(block.jitter) / 90
        }
        stats.roundTripMilliseconds = downstream.reportBlocks.lastRoundTripMicroseconds.map { Double($0) / 1000 }
        stats.estimatedBitsPerSecond = downstream.estimatedBitsPerSecond
        return stats
    }

    /// The bandwidth estimate for one subscriber's feed: with downlink estimation, the node's own
    /// (GCC on its transport-wide feedback) once feedback acknowledged packets, capped by its
    /// REMB if lower; otherwise its latest REMB, capped by the ceiling the loss in its receiver
    /// reports sets (so a link that delivers nothing still lowers it); nil before either is
    /// known or for an unknown subscriber.
    public func estimatedBitsPerSecond(for id: String) -> Int? {
        downstreams[id]?.estimatedBitsPerSecond
    }

    /// Hands the feed's current estimate to its layer selector.
    func updateSelectorBandwidth(for id: String, _ downstream: ForwardedDownstream, now: Int64) {
        guard let estimate = downstream.estimatedBitsPerSecond,
              let requests = try? forwarder.updateBandwidth(estimate, for: id, nowMilliseconds: now) else { return }
        requestKeyFrames(requests)
    }
}
