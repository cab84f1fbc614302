import RTPWire

/// Why `PacketSecurity` could not protect, unprotect or serialize a packet.
public enum PacketSecurityError<Failure: Error>: Error {
    /// The plain packet is larger than the stage accepts.
    case packetTooLarge(size: Int, limit: Int)
    /// The protector refused the packet (RFC 3711: authentication, replay, index reuse).
    case refused(Failure)
    /// The protector returned a length outside the packet it was given.
    case invalidLength(Int)
    /// An RTCP compound packet could not be serialized.
    case unserializable(WireError)
}
