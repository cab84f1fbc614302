internal import COpenSSL
import SRTP

/// The DTLS-SRTP protection profiles (RFC 5764 §4.1.2, RFC 7714 §14.2) for the SRTP suites.
extension SRTPSuite {
    /// The profile name OpenSSL's `SSL_CTX_set_tlsext_use_srtp` takes.
    var dtlsProfileName: String {
        switch self {
        case .aeadAes128Gcm: "SRTP_AEAD_AES_128_GCM"
        case .aeadAes256Gcm: "SRTP_AEAD_AES_256_GCM"
        case .aesCm128HmacSha1_80: "SRTP_AES128_CM_SHA1_80"
        case .aesCm128HmacSha1_32: "SRTP_AES128_CM_SHA1_32"
        }
    }

    /// The suite of the profile `SSL_get_selected_srtp_profile` reports (nil: not one of ours).
    init?(dtlsProfileID id: UInt) {
        switch id {
        case UInt(SRTP_AEAD_AES_128_GCM): self = .aeadAes128Gcm
        case UInt(SRTP_AEAD_AES_256_GCM): self = .aeadAes256Gcm
        case UInt(SRTP_AES128_CM_SHA1_80): self = .aesCm128HmacSha1_80
        case UInt(SRTP_AES128_CM_SHA1_32): self = .aesCm128HmacSha1_32
        default: return nil
        }
    }

    /// The `use_srtp` list this engine offers: the suites it prefers (AEAD-GCM first) that the
    /// installed libsrtp runs, in that order.
    static var dtlsProfileList: String { preferredSupported.map(\.dtlsProfileName).joined(separator: ":") }
}
