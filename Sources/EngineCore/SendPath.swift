import RTPWire
import SRTP

/// What all streams of one publisher share on the way out: the transport, the outbound SRTP
/// session, the header-extension map, the clock and the transport-wide sequence number
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2: one counter across every stream of a
/// transport). Owns the reused output buffers, so sending allocates nothing per packet.
///
/// Not `Sendable`: confine a publisher and its send path to one thread or task.
public final class SendPath {
    /// Largest plain RTP/RTCP packet the path accepts.
    public static let maximumPacketSize = 1500

    public let transport: any PacketTransport
    public let extensionMap: RTPHeaderExtensionMap
    public let clock: PublisherClock
    /// Whether RTP leaves SRTP-protected (false only with `.insecure`).
    public var isSecure: Bool { outbound != nil }
    /// Whether RTCP leaves and arrives plain (`.insecure` and `.srtpPlainRTCP`).
    public let rtcpIsPlain: Bool
    /// The transport-wide sequence number the next RTP packet carries.
    public private(set) var nextTransportSequenceNumber: UInt16

    private let outbound: SRTPSession?
    let inbound: SRTPSession?
    /// Reused output of SRTP/SRTCP protection.
    private(set) var protected: [UInt8]

    /// - Throws: `.srtp` for keys the installed libsrtp cannot use.
    public init(transport: any PacketTransport, security: PublisherSecurity,
                extensionMap: RTPHeaderExtensionMap = .defaults, clock: PublisherClock = .system,
                initialTransportSequenceNumber: UInt16 = 0) throws(PublisherError) {
        self.transport = transport
        self.extensionMap = extensionMap
        self.clock = clock
        nextTransportSequenceNumber = initialTransportSequenceNumber
        switch security {
        case let .srtp(local, remote):
            do {
                outbound = try SRTPSession(direction: .outbound, keyingMaterial: local)
                inbound = try SRTPSession(direction: .inbound, keyingMaterial: remote ?? local)
            } catch {
                throw .srtp(error)
            }
            rtcpIsPlain = false
        case let .srtpPlainRTCP(local):
            do {
                outbound = try SRTPSession(direction: .outbound, keyingMaterial: local)
            } catch {
                throw .srtp(error)
            }
            inbound = nil
            rtcpIsPlain = true
        case .insecure:
            outbound = nil
            inbound = nil
            rtcpIsPlain = true
        }
        protected = [UInt8](repeating: 0, count: Self.maximumPacketSize + SRTPSession.maxTrailerLength)
    }

    /// Takes the next transport-wide sequence number (wraps mod 2^16 by design).
    func takeTransportSequenceNumber() -> UInt16 {
        defer { nextTransportSequenceNumber &+= 1 }
        return nextTransportSequenceNumber
    }

    /// Protects `packet` (RTP or RTCP) into the reused buffer and returns how many bytes of
    /// `protected` to send; plain packets are copied as they are.
    func protect(_ packet: [UInt8], isRTCP: Bool) throws(PublisherError) -> Int {
        guard packet.count <= Self.maximumPacketSize else {
            throw .packetTooLarge(size: packet.count, limit: Self.maximumPacketSize)
        }
        guard let outbound, !(isRTCP && rtcpIsPlain) else {
            packet.withUnsafeBytes { source in
                protected.withUnsafeMutableBytes { output in
                    if let from = source.baseAddress, let to = output.baseAddress {
                        to.copyMemory(from: from, byteCount: source.count)
                    }
                }
            }
            return packet.count
        }
        do {
            return isRTCP ? try outbound.protectRTCP(packet, into: &protected)
                : try outbound.protectRTP(packet, into: &protected)
        } catch {
            throw .srtp(error)
        }
    }

    /// Hands `protected[0..<count]` to the transport.
    func transmitProtected(count: Int, ssrc: UInt32) throws(PublisherError) {
        let result: Result<Void, PublisherError> = protected.withUnsafeBytes { bytes in
            Result { () throws(PublisherError) in
                try transport.send(UnsafeRawBufferPointer(rebasing: bytes[0..<count]), ssrc: ssrc)
            }
        }
        try result.get()
    }

    /// Protects and sends an already-built RTCP compound packet for stream `ssrc`.
    func sendRTCP(_ packet: [UInt8], ssrc: UInt32) throws(PublisherError) {
        let count = try protect(packet, isRTCP: true)
        try transmitProtected(count: count, ssrc: ssrc)
    }

    /// Unprotects a received SRTCP packet in place (plain RTCP passes through when insecure);
    /// returns the RTCP length.
    func unprotectRTCP(_ buffer: inout [UInt8], length: Int) throws(PublisherError) -> Int {
        guard let inbound, !rtcpIsPlain else { return length }
        let result: Result<Int, SRTPError> = buffer.withUnsafeMutableBytes { bytes in
            Result { () throws(SRTPError) -> Int in try inbound.unprotectRTCP(inPlace: bytes, packetLength: length) }
        }
        do { return try result.get() } catch { throw .srtp(error) }
    }
}
