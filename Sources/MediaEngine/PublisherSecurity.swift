import SRTP

/// How a publisher protects what it sends. SRTP is the default everywhere (SPEC §6); plaintext
/// needs this explicit opt-in.
public enum PublisherSecurity: Sendable {
    /// SRTP/SRTCP with `local` for what we send and `remote` (default: the same material) for the
    /// SRTCP feedback we receive (SDES gives each side its own key, RFC 4568 §6.1).
    case srtp(local: SRTPKeyingMaterial, remote: SRTPKeyingMaterial? = nil)
    /// Plain RTP/RTCP. Only for receivers that cannot do SRTP, on networks you trust.
    case insecure
}
