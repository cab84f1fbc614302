import RTPWire
import SRTP
import SessionCore

/// Sends one RTP stream (one SSRC, RFC 3550 §5.1): writes each packet's header with the
/// RFC 8285 extensions of docs/wire-and-security.md (MID, RID, abs-send-time, transport-wide sequence number,
/// audio level) into a reused buffer, keeps the plain packet in a `PacketHistory` for NACKs,
/// protects it through the shared `SendPath` and hands it to the transport. Counts packets and
/// payload octets for sender reports (RFC 3550 §6.4.1).
///
/// Retransmissions (RTX-less, RFC 4585 §6.2.1 answered with the same sequence number) resend the
/// very bytes first sent: with SRTP that is the stored protected packet, because libsrtp refuses
/// to protect one index twice and an identical plaintext under the same index gives identical
/// ciphertext anyway.
public final class RTPStreamSender {
    /// Fixed properties of a stream.
    public struct Configuration: Sendable {
        public var ssrc: UInt32
        /// RTP payload type, 0...127.
        public var payloadType: UInt8
        /// RTP clock rate (90 000 for video, 48 000 for Opus).
        public var clockRate: UInt32
        /// MID header extension value (RFC 8843), if any.
        public var mid: String?
        /// RID header extension value (RFC 8852), e.g. `q`/`h`/`f`, if any.
        public var rid: String?
        /// Sequence number of the first packet (random per RFC 3550 §5.1; injected).
        public var initialSequenceNumber: UInt16
        /// Packets kept for retransmission.
        public var historyCapacity: Int
        /// How often and how much NACKs may make the stream resend.
        public var retransmissionBudget: RetransmissionBudget.Configuration

        public init(ssrc: UInt32, payloadType: UInt8, clockRate: UInt32, mid: String? = nil, rid: String? = nil,
                    initialSequenceNumber: UInt16, historyCapacity: Int = 512,
                    retransmissionBudget: RetransmissionBudget.Configuration = .init()) {
            self.retransmissionBudget = retransmissionBudget
            self.ssrc = ssrc
            self.payloadType = payloadType
            self.clockRate = clockRate
            self.mid = mid
            self.rid = rid
            self.initialSequenceNumber = initialSequenceNumber
            self.historyCapacity = historyCapacity
        }
    }

    public let configuration: Configuration
    public var ssrc: UInt32 { configuration.ssrc }
    /// The sequence number the next new packet carries.
    public private(set) var nextSequenceNumber: UInt16
    /// New packets sent (not counting retransmissions), for the SR sender's packet count.
    public private(set) var packetCount: UInt32 = 0
    /// Payload octets of new packets (RFC 3550 §6.4.1 sender's octet count; wraps).
    public private(set) var octetCount: UInt32 = 0
    /// Bytes handed to the transport, retransmissions and SRTP overhead included.
    public private(set) var wireBytes: UInt64 = 0
    /// Packets resent in answer to NACKs, NACKed packets no longer in the history, and requests
    /// the retransmission budget refused.
    public private(set) var retransmissions = 0
    public private(set) var retransmissionMisses = 0
    public var retransmissionRefusals: RetransmissionBudget.Refusals { retransmissionStore.refusals }
    /// RTP timestamp and monotonic time of the last packet sent (for SR timestamps).
    public private(set) var lastRTPTimestamp: UInt32 = 0
    public private(set) var lastSendMicroseconds: Int64 = 0
    private let path: SendPath
    private let mid: MediaIdentifier?
    private let rid: RTPStreamID?
    /// Every packet as it went on the wire (protected, or plain when insecure), for NACKs.
    private var retransmissionStore: RetransmissionStore
    private var plain: [UInt8] = []

    /// What `retransmit` did with one request.
    public typealias RetransmissionOutcome = RetransmissionStore.Outcome

