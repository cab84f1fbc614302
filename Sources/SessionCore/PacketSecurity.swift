import RTPWire

/// The security stage of one peer: what we send is protected with `outbound`, what we receive is
/// unprotected with `inbound`, and a missing side means that direction is plain. With
/// `rtcpIsPlain`, RTCP passes plain both ways even when media is protected (a Janus streaming
/// mountpoint decrypts only RTP).
///
/// Every endpoint (publisher, subscriber, forwarding node) protects and unprotects through this
/// one type. It owns the reused output buffer, so a protected datagram is `output[0..<count]`
/// until the next `protect`; nothing is allocated per packet.
///
/// Not `Sendable`: confined with the endpoint that owns it.
public final class PacketSecurity<Protector: PacketProtector> {
    public let outbound: Protector?
    public let inbound: Protector?
    /// Whether RTCP leaves and arrives unprotected whatever the sessions are.
    public let rtcpIsPlain: Bool
    /// The largest plain packet `protect` accepts.
    public let maximumPacketSize: Int
    /// The protected bytes of the latest `protect`.
    public private(set) var output: [UInt8]
    /// Serialized RTCP waiting for protection (reused).
    private var plainRTCP: [UInt8] = []

    public init(outbound: Protector?, inbound: Protector?, rtcpIsPlain: Bool = false,
                maximumPacketSize: Int = 1500) {
        self.outbound = outbound
        self.inbound = inbound
        self.rtcpIsPlain = rtcpIsPlain
        self.maximumPacketSize = maximumPacketSize
        output = [UInt8](repeating: 0, count: maximumPacketSize + Protector.maximumOverhead)
        plainRTCP.reserveCapacity(maximumPacketSize)
    }

    /// Whether RTP leaves protected.
    public var protectsMedia: Bool { outbound != nil }

    /// The size of the largest protected datagram: the size a history of them needs per entry.
    public var maximumProtectedSize: Int { output.count }

    /// Protects `packet` into `output` (plain packets are copied as they are); returns the count.
    public func protect(_ packet: UnsafeRawBufferPointer, kind: RTPOrRTCP) throws(PacketSecurityError<Protector.Failure>) -> Int {
        guard packet.count <= maximumPacketSize else {
            throw .packetTooLarge(size: packet.count, limit: maximumPacketSize)
        }
        let session = kind == .rtcp && rtcpIsPlain ? nil : outbound
        let result: Result<Int, Protector.Failure> = output.withUnsafeMutableBytes { destination in
            guard let session else {
                if let from = packet.baseAddress, let to = destination.baseAddress {
                    to.copyMemory(from: from, byteCount: packet.count)
                }
                return .success(packet.count)
            }
            return Result { () throws(Protector.Failure) -> Int in try session.protect(packet, kind: kind, into: destination) }
        }
        let count: Int
        do {
            count = try result.get()
        } catch {
            throw .refused(error)
        }
        guard (0...output.count).contains(count) else { throw .invalidLength(count) }
        return count
    }

    /// Protects `packet` into `output`; returns the count.
    public func protect(_ packet: ArraySlice<UInt8>, kind: RTPOrRTCP) throws(PacketSecurityError<Protector.Failure>) -> Int {
        let result: Result<Int, PacketSecurityError<Protector.Failure>> = packet.withUnsafeBytes { bytes in
            Result { () throws(PacketSecurityError<Protector.Failure>) -> Int in try protect(bytes, kind: kind) }
        }
        return try result.get()
    }

    /// Serializes an RTCP compound packet and protects it into `output`; returns the count.
    public func protect(_ compound: RTCPCompoundPacket) throws(PacketSecurityError<Protector.Failure>) -> Int {
        plainRTCP.removeAll(keepingCapacity: true)
        do {
            try compound.serialize(into: &plainRTCP)
        } catch {
            throw .unserializable(error)
        }
        return try protect(plainRTCP[...], kind: .rtcp)
    }

    /// Unprotects `buffer[0..<length]` in place (plain directions pass as they are); returns the
    /// plain length, never more than `length`. Inlinable: specialized for the caller's
    /// protector, the per-packet call does not go through the generic class's witnesses.
    @inlinable
    public func unprotect(_ buffer: inout [UInt8], length: Int, kind: RTPOrRTCP) throws(PacketSecurityError<Protector.Failure>) -> Int {
        guard (0...buffer.count).contains(length) else { throw .invalidLength(length) }
        guard let inbound, !(kind == .rtcp && rtcpIsPlain) else { return length }
        let result: Result<Int, Protector.Failure> = buffer.withUnsafeMutableBytes { bytes in
            Result { () throws(Protector.Failure) -> Int in try inbound.unprotect(inPlace: bytes, length: length, kind: kind) }
        }
        let plain: Int
        do {
            plain = try result.get()
        } catch {
            throw .refused(error)
        }
        guard (0...length).contains(plain) else { throw .invalidLength(plain) }
        return plain
    }
}
