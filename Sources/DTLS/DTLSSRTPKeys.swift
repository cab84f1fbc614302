import SRTP

/// The SRTP keys a DTLS-SRTP handshake exported (RFC 5764 §4.2): the profile's suite, ours to
/// protect what we send and the peer's to unprotect what it sends.
public struct DTLSSRTPKeys: Sendable {
    public var suite: SRTPSuite
    public var local: SRTPKeyingMaterial
    public var remote: SRTPKeyingMaterial
}
