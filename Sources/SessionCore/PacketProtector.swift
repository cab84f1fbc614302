import RTPWire

/// One direction of packet protection for a transport, such as an SRTP session (RFC 3711 §3):
/// the plug that `PacketSecurity` drives. The libsrtp2 session conforms in EngineCore; a test or
/// another scheme (a DTLS-keyed session, an end-to-end layer) conforms the same way.
///
/// Implementations write only into the memory they are handed and allocate nothing per packet.
/// Not required to be `Sendable`: a protector is confined with the endpoint that owns it.
public protocol PacketProtector: AnyObject {
    /// Why the protector refused a packet (a bad tag, a replay, an index protected before).
    associatedtype Failure: Error

    /// The most bytes one `protect` may add to a packet; output buffers of the packet's size plus
    /// this always fit.
    static var maximumOverhead: Int { get }

    /// Protects `packet` (RTP or RTCP, as `kind` says) into `output`; returns the bytes written.
    func protect(_ packet: UnsafeRawBufferPointer, kind: RTPOrRTCP,
                 into output: UnsafeMutableRawBufferPointer) throws(Failure) -> Int

    /// Unprotects the first `length` bytes of `buffer` in place; returns the plain length.
    func unprotect(inPlace buffer: UnsafeMutableRawBufferPointer, length: Int,
                   kind: RTPOrRTCP) throws(Failure) -> Int
}
