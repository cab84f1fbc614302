import RTPWire
import SRTP
import SessionCore

/// What all streams of one publisher share on the way out: the transport, where each stream's
/// datagrams go on it (`PublisherRouting`), the security stage (SRTP), the header-extension map,
/// the clock, the transport-wide sequence number
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2: one counter across every stream of a
/// transport) and, when set, the pcap file every sent datagram is recorded in. Owns the reused
/// output buffers, so sending allocates nothing per packet.
///
/// Not `Sendable`: confine a publisher and its send path to one thread or task.
public final class SendPath {
    /// Largest plain RTP/RTCP packet the path accepts.
    public static let maximumPacketSize = 1500

    /// The one transport every stream leaves on and feedback arrives on (UDP, TCP, ICE).
    public let transport: any DatagramTransport
    /// Where each stream's datagrams go on `transport`, and whose feedback is taken.
    public var routing: PublisherRouting
    /// Records every datagram sent from now on, when set (the owner closes it).
    public var recording: PcapFile?
    /// Datagrams and bytes sent.
    public private(set) var datagramsSent = 0
    public private(set) var bytesSent = 0
    /// Datagrams received from an address that is not a peer of `routing` (dropped).
    public private(set) var datagramsFromUnknownSources = 0
    public let extensionMap: RTPHeaderExtensionMap
    public let clock: MediaClock
    /// Whether RTP leaves SRTP-protected (false only with `.insecure`).
    public var isSecure: Bool { security.protectsMedia }
    /// Whether RTCP leaves and arrives plain (`.insecure` and `.srtpPlainRTCP`).
    public var rtcpIsPlain: Bool { security.rtcpIsPlain }
    /// The transport-wide sequence number the next RTP packet carries.
    public private(set) var nextTransportSequenceNumber: UInt16

    /// Protects what leaves and unprotects the feedback that arrives.
    let security: SRTPSecurity
    /// What left under each transport-wide sequence number, the estimate and the probing, when
    /// send-side estimation runs.
    var congestion: SendSideCongestionControl?
    /// Where RTP waits to leave at the pacing rate, when send-side estimation runs (RTCP and
    /// probes never wait).
    var pacer: PacketPacer?
    /// Packets sent unpaced because the pacer was full.
    public private(set) var pacerOverflows = 0

    /// - Throws: `.srtp` for keys the installed libsrtp cannot use.
    public init(transport: any DatagramTransport, routing: PublisherRouting, security: PublisherSecurity,
                extensionMap: RTPHeaderExtensionMap = .defaults, clock: MediaClock = .system,
                initialTransportSequenceNumber: UInt16 = 0) throws(PublisherError) {
        self.transport = transport
        self.routing = routing
        self.extensionMap = extensionMap
        self.clock = clock
        nextTransportSequenceNumber = initialTransportSequenceNumber
        do {
            switch security {
            case let .srtp(local, remote):
                self.security = try SRTPSecurity(sendKeys: local, receiveKeys: remote ?? local,
                                                 maximumPacketSize: Self.maximumPacketSize)
            case let .srtpPlainRTCP(local):
                self.security = try SRTPSecurity(sendKeys: local, receiveKeys: nil, rtcpIsPlain: true,
                                                 maximumPacketSize: Self.maximumPacketSize)
            case .insecure:
                self.security = SRTPSecurity(outbound: nil, inbound: nil, rtcpIsPlain: true,
                                             maximumPacketSize: Self.maximumPacketSize)
            }
        } catch {
            throw .srtp(error)
        }
    }

    /// Notes that the packet with transport-wide sequence number `sequenceNumber` left now:
    /// padding of probe cluster `probeCluster`, or media (nil).
    func recordSent(transportSequenceNumber sequenceNumber: UInt16, bytes: Int, probeCluster: Int? = nil) {
        congestion?.sent(transportSequenceNumber: sequenceNumber, bytes: bytes, sendMicroseconds: clock.monotonicMicroseconds(),
                         probeCluster: probeCluster)
    }

    /// Takes the next transport-wide sequence number (wraps mod 2^16 by design).
    func takeTransportSequenceNumber() -> UInt16 {
        defer { nextTransportSequenceNumber &+= 1 }
        return nextTransportSequenceNumber
    }

    /// Protects an RTP packet into `security.output`; returns how many bytes of it to send.
    func protect(_ packet: [UInt8]) throws(PublisherError) -> Int {
        do {
            return try security.protect(packet[...], kind: .rtp)
        } catch {
            throw PublisherError(error)
        }
    }

    /// Sends one datagram of stream `ssrc` where `routing` says (RTCP to its RTCP address),
    /// counts it and records it when a pcap file is set.
    func send(_ datagram: UnsafeRawBufferPointer, ssrc: UInt32) throws(PublisherError) {
        let destination = routing.destination(of: datagram, ssrc: ssrc)
        do {
            try transport.send(datagram, to: destination)
        } catch {
            throw .network(error)
        }
        datagramsSent += 1
        bytesSent += datagram.count
        if let recording {
            var source = transport.localEndpoint
            if source.isUnspecified, !destination.isIPv6 { source.ip = .v4(IPv4Address(destination.isLoopback ? 0x7F00_0001 : 0)) }
            try recording.record(datagram, from: source, to: destination, unixMicroseconds: UInt64(clamping: clock.wallMicroseconds()))
        }
    }

