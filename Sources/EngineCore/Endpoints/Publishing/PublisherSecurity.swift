import SRTP

/// How a publisher protects what it sends. SRTP is the default everywhere (docs/wire-and-security.md); plaintext
/// needs this explicit opt-in.
public enum PublisherSecurity: Sendable {
    /// SRTP/SRTCP with `local` for what we send and `remote` (default: the same material) for the
    /// SRTCP feedback we receive (SDES gives each side its own key, RFC 4568 §6.1).
    case srtp(local: SRTPKeyingMaterial, remote: SRTPKeyingMaterial? = nil)
    /// SRTP media (RTP protected with `local`) but PLAIN RTCP both ways: sender reports go out
    /// unprotected and feedback (PLI/FIR/NACK/REMB) is accepted unprotected. For receivers that
    /// decrypt only RTP, such as a Janus streaming-plugin mountpoint with `srtpcrypto`, which
    /// sends its PLI/REMB as plain RTCP from `videortcpport`. RTCP (SSRCs, timing, bitrate
    /// feedback) is then readable and forgeable on the path: only on networks you trust.
    case srtpPlainRTCP(local: SRTPKeyingMaterial)
    /// Plain RTP/RTCP. Only for receivers that cannot do SRTP, on networks you trust.
    case insecure

    /// Whether RTCP leaves (and feedback arrives) without SRTCP protection.
    public var rtcpIsPlain: Bool {
        switch self {
        case .srtp: return false
        case .srtpPlainRTCP, .insecure: return true
        }
    }
}
