import RTPWire
import SessionCore

/// The publisher's RTCP in, an assembly of stages: PLI/FIR through the `KeyFrameRequestGate`
/// (RFC 4585 §6.3.1, RFC 5104 §4.3.1), generic NACKs through the `NACKResponder` from each
/// stream's history (RFC 4585 §6.2.1), report blocks through the `ReportBlockTracker` (RFC 3550
/// §6.4.1 RTT), REMB through the `REMBLimit` (draft-alvestrand-rmcat-remb) and transport-wide
/// feedback into the send-side estimator (draft-holmer-rmcat-transport-wide-cc-extensions-01);
/// both bound the video through `PublisherVideoAllocation`.
extension Publisher {
    /// Handles one received datagram: SRTCP is unprotected (plain RTCP when insecure), then PLI
    /// and FIR request key frames (throttled per SSRC) and generic NACKs are answered from history.
    /// RTP is ignored. Throws typed errors for datagrams that fail authentication or parsing.
    @discardableResult
    public func handleIncoming(_ datagram: [UInt8]) throws(PublisherError) -> FeedbackOutcome {
        try handleIncoming(datagram[...])
    }

    /// `handleIncoming(_:)` for a view of a buffer the caller reuses (no copy into an array).
    @discardableResult
    public func handleIncoming(_ datagram: ArraySlice<UInt8>) throws(PublisherError) -> FeedbackOutcome {
        guard datagram.count <= receiveBuffer.count else {
            throw .invalidConfiguration("datagram of \(datagram.count) bytes is larger than \(receiveBuffer.count)")
        }
        receiveBuffer.withUnsafeMutableBytes { buffer in
            datagram.withUnsafeBytes { source in
                if let from = source.baseAddress, let to = buffer.baseAddress {
                    to.copyMemory(from: from, byteCount: source.count)
                }
            }
        }
        return try handleReceived(length: datagram.count)
    }

    /// Receives and handles at most one datagram from the transport, waiting up to
    /// `timeoutMilliseconds`. Datagrams that fail authentication or parsing are counted in
    /// `feedbackErrors` and dropped. Returns nil when nothing arrived.
    @discardableResult
    public func pollIncoming(timeoutMilliseconds: Int32) throws(PublisherError) -> FeedbackOutcome? {
        try sendProbesIfDue()
        let path = path
        let result: Result<Int?, PublisherError> = receiveBuffer.withUnsafeMutableBytes { buffer in
            Result { () throws(PublisherError) -> Int? in
                try path.receiveFeedback(into: buffer, timeoutMilliseconds: timeoutMilliseconds)
            }
        }
        guard let received = try result.get() else { return nil }
        do {
            return try handleReceived(length: received)
        } catch {
            feedbackErrors += 1
            return FeedbackOutcome()
        }
    }

    /// Handles `receiveBuffer[0..<length]`.
    private func handleReceived(length: Int) throws(PublisherError) -> FeedbackOutcome {
        var outcome = FeedbackOutcome()
        do {
            guard try RTPOrRTCP.classify(receiveBuffer[0..<length]) == .rtcp else {
                outcome.ignoredRTP = true
                return outcome
            }
        } catch {
            throw .wire(error)
        }
        let plainLength = try path.unprotectRTCP(&receiveBuffer, length: length)
        let compound: RTCPCompoundPacket
        do { compound = try RTCPCompoundPacket(parsing: receiveBuffer[0..<plainLength]) } catch { throw .wire(error) }
        for packet in compound.packets {
            switch packet {
            case let .pictureLossIndication(pli):
                keyFrameRequest(for: pli.mediaSSRC, &outcome)
            case let .fullIntraRequest(fir):
                for entry in fir.entries { keyFrameRequest(for: entry.ssrc, &outcome) }
            case let .receiverEstimatedMaxBitrate(remb):
                try handleREMB(remb, &outcome)
            case let .transportWideFeedback(feedback):
                try handleTransportFeedback(feedback, &outcome)
            case let .genericNACK(nack):
                try answer(nack, &outcome)
            case let .receiverReport(report):
                receivedReportBlocks(report.reportBlocks, &outcome)
            case let .senderReport(report):
                receivedReportBlocks(report.reportBlocks, &outcome)
            default:
                continue
            }
        }
        return outcome
    }

    /// Resends what `nack` names from the stream's history, as its retransmission budget allows
    /// at the RTT the stream's latest report block gave.
    private func answer(_ nack: GenericNACK, _ outcome: inout FeedbackOutcome) throws(PublisherError) {
        guard let sender = sendersBySSRC[nack.mediaSSRC] else {
            if let bundled = bundledPublisher, bundled.sendersBySSRC[nack.mediaSSRC] != nil { return try bundled.answer(nack, &outcome) }
            outcome.unknownSSRC += 1
            return
        }
        let roundTrip = reportBlocks.roundTripMilliseconds(ssrc: sender.ssrc)
        let counts = try nackResponder.answer(nack) { (sequence) throws(PublisherError) in
            NACKAnswer(try sender.retransmit(sequenceNumber: sequence, roundTripMilliseconds: roundTrip))
        }
        outcome.nacked += counts.nacked
        outcome.retransmitted += counts.retransmitted
        outcome.missing += counts.missing
        outcome.retransmissionsRefused += counts.refused
    }

