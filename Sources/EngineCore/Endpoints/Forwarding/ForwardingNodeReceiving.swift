import RTPWire
import SRTP
import SessionCore

/// What reaches a `ForwardingNode`: a subscriber's SRTCP (by its source address) goes to
/// `handleSubscriberRTCP`; the publisher's SRTP is unprotected, numbered for transport-wide
/// feedback, noted for upstream NACKs, kept in the layer history and forwarded; its SRTCP BYE
/// ends layers.
extension ForwardingNode {
    func handleReceiveBuffer(length: Int, from source: NetworkEndpoint) {
        guard let kind = try? RTPOrRTCP.classify(receiveBuffer[0..<length]) else {
            counters.malformed += 1
            return
        }
        if let id = bySource[source], let downstream = downstreams[id] {
            guard kind == .rtcp else {
                downstream.counters.rtcpErrors += 1
                return
            }
            guard let plain = try? downstream.security.unprotect(&receiveBuffer, length: length, kind: .rtcp) else {
                downstream.counters.rtcpErrors += 1
                return
            }
            handleSubscriberRTCP(length: plain, from: id, downstream)
            return
        }
        guard let plain = try? publisherSecurity.unprotect(&receiveBuffer, length: length, kind: kind) else {
            counters.srtpFailures += 1
            return
        }
        switch kind {
        case .rtcp:
            // Sender reports: nothing to act on in this node (no SR relay), just counted; only the
            // pinned publisher's (RTCP never moves the pin).
            guard publisherSource.peer == source || configuration.publisherRTCPEndpoint == source else {
                counters.foreignSourcePackets += 1
                return
            }
            counters.publisherRTCP += 1
            handlePublisherRTCP(length: plain)
        case .rtp:
            // One view of the packet serves every step below (no re-parse per step or subscriber);
            // its extension block is checked once here, as it is relayed to every subscriber.
            guard let view = try? RTPPacketView(receiveBuffer[0..<plain]), (try? view.validateExtensions()) != nil else {
                counters.malformed += 1
                return
            }
            // Only a packet of one of the track's SSRCs may pin or move the publisher's address;
            // padding on another SSRC from the pinned address is the publisher probing.
            guard isPublishedSSRC(view.ssrc) else {
                if publisherSource.peer == source, recordTransportSequence(view, paddingOnly: true) {
                    counters.paddingPackets += 1
                } else {
                    counters.malformed += 1
                }
                return
            }
            guard publisherSource.admit(source) else {
                counters.foreignSourcePackets += 1
                return
            }
            if transportFeedback.isEnabled { _ = recordTransportSequence(view, paddingOnly: false) }
            handlePublisherRTP(view)
        }
    }

    /// Notes the arrival of the publisher's packet `view` for transport-wide feedback (when the
    /// node sends it). With `paddingOnly`, only a packet that carries nothing but padding counts;
    /// returns whether it was one (always true without it).
    func recordTransportSequence(_ view: RTPPacketView, paddingOnly: Bool) -> Bool {
        if paddingOnly, !(view.payload.isEmpty && view.paddingLength > 0) { return false }
        if transportFeedback.isEnabled,
           let sequence = try? view.extensionValue(TransportSequenceNumber.self, map: configuration.extensionMap) {
            transportFeedback.arrived(sequence, arrivalMicroseconds: clock.monotonicMicroseconds())
        }
        return true
    }

    /// The publisher's RTCP: a BYE for layer SSRCs (RFC 3550 §6.6) says it stopped sending those
    /// layers (its webcam cap went down): subscribers move to the highest layer still sent at
    /// once, without waiting for the stream to time out. The layer counts again from its next
    /// packet.
    func handlePublisherRTCP(length: Int) {
        guard let compound = try? RTCPCompoundPacket(parsing: receiveBuffer[0..<length]) else {
            counters.malformed += 1
            return
        }
        var ended = endedLayers
        for case let .goodbye(bye) in compound.packets {
            for ssrc in bye.ssrcs {
                if let layer = configuration.layerSSRCs.firstIndex(of: ssrc) { ended.insert(layer) }
            }
        }
        if ended != endedLayers { setEndedLayers(ended) }
        for case let .senderReport(report) in compound.packets where report.ssrc == configuration.audioSSRC {
            forwardAudioSenderReport(report)
        }
    }

