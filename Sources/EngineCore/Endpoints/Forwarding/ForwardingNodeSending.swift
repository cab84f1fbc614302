import RTPWire
import SRTP
import SessionCore

/// What a `ForwardingNode` sends a subscriber: media protected for it (numbered for its downlink
/// estimate), through its link; its probe padding; its sender reports.
extension ForwardingNode {
    func sendMedia(_ packet: ArraySlice<UInt8>, to downstream: ForwardedDownstream, numberAt: Int?, now: Int64) {
        guard let fields = try? RTPFixedFields(reading: packet) else { return }
        let sequenceNumber = fields.sequenceNumber
        guard let (length, number) = protect(packet, for: downstream, numberAt: numberAt) else {
            counters.sendFailures += 1
            return
        }
        downstream.retransmissions.mediaSent(downstream.security.output[0..<length], sequenceNumber: sequenceNumber,
                                             nowMilliseconds: now)
        downstream.sent(rtpTimestamp: fields.timestamp, now: now)
        downstream.counters.packetsSent += 1
        downstream.counters.payloadOctets += packet.count - RTPHeader.fixedLength
        downstream.counters.bytesSent += length
        transmit(downstream.security.output[0..<length], to: downstream, now: now)
        if let number { downstream.downlink?.sent(number, bytes: length, nowMicroseconds: clock.monotonicMicroseconds()) }
    }

    /// Protects `packet` for `downstream` into its security stage's output; when the node
    /// estimates its downlink and the packet carries a transport-wide number at `numberAt`, a
    /// copy numbered for this subscriber is protected instead. Returns the protected length and
    /// the number written (nil: none), or nil when protection failed.
    func protect(_ packet: ArraySlice<UInt8>, for downstream: ForwardedDownstream,
                         numberAt offset: Int?) -> (length: Int, number: UInt16?)? {
        guard let offset, downstream.downlink != nil else {
            guard let length = try? downstream.security.protect(packet, kind: .rtp) else { return nil }
            return (length, nil)
        }
        numberedBuffer.removeAll(keepingCapacity: true)
        numberedBuffer.append(contentsOf: packet)
        guard let number = downstream.downlink?.takeTransportSequenceNumber(),
              (try? TransportSequenceNumber.rewrite(number, in: &numberedBuffer, at: offset)) != nil,
              let length = try? downstream.security.protect(numberedBuffer[...], kind: .rtp) else { return nil }
        return (length, number)
    }

    func transmit(_ datagram: ArraySlice<UInt8>, to downstream: ForwardedDownstream, now: Int64) {
        let destination = downstream.configuration.destination
        if let link = downstream.link {
            link.transmit(datagram, nowMilliseconds: now) { send($0, to: destination) }
        } else {
            send(datagram, to: destination)
        }
    }

    func send(_ datagram: ArraySlice<UInt8>, to destination: NetworkEndpoint) {
        let attempt = datagram.withUnsafeBytes { bytes in
            Result { () throws(NetworkError) in try transport.send(bytes, to: destination) }
        }
        if case .failure = attempt { counters.sendFailures += 1 }
    }

    /// Probes `downstream`'s link while its estimate is below what it wants (its preferred
    /// layer's need; nothing before the publisher's video is known): the padding the due
    /// probe cluster asks for, on `downlinkProbeSSRC`, numbered like its media.
    func probeDownlink(_ downstream: ForwardedDownstream, now: Int64) {
        guard let payloadType = videoPayloadType,
              let preferred = try? forwarder.stats(for: downstream.configuration.id).preferredSpatialLayer,
              layerNeeds.indices.contains(preferred),
              let (cluster, bytes) = downstream.downlink?.paddingDue(wanted: UInt64(layerNeeds[preferred]), nowMilliseconds: now)
        else { return }
        var due = bytes
        while due > 0 {
            guard let number = try? downstream.downlink?.writeProbe(
                      into: &probeBuffer, ssrc: configuration.downlinkProbeSSRC, payloadType: payloadType,
                      timestamp: downstream.lastRTPTimestamp, map: configuration.extensionMap),
                  let length = try? downstream.security.protect(probeBuffer[...], kind: .rtp) else {
                counters.sendFailures += 1
                return
            }
            transmit(downstream.security.output[0..<length], to: downstream, now: now)
            downstream.downlink?.sent(number, bytes: length, nowMicroseconds: clock.monotonicMicroseconds(), probeCluster: cluster)
            downstream.counters.probePacketsSent += 1
            downstream.counters.probeBytesSent += length
            due -= length
        }
    }

    /// A sender report for the subscriber's stream once a second (RFC 3550 §6.4.1), so its
    /// receiver reports carry LSR/DLSR and we get a round-trip time.
    func sendSenderReportIfDue(_ downstream: ForwardedDownstream, now: Int64) {
        guard downstream.writeSenderReportIfDue(now: now, ntpTimestamp: clock.ntpTimestamp()) else { return }
        do {
            let length = try downstream.security.protect(downstream.senderReportCompound)
            transmit(downstream.security.output[0..<length], to: downstream, now: now)
        } catch {
            counters.sendFailures += 1
        }
    }
}