    /// Keeps the blocks about our SSRCs (others are not ours to grade) with their RTT.
    private func receivedReportBlocks(_ blocks: [ReportBlock], _ outcome: inout FeedbackOutcome) {
        guard !blocks.isEmpty else { return }
        bundledPublisher?.receivedReportBlocks(blocks, &outcome)
        let arrival = NTPTime.compact(path.clock.ntpTimestamp())
        let now = path.clock.monotonicMicroseconds()
        for block in blocks where sendersBySSRC[block.ssrc] != nil {
            let received = reportBlocks.receive(block, arrivalCompactNTP: arrival, nowMicroseconds: now)
            outcome.reportBlocks += 1
            onReportBlock?(received)
        }
    }

    private func keyFrameRequest(for ssrc: UInt32, _ outcome: inout FeedbackOutcome) {
        guard let layer = videoSenders.firstIndex(where: { $0.ssrc == ssrc }) else {
            if let bundled = bundledPublisher, bundled.videoSenders.contains(where: { $0.ssrc == ssrc }) {
                // Its key frames are its own: counted in its `keyFramesRequested`, not in this outcome.
                var bundledOutcome = FeedbackOutcome()
                return bundled.keyFrameRequest(for: ssrc, &bundledOutcome)
            }
            outcome.unknownSSRC += 1
            return
        }
        outcome.keyFrameRequests += 1
        // Every layer: one throttle for the whole track (keyed by its lowest layer's SSRC).
        let throttleKey = configuration.keyFrameRequestScope == .everyLayer ? videoSenders[0].ssrc : ssrc
        if keyFrameGate.admitOrDefer(throttleKey, value: layer, nowMilliseconds: path.clock.monotonicMilliseconds()) {
            requestKeyFrame(layer: layer)
            outcome.keyFramesRequested += 1
        }
    }

    /// A key frame on every layer or on `layer`, as `keyFrameRequestScope` says.
    private func requestKeyFrame(layer: Int) {
        switch configuration.keyFrameRequestScope {
        case .everyLayer: encoder?.requestKeyFrame()
        case .namedLayer: encoder?.requestKeyFrame(forLayer: layer)
        }
        keyFramesRequested += 1
    }

    /// Requests that were throttled and whose interval has passed become key frames now.
    func serveDeferredKeyFrameRequests() {
        keyFrameGate.serveDeferred(nowMilliseconds: path.clock.monotonicMilliseconds()) { requestKeyFrame(layer: $0) }
    }

    /// A REMB naming one of our video SSRCs (or none) bounds the total video bitrate.
    private func handleREMB(_ remb: ReceiverEstimatedMaxBitrate, _ outcome: inout FeedbackOutcome) throws(PublisherError) {
        guard rembLimit.take(remb, about: videoSenders.lazy.map(\.ssrc)) else {
            outcome.unknownSSRC += 1
            return
        }
        outcome.rembs += 1
        outcome.rembBitrate = remb.bitrate
        // With send-side estimation the lower of the two bounds the video (as libwebrtc does).
        try limitVideo(to: min(remb.bitrate, estimatedBitsPerSecond ?? .max), &outcome)
    }

    /// Transport-wide feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01) into the
    /// send-side estimator; its estimate (with the latest REMB, if lower) bounds the video.
    private func handleTransportFeedback(_ feedback: TransportWideFeedback, _ outcome: inout FeedbackOutcome) throws(PublisherError) {
        guard var congestion = path.congestion else { return }
        outcome.transportFeedbacks += 1
        let estimate = congestion.handle(feedback, roundTripMilliseconds: reportBlocks.longestRoundTripMilliseconds,
                                         nowMilliseconds: path.clock.monotonicMilliseconds())
        path.congestion = congestion
        path.pacer?.bitsPerSecond = UInt64(Self.pacingFactor * Double(estimate))
        outcome.estimatedBitrate = estimate
        try limitVideo(to: min(estimate, lastREMBBitrate ?? .max), &outcome)
    }

    /// Fits the video to `bitsPerSecond` (`PublisherVideoAllocation`).
    private func limitVideo(to bitsPerSecond: UInt64, _ outcome: inout FeedbackOutcome) throws(PublisherError) {
        guard let encoder else { return }
        let (paused, resumed) = try videoAllocation.limit(encoder, to: bitsPerSecond,
                                                          nowMilliseconds: path.clock.monotonicMilliseconds())
        outcome.layersPaused += paused
        outcome.layersResumed += resumed
    }

    /// Sends what bandwidth probing has due now (`ProbeController`): while the estimate is below
    /// what the camera wants and the link shows no over-use, a 30 ms cluster of padding-only
    /// packets on the probe SSRC at twice the estimate. `pollIncoming` calls it; a loop that
    /// reads feedback some other way calls it every few milliseconds.
    public func sendProbesIfDue() throws(PublisherError) {
        try path.drainPacer()
        guard let probeSender, var congestion = path.congestion else { return }
        let wanted = encoder.map { videoAllocation.wantedBitsPerSecond($0) } ?? 0
        let padding = congestion.paddingDue(wanted: wanted, nowMilliseconds: path.clock.monotonicMilliseconds())
        path.congestion = congestion
        guard let (cluster, bytes) = padding else { return }
        var due = bytes
        while due > 0 {
            let sent = try probeSender.sendPadding(probeCluster: cluster)
            path.congestion?.paddingSent(bytes: sent)
            due -= sent
        }
    }

    /// Probe clusters started and those that proved their rate.
    public var probeClusters: (started: Int, succeeded: Int) { path.congestion?.probeClusters ?? (0, 0) }
}