    /// - Throws: `.invalidConfiguration` for a payload type above 127 or a MID/RID that is not
    ///   valid on the wire.
    public init(configuration: Configuration, path: SendPath) throws(PublisherError) {
        guard configuration.payloadType <= 127 else {
            throw .invalidConfiguration("payload type \(configuration.payloadType) outside 0...127")
        }
        guard configuration.clockRate > 0 else { throw .invalidConfiguration("clock rate 0") }
        do {
            mid = try configuration.mid.map { m throws(WireError) in try MediaIdentifier(m) }
            rid = try configuration.rid.map { r throws(WireError) in try RTPStreamID(r) }
        } catch {
            throw .invalidConfiguration("MID/RID: \(error)")
        }
        self.configuration = configuration
        self.path = path
        nextSequenceNumber = configuration.initialSequenceNumber
        retransmissionStore = RetransmissionStore(capacity: configuration.historyCapacity,
                                                  maximumPacketSize: path.security.maximumProtectedSize,
                                                  budget: configuration.retransmissionBudget)
        plain.reserveCapacity(SendPath.maximumPacketSize)
    }

    /// Sends one packet carrying `payload`.
    /// - Parameters:
    ///   - timestamp: RTP timestamp (RFC 3550 §5.1).
    ///   - marker: the M bit (last packet of a video frame; first packet of an audio talkspurt).
    ///   - audioLevel: RFC 6464 level, written when the map negotiates it.
    public func send(payload: ArraySlice<UInt8>, timestamp: UInt32, marker: Bool,
                     audioLevel: AudioLevel? = nil) throws(PublisherError) {
        let now = path.clock.monotonicMicroseconds()
        let sequenceNumber = nextSequenceNumber
        let carriesTransportSequence = try writeHeader(marker: marker, timestamp: timestamp, padding: false,
                                                       audioLevel: audioLevel, now: now)
        plain.append(contentsOf: payload)
        let count = try path.protect(plain)
        retransmissionStore.mediaSent(path.security.output[0..<count], sequenceNumber: sequenceNumber,
                                      nowMilliseconds: Int64(clamping: now / 1000))
        packetCount &+= 1
        octetCount &+= UInt32(truncatingIfNeeded: payload.count)
        lastRTPTimestamp = timestamp
        lastSendMicroseconds = now
        try transmit(count: count, carriesTransportSequence: carriesTransportSequence)
    }

    /// Padding bytes one padding-only packet carries (the RFC 3550 §5.1 count is one byte).
    public static let paddingPerPacket: UInt8 = 255

    /// Sends one padding-only packet (RFC 3550 §5.1: P bit, no payload, `paddingPerPacket` bytes
    /// of padding) with the last RTP timestamp, as part of bandwidth-probe cluster
    /// `probeCluster`; not kept for retransmission, not counted in sender reports. Returns the
    /// bytes it put on the wire.
    @discardableResult
    public func sendPadding(probeCluster: Int) throws(PublisherError) -> Int {
        let now = path.clock.monotonicMicroseconds()
        let carriesTransportSequence = try writeHeader(marker: false, timestamp: lastRTPTimestamp, padding: true,
                                                       audioLevel: nil, now: now)
        RTPPacket.appendPadding(Self.paddingPerPacket, to: &plain)
        let count = try path.protect(plain)
        try transmit(count: count, carriesTransportSequence: carriesTransportSequence, probeCluster: probeCluster)
        return count
    }