    /// Receives the next datagram from a peer of `routing` into `buffer`, waiting at most
    /// `timeoutMilliseconds`; datagrams from anyone else are dropped and counted in
    /// `datagramsFromUnknownSources` (without waiting again for the next). Nil on timeout.
    public func receiveFeedback(into buffer: UnsafeMutableRawBufferPointer,
                                timeoutMilliseconds: Int32) throws(PublisherError) -> Int? {
        var timeout = timeoutMilliseconds
        while true {
            let received: (count: Int, from: NetworkEndpoint)?
            do {
                received = try transport.receive(into: buffer, timeoutMilliseconds: timeout)
            } catch {
                throw .network(error)
            }
            guard let received else { return nil }
            if routing.isPeer(received.from) { return received.count }
            datagramsFromUnknownSources += 1
            timeout = 0
        }
    }

    /// Hands `security.output[0..<count]` to the transport.
    func transmitProtected(count: Int, ssrc: UInt32) throws(PublisherError) {
        let result: Result<Void, PublisherError> = security.output.withUnsafeBytes { bytes in
            Result { () throws(PublisherError) in
                try send(UnsafeRawBufferPointer(rebasing: bytes[0..<count]), ssrc: ssrc)
            }
        }
        try result.get()
    }

    /// Sends an RTP packet through the pacer when there is one (then what the budget allows
    /// leaves now, the rest on later `drainPacer` calls), otherwise at once. A packet that carries
    /// `transportSequenceNumber` is reported to the feedback adapter when it actually leaves.
    func sendRTP(_ bytes: UnsafeRawBufferPointer, ssrc: UInt32, transportSequenceNumber: UInt16?,
                 priority: PacketPacer.Priority) throws(PublisherError) {
        let now = clock.monotonicMicroseconds()
        if pacer != nil {
            if pacer!.enqueue(bytes, ssrc: ssrc, transportSequenceNumber: transportSequenceNumber, priority: priority,
                              nowMicroseconds: now) {
                try drainPacer()
                return
            }
            pacerOverflows += 1
        }
        try send(bytes, ssrc: ssrc)
        if let transportSequenceNumber { recordSent(transportSequenceNumber: transportSequenceNumber, bytes: bytes.count) }
    }

    /// Sends `security.output[0..<count]` as an RTP packet (see `sendRTP`).
    func sendProtectedRTP(count: Int, ssrc: UInt32, transportSequenceNumber: UInt16?,
                          priority: PacketPacer.Priority) throws(PublisherError) {
        let result: Result<Void, PublisherError> = security.output.withUnsafeBytes { bytes in
            Result { () throws(PublisherError) in
                try sendRTP(UnsafeRawBufferPointer(rebasing: bytes[0..<count]), ssrc: ssrc,
                            transportSequenceNumber: transportSequenceNumber, priority: priority)
            }
        }
        try result.get()
    }

    /// Sends what the pacer's budget allows now.
    func drainPacer() throws(PublisherError) {
        guard var pacer else { return }
        self.pacer = nil  // the departures below must not re-enter it
        defer { self.pacer = pacer }
        try pacer.drain(nowMicroseconds: clock.monotonicMicroseconds()) { (departure) throws(PublisherError) in
            try send(departure.bytes, ssrc: departure.ssrc)
            if let sequence = departure.transportSequenceNumber {
                recordSent(transportSequenceNumber: sequence, bytes: departure.bytes.count)
            }
        }
    }

    /// Serializes, protects and sends an RTCP compound packet for stream `ssrc`.
    func sendRTCP(_ compound: RTCPCompoundPacket, ssrc: UInt32) throws(PublisherError) {
        let count: Int
        do {
            count = try security.protect(compound)
        } catch {
            throw PublisherError(error)
        }
        try transmitProtected(count: count, ssrc: ssrc)
    }

    /// Unprotects a received SRTCP packet in place (plain RTCP passes through when insecure);
    /// returns the RTCP length.
    func unprotectRTCP(_ buffer: inout [UInt8], length: Int) throws(PublisherError) -> Int {
        do {
            return try security.unprotect(&buffer, length: length, kind: .rtcp)
        } catch {
            throw PublisherError(error)
        }
    }
}

extension PublisherError {
    /// The publisher's reading of a security-stage failure.
    init(_ error: PacketSecurityError<SRTPError>) {
        switch error {
        case let .packetTooLarge(size, limit): self = .packetTooLarge(size: size, limit: limit)
        case let .refused(failure): self = .srtp(failure)
        case let .invalidLength(length): self = .invalidConfiguration("SRTP returned \(length) bytes")
        case let .unserializable(wire): self = .wire(wire)
        }
    }
}
