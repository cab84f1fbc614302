import RTPWire
import SRTP
import Simulcast
import SessionCore

/// A subscriber's RTCP at the `ForwardingNode`, each packet to its stage: generic NACKs to the
/// subscriber's `NACKResponder` (RFC 4585 §6.2.1; the protected bytes we sent it, or a copy
/// rebuilt from the layer history), PLI/FIR up to the publisher for the layer it gets (RFC 4585
/// §6.3.1, RFC 5104 §4.3.1), transport-wide feedback and REMB into its downlink estimate,
/// receiver reports into its `ReportBlockTracker` (RTT) and loss ceiling (RFC 3550 §6.4.2).
extension ForwardingNode {
    func handleSubscriberRTCP(length: Int, from id: String, _ downstream: ForwardedDownstream) {
        guard let compound = try? RTCPCompoundPacket(parsing: receiveBuffer[0..<length]) else {
            downstream.counters.rtcpErrors += 1
            return
        }
        let now = nowMilliseconds
        let ourSSRC = downstream.configuration.outputSSRC
        for packet in compound.packets {
            switch packet {
            case let .genericNACK(nack) where nack.mediaSSRC == ourSSRC:
                // Over TCP nothing is lost in transit; resending would only queue behind the stream.
                guard !transport.isReliableStream(to: downstream.configuration.destination) else {
                    downstream.counters.nacksIgnoredOverStream += 1
                    continue
                }
                let counts = downstream.nackResponder.answer(nack) { retransmit($0, to: id, downstream, now: now) }
                downstream.counters.nacked += counts.nacked
                downstream.counters.retransmitted += counts.retransmitted
                downstream.counters.rebuilt += counts.repaired
                downstream.counters.missing += counts.missing
                downstream.counters.retransmissionsRefused += counts.refused
            case let .pictureLossIndication(pli) where pli.mediaSSRC == ourSSRC:
                downstream.counters.keyFrameRequestsReceived += 1
                keyFrameRequestFromSubscriber(id)
            case let .fullIntraRequest(fir) where fir.entries.contains(where: { $0.ssrc == ourSSRC }):
                downstream.counters.keyFrameRequestsReceived += 1
                keyFrameRequestFromSubscriber(id)
            case let .transportWideFeedback(feedback) where downstream.downlink != nil:
                downstream.counters.transportFeedbacksReceived += 1
                downstream.downlink?.handle(feedback, roundTripMilliseconds: downstream.reportBlocks.lastRoundTripMillisecondsOrAssumed,
                                            nowMilliseconds: now)
                updateSelectorBandwidth(for: id, downstream, now: now)
            case let .receiverEstimatedMaxBitrate(remb):
                downstream.rembLimit.take(remb)
                updateSelectorBandwidth(for: id, downstream, now: now)
            case let .receiverReport(report):
                if let block = report.reportBlocks.first(where: { $0.ssrc == ourSSRC }) {
                    downstream.counters.lastReportBlock = ReportBlockSummary(
                        fractionLost: Double(block.fractionLost) / 256, cumulativeLost: block.cumulativeLost,
                        jitter: block.interarrivalJitter)
                    if let interval = downstream.delivery.measure(
                        block, packetsSent: Int64(downstream.counters.packetsSent),
                        bytesSent: Int64(downstream.counters.bytesSent), nowMilliseconds: now) {
                        downstream.lossCeiling.update(lossFraction: interval.lossFraction,
                                                      deliveredBitsPerSecond: interval.deliveredBitsPerSecond,
                                                      nowMilliseconds: now)
                        downstream.lossCeilingMeasured = true
                        updateSelectorBandwidth(for: id, downstream, now: now)
                    }
                    downstream.reportBlocks.receive(block, arrivalCompactNTP: NTPTime.compact(clock.ntpTimestamp()),
                                                    nowMicroseconds: clock.monotonicMicroseconds())
                }
            default:
                continue
            }
        }
        checkWantedLayers()
    }

