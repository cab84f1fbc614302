import RTPWire
import SessionCore

/// The REMB sending stage (draft-alvestrand-rmcat-remb-03 §2) for one received stream: feeds the
/// loss since its previous report (RFC 3550 §6.4.1 expected − received) and the arrivals into a
/// `BandwidthEstimator`, and writes its estimate as a REMB.
struct REMBReporter {
    private(set) var estimator: BandwidthEstimator
    private var expectedPrior: Int64 = 0
    private var receivedPrior: Int64 = 0

    init(configuration: BandwidthEstimator.Configuration) {
        estimator = BandwidthEstimator(configuration: configuration)
    }

    /// A new stream: its loss counts from zero.
    mutating func restart() {
        expectedPrior = 0
        receivedPrior = 0
    }

    /// A packet of `bytes` arrived.
    mutating func received(bytes: Int, nowMilliseconds: Int64) {
        estimator.packetReceived(bytes: bytes, nowMilliseconds: nowMilliseconds)
    }

    /// Updates the estimate with the loss `statistics` show since the previous report and returns
    /// the REMB from `senderSSRC` about `mediaSSRC`.
    mutating func report(_ statistics: ReceiveStatistics, senderSSRC: UInt32, mediaSSRC: UInt32,
                         nowMilliseconds: Int64) -> ReceiverEstimatedMaxBitrate {
        let expected = statistics.expectedPackets - expectedPrior
        let received = statistics.packetsReceived - receivedPrior
        expectedPrior = statistics.expectedPackets
        receivedPrior = statistics.packetsReceived
        let loss = expected > 0 ? Double(max(0, expected - received)) / Double(expected) : 0
        estimator.update(lossFraction: loss, nowMilliseconds: nowMilliseconds)
        return estimator.rembPacket(senderSSRC: senderSSRC, mediaSSRCs: [mediaSSRC])
    }
}
