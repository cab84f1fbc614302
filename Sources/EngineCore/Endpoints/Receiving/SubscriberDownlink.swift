import RTPWire
import SessionCore

/// A forwarding node's send-side view of one subscriber's downlink: its own transport-wide
/// sequence numbers on everything the node sends that subscriber (draft-holmer-rmcat-transport-
/// wide-cc-extensions-01 §2: one counter per transport; the publisher's numbers are the
/// publisher's transport's), the subscriber's transport-wide feedback into a
/// `SendSideCongestionControl`, and the padding packets that probe the link
/// (`downlinkProbeSSRC`, the video payload type, padding only, never forwarded by anyone).
///
/// Retransmissions resend the very protected bytes, so they repeat the number the packet first
/// carried; the subscriber's feedback reports such a late copy as a late arrival (not again).
/// A packet rebuilt from the layer history gets a fresh number like any first send.
struct SubscriberDownlink {
    private(set) var congestion: SendSideCongestionControl
    private var nextTransportSequenceNumber: UInt16
    private var nextProbeSequenceNumber: UInt16

    init(estimation: SendSideBandwidthEstimator.Configuration, probing: ProbeController.Configuration) {
        congestion = SendSideCongestionControl(estimation: estimation, probing: probing)
        nextTransportSequenceNumber = UInt16.random(in: 0...UInt16.max)
        nextProbeSequenceNumber = UInt16.random(in: 0...UInt16.max)
    }

    /// The estimate, once a feedback report has acknowledged packets (nil before: REMB and
    /// receiver reports rule until then).
    var estimatedBitsPerSecond: UInt64? { congestion.feedbacksUsed > 0 ? congestion.targetBitsPerSecond : nil }

    /// The number the next packet to this subscriber carries.
    mutating func takeTransportSequenceNumber() -> UInt16 {
        defer { nextTransportSequenceNumber &+= 1 }
        return nextTransportSequenceNumber
    }

    /// A packet numbered `sequenceNumber` of `bytes` left now (`probeCluster`: padding of it).
    mutating func sent(_ sequenceNumber: UInt16, bytes: Int, nowMicroseconds: Int64, probeCluster: Int? = nil) {
        congestion.sent(transportSequenceNumber: sequenceNumber, bytes: bytes, sendMicroseconds: nowMicroseconds,
                        probeCluster: probeCluster)
        if probeCluster != nil { congestion.paddingSent(bytes: bytes) }
    }

    /// The subscriber's transport-wide feedback into the estimate.
    mutating func handle(_ feedback: TransportWideFeedback, roundTripMilliseconds: Double, nowMilliseconds: Int64) {
        congestion.handle(feedback, roundTripMilliseconds: roundTripMilliseconds, nowMilliseconds: nowMilliseconds)
    }

    /// The probe padding due now while the estimate is below `wanted` (see
    /// `SendSideCongestionControl.paddingDue`); none before the subscriber's first feedback (one
    /// that never sends any would never measure a probe).
    mutating func paddingDue(wanted: UInt64, nowMilliseconds: Int64) -> (cluster: Int, bytes: Int)? {
        guard congestion.feedbacksReceived > 0 else { return nil }
        return congestion.paddingDue(wanted: wanted, nowMilliseconds: nowMilliseconds)
    }

    /// When `paddingDue` may next have padding (ms; nil: not before feedback or media arrive).
    func nextPaddingDeadline(nowMilliseconds: Int64) -> Int64? {
        guard congestion.feedbacksReceived > 0 else { return nil }
        return congestion.nextPaddingMilliseconds(nowMilliseconds: nowMilliseconds)
    }

    /// Writes the next padding-only probe packet (RFC 3550 §5.1: P bit, no payload, 255 bytes
    /// of padding; the transport-wide number under `map`'s id) into `buffer`; returns its
    /// transport-wide number.
    mutating func writeProbe(into buffer: inout [UInt8], ssrc: UInt32, payloadType: UInt8, timestamp: UInt32,
                             map: RTPHeaderExtensionMap) throws(WireError) -> UInt16 {
        let sequence = TransportSequenceNumber(nextTransportSequenceNumber)
        let header = RTPHeader(marker: false, payloadType: payloadType, sequenceNumber: nextProbeSequenceNumber,
                               timestamp: timestamp, ssrc: ssrc)
        buffer.removeAll(keepingCapacity: true)
        try header.serialize(into: &buffer, padding: true, extensionForm: .oneByte) { (appender) throws(WireError) in
            try appender.append(sequence, map: map)
        }
        RTPPacket.appendPadding(Self.paddingPerProbe, to: &buffer)
        nextProbeSequenceNumber &+= 1
        return takeTransportSequenceNumber()
    }

    /// Padding bytes one probe packet carries (the RFC 3550 §5.1 count is one byte).
    static let paddingPerProbe: UInt8 = 255
}
