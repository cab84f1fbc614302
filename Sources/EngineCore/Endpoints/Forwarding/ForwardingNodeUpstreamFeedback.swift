import RTPWire

/// The `ForwardingNode`'s feedback to the publisher, each through its stage and in one (S)RTCP
/// compound: key-frame requests through the `KeyFrameRequestGate` (RFC 4585
/// §6.3.1 PLI, one per layer per interval), generic NACKs from each layer's `NACKRequester`
/// (RFC 4585 §6.2.1), transport-wide feedback from the `TransportFeedbackStage`.
extension ForwardingNode {
    /// Sends a PLI for each layer SSRC (rate-limited per SSRC).
    func requestKeyFrames(_ ssrcs: [UInt32]) {
        guard !ssrcs.isEmpty else { return }
        let now = nowMilliseconds
        for ssrc in ssrcs where upstreamKeyFrameGate.admit(ssrc, nowMilliseconds: now) {
            if sendToPublisher(.pictureLossIndication(PictureLossIndication(senderSSRC: configuration.localSSRC,
                                                                            mediaSSRC: ssrc))) {
                counters.keyFrameRequestsSent += 1
            }
        }
    }

    /// NACKs what each layer is missing now. A publisher on TCP loses nothing in transit: no
    /// NACKs to it (key-frame requests still go).
    func requestUpstreamRetransmissions(now: Int64) {
        if let endpoint = publisherEndpoint, transport.isReliableStream(to: endpoint) { return }
        for layer in upstreamNACK.indices {
            guard let nack = upstreamNACK[layer].request(senderSSRC: configuration.localSSRC,
                                                         mediaSSRC: configuration.layerSSRCs[layer],
                                                         nowMilliseconds: now, roundTripMilliseconds: nil) else { continue }
            sendToPublisher(.genericNACK(nack))
            counters.upstreamNACKsSent += 1
            counters.upstreamPacketsRequested += upstreamNACK[layer].lastRequestCount
        }
    }

    /// Sends one (S)RTCP compound to the publisher: an empty RR (RFC 3550 §6.1: a compound
    /// starts with a report) and `feedback`. False when there is nowhere to send it or it failed.
    @discardableResult
    func sendToPublisher(_ feedback: RTCPPacket) -> Bool {
        guard let destination = publisherEndpoint else { return false }
        publisherFeedbackCompound.packets[1] = feedback
        do {
            let length = try publisherSecurity.protect(publisherFeedbackCompound)
            send(publisherSecurity.output[0..<length], to: destination)
            return true
        } catch {
            counters.sendFailures += 1
            return false
        }
    }
}