    /// Writes the next packet's header and extensions (docs/wire-and-security.md) into `plain`; returns whether it
    /// carries a transport-wide sequence number. Counters do not move: a failure leaves no gap.
    private func writeHeader(marker: Bool, timestamp: UInt32, padding: Bool, audioLevel: AudioLevel?,
                             now: Int64) throws(PublisherError) -> Bool {
        let header = RTPHeader(marker: marker, payloadType: configuration.payloadType,
                               sequenceNumber: nextSequenceNumber, timestamp: timestamp, ssrc: configuration.ssrc)
        let map = path.extensionMap
        let transportSequence = TransportSequenceNumber(path.nextTransportSequenceNumber)
        let carriesTransportSequence = map.id(for: .transportSequenceNumber) != nil
        plain.removeAll(keepingCapacity: true)
        do {
            try header.serialize(into: &plain, padding: padding, extensionForm: .oneByte) { (appender) throws(WireError) in
                if let mid, map.id(for: .mid) != nil { try appender.append(mid, map: map) }
                if let rid, map.id(for: .rid) != nil { try appender.append(rid, map: map) }
                if map.id(for: .absSendTime) != nil { try appender.append(AbsSendTime(microseconds: UInt64(clamping: now)), map: map) }
                if carriesTransportSequence { try appender.append(transportSequence, map: map) }
                if let audioLevel, map.id(for: .audioLevel) != nil { try appender.append(audioLevel, map: map) }
            }
        } catch {
            throw .wire(error)
        }
        return carriesTransportSequence
    }

    /// Sends the protected packet of `count` bytes, once it is built: the sequence numbers
    /// advance; media goes through the pacer when there is one (audio before video), padding of
    /// probe cluster `probeCluster` keeps its own timing and never waits in it.
    private func transmit(count: Int, carriesTransportSequence: Bool, probeCluster: Int? = nil) throws(PublisherError) {
        let sentTransportSequence = path.takeTransportSequenceNumber()
        nextSequenceNumber &+= 1  // wraps mod 2^16 by design
        wireBytes &+= UInt64(count)
        guard let probeCluster else {
            try path.sendProtectedRTP(count: count, ssrc: configuration.ssrc,
                                      transportSequenceNumber: carriesTransportSequence ? sentTransportSequence : nil,
                                      priority: configuration.clockRate == 90_000 ? .video : .urgent)
            return
        }
        try path.transmitProtected(count: count, ssrc: configuration.ssrc)
        if carriesTransportSequence {
            path.recordSent(transportSequenceNumber: sentTransportSequence, bytes: count, probeCluster: probeCluster)
        }
    }

    /// Resends the packet with `sequenceNumber` exactly as first sent, if it is still in the
    /// history and the `RetransmissionBudget` allows it (`roundTripMilliseconds`: the RTT to the
    /// requester, if known).
    @discardableResult
    public func retransmit(sequenceNumber: UInt16, roundTripMilliseconds: Int64? = nil) throws(PublisherError) -> RetransmissionOutcome {
        let now = path.clock.monotonicMilliseconds()
        let outcome = try retransmissionStore.answer(sequenceNumber: sequenceNumber, roundTripMilliseconds: roundTripMilliseconds,
                                                     nowMilliseconds: now) { (packet) throws(PublisherError) in
            let sent: Result<Void, PublisherError> = packet.withUnsafeBytes { bytes in
                Result { () throws(PublisherError) in
                    try path.sendRTP(bytes, ssrc: configuration.ssrc, transportSequenceNumber: nil, priority: .urgent)
                }
            }
            try sent.get()
            wireBytes &+= UInt64(packet.count)
        }
        switch outcome {
        case .resent: retransmissions += 1
        case .missing: retransmissionMisses += 1
        case .refused: break
        }
        return outcome
    }

    /// A sender report for this stream at the current clock (RFC 3550 §6.4.1): NTP from the wall
    /// clock, RTP timestamp extrapolated from the last packet sent.
    public func senderReport() -> SenderReport {
        let now = path.clock.monotonicMicroseconds()
        let elapsed = now >= lastSendMicroseconds ? now - lastSendMicroseconds : 0
        // elapsed is clamped to an hour so the product stays far below 2^64.
        let ticks = UInt64(min(elapsed, 3_600_000_000)) * UInt64(configuration.clockRate) / 1_000_000
        return SenderReport(ssrc: configuration.ssrc,
                            ntpTimestamp: path.clock.ntpTimestamp(),
                            rtpTimestamp: lastRTPTimestamp &+ UInt32(truncatingIfNeeded: ticks),
                            packetCount: packetCount, octetCount: octetCount)
    }
}