    /// The publisher's sender report about its audio, passed on to every subscriber taking the
    /// audio (RFC 3550 §7.2: a translator forwards the RTCP of the SSRCs it forwards unchanged),
    /// so their receivers map the audio's RTP time onto the publisher's clock (issue 28); the
    /// report blocks, about the publisher's own receiving, are left out. Once a second: the one
    /// compound it builds is no per-packet cost.
    func forwardAudioSenderReport(_ report: SenderReport) {
        var forwarded = report
        forwarded.reportBlocks = []
        forwarded.profileExtension = []
        let compound = RTCPCompoundPacket(packets: [.senderReport(forwarded)])
        let now = nowMilliseconds
        for index in orderedDownstreams.indices {
            let downstream = orderedDownstreams[index]
            guard downstream.audioOpen else { continue }
            do {
                let length = try downstream.security.protect(compound)
                transmit(downstream.security.output[0..<length], to: downstream, now: now)
            } catch {
                counters.sendFailures += 1
            }
        }
    }

    /// Layers the publisher said goodbye to, and the highest-available layer that follows.
    func setEndedLayers(_ ended: Set<Int>) {
        endedLayers = ended
        // nil: every layer; with every layer ended, the lowest stays the target for their return.
        let highest = ended.isEmpty ? nil : (configuration.layerSSRCs.indices.last { !ended.contains($0) } ?? 0)
        requestKeyFrames(forwarder.setHighestAvailableSpatialLayer(highest, nowMilliseconds: nowMilliseconds))
        checkWantedLayers()
    }

    func isPublishedSSRC(_ ssrc: UInt32) -> Bool {
        layerIndex(of: ssrc, in: configuration.layerSSRCs) != nil || configuration.audioSSRC == ssrc
    }

    func handlePublisherRTP(_ view: RTPPacketView) {
        let length = view.bytes.count
        let ssrc = view.ssrc
        let sequenceNumber = view.sequenceNumber
        let numberAt = configuration.downlinkEstimation == nil ? nil
            : TransportSequenceNumber.valueOffset(in: view, map: configuration.extensionMap)
        if let audioSSRC = configuration.audioSSRC, ssrc == audioSSRC {
            forwardAudio(length: length, numberAt: numberAt)
            return
        }
        guard let layer = layerIndex(of: ssrc, in: configuration.layerSSRCs) else {
            counters.malformed += 1
            return
        }
        videoPayloadType = view.payloadType
        if endedLayers.contains(layer) { setEndedLayers(endedLayers.subtracting([layer])) }
        let now = nowMilliseconds
        upstreamNACK[layer].received(sequenceNumber: sequenceNumber, nowMilliseconds: now)
        // Only a completed switch changes what is forwarded, so only then can the wanted set
        // change on this path (no per-packet set building otherwise).
        let switchesBefore = forwarder.switchEvents.totalAppended
        do {
            let requests = try forwarder.forward(view, nowMilliseconds: now) { id, packet in
                guard let downstream = downstreams[id] else { return }
                sendMedia(packet, to: downstream, numberAt: numberAt, now: now)
            }
            layerHistories[layer].store(receiveBuffer[0..<length], sequenceNumber: sequenceNumber)
            counters.mediaPackets += 1
            requestKeyFrames(requests)
        } catch {
            counters.malformed += 1
        }
        if forwarder.switchEvents.totalAppended != switchesBefore { checkWantedLayers() }
    }

    /// The publisher's audio as it is (its RFC 6464 level included; with downlink estimation,
    /// the subscriber's own transport-wide number at `numberAt`) to every subscriber that takes
    /// it, re-protected per subscriber. Not kept for NACKs (Opus has in-band FEC).
    func forwardAudio(length: Int, numberAt: Int?) {
        counters.audioPackets += 1
        let now = nowMilliseconds
        for index in orderedDownstreams.indices {  // not for-in: see TrackForwarder.forward
            let downstream = orderedDownstreams[index]
            guard downstream.audioOpen else { continue }
            guard let (protected, number) = protect(receiveBuffer[0..<length], for: downstream, numberAt: numberAt) else {
                counters.sendFailures += 1
                continue
            }
            downstream.counters.audioPacketsSent += 1
            downstream.counters.audioBytesSent += protected
            transmit(downstream.security.output[0..<protected], to: downstream, now: now)
            if let number { downstream.downlink?.sent(number, bytes: protected, nowMicroseconds: clock.monotonicMicroseconds()) }
        }
    }
}