    /// A subscriber cannot decode: ask the publisher for a key frame on the layer it is given
    /// (or switching to; the switch itself waits for that key frame anyway).
    func keyFrameRequestFromSubscriber(_ id: String) {
        // A subscriber whose video is stopped gets no key frame anyway (reopening requests one).
        guard forwarder.isForwarding(to: id) == true, let stats = try? forwarder.stats(for: id) else { return }
        var layers: [Int] = []
        if let current = stats.current?.spatial { layers.append(current) }
        if let target = stats.target?.spatial, target != stats.current?.spatial { layers.append(target) }
        requestKeyFrames(layers.compactMap { configuration.layerSSRCs.indices.contains($0) ? configuration.layerSSRCs[$0] : nil })
    }

    /// Answers one NACKed sequence number for subscriber `id`: the protected bytes we sent it,
    /// or a copy rebuilt from the layer history, as its retransmission budget allows.
    func retransmit(_ sequenceNumber: UInt16, to id: String, _ downstream: ForwardedDownstream, now: Int64) -> NACKAnswer {
        let roundTrip = downstream.reportBlocks.lastRoundTripMicroseconds.map { $0 / 1000 }
        // The bytes we sent, as they were (the common case).
        switch downstream.retransmissions.answer(sequenceNumber: sequenceNumber, roundTripMilliseconds: roundTrip,
                                                 nowMilliseconds: now, resend: { transmit($0, to: downstream, now: now) }) {
        case .resent: return .resent
        case .refused: return .refused
        case .missing: break
        }
        // Never sent to this subscriber (or its copy is gone): rebuild it from the layer history
        // with the same rewrite the forwarder applied.
        guard let origin = try? forwarder.retransmissionSource(for: id, sequenceNumber: sequenceNumber),
              let layer = configuration.layerSSRCs.firstIndex(of: origin.sourceId),
              copyFromLayerHistory(layer, sequenceNumber: origin.originalSequenceNumber),
              rewrite(&rebuildBuffer, origin: origin, outputSSRC: downstream.configuration.outputSSRC)
        else { return .missing }
        guard downstream.retransmissions.admit(sequenceNumber: sequenceNumber, bytes: rebuildBuffer.count + SRTPSession.maximumOverhead,
                                               roundTripMilliseconds: roundTrip, nowMilliseconds: now) == .resend else {
            return .refused
        }
        let numberAt = downstream.downlink == nil ? nil
            : TransportSequenceNumber.valueOffset(in: rebuildBuffer[...], map: configuration.extensionMap)
        guard let (length, number) = protect(rebuildBuffer[...], for: downstream, numberAt: numberAt) else { return .missing }
        downstream.retransmissions.keepRepair(downstream.security.output[0..<length], sequenceNumber: sequenceNumber)
        transmit(downstream.security.output[0..<length], to: downstream, now: now)
        if let number { downstream.downlink?.sent(number, bytes: length, nowMicroseconds: clock.monotonicMicroseconds()) }
        return .repaired
    }

    /// Copies a stored plain packet of `layer` into `rebuildBuffer`; false if it is gone.
    func copyFromLayerHistory(_ layer: Int, sequenceNumber: UInt16) -> Bool {
        let found: Bool? = layerHistories[layer].withPacket(sequenceNumber: sequenceNumber) { stored in
            rebuildBuffer.removeAll(keepingCapacity: true)
            rebuildBuffer.append(contentsOf: stored)
            return true
        }
        return found == true
    }

    /// The forwarder's header rewrite (sequence, timestamp, SSRC, PictureID, TL0PICIDX).
    func rewrite(_ packet: inout [UInt8], origin: RewrittenPacketOrigin, outputSSRC: UInt32) -> Bool {
        do {
            let parsed = try RTPPacket(parsing: packet[...])
            let (descriptor, _) = try VP8PayloadDescriptor.parse(parsed.payload)
            let descriptorOffset = parsed.payload.startIndex
            try RTPHeader.rewrite(in: &packet, sequenceNumber: origin.header.sequenceNumber,
                                  timestamp: origin.header.timestamp, ssrc: outputSSRC)
            try VP8PayloadDescriptor.rewrite(
                in: &packet, at: descriptorOffset,
                pictureID: descriptor.pictureID == nil ? nil : origin.header.pictureId,
                tl0PicIdx: descriptor.tl0PicIdx == nil ? nil : origin.header.tl0PicIdx)
            return true
        } catch {
            return false
        }
    }
}
