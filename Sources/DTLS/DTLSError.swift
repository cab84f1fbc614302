internal import COpenSSL
import SRTP

/// Why a DTLS-SRTP association (RFC 5764) could not be set up.
public enum DTLSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An OpenSSL call failed (its error queue's text).
    case library(operation: String, detail: String)
    /// The handshake failed: an alert, a bad record, a certificate OpenSSL refused.
    case handshakeFailed(String)
    /// The peer's certificate does not hash to the fingerprint its SDP announced (RFC 5763 §5):
    /// the connection is refused and no keys are exported.
    case fingerprintMismatch(expected: String, actual: String)
    /// The fingerprint's hash function is not one this engine checks (sha-256, sha-384, sha-512).
    case unsupportedFingerprintAlgorithm(String)
    /// The peer offered no SRTP protection profile we support (RFC 5764 §4.1.2).
    case noSRTPProfile
    /// The SRTP suites to offer are empty or include ones the installed libsrtp cannot run.
    case unusableSRTPSuites([SRTPSuite])
    /// The handshake did not finish within its retransmissions (RFC 6347 §4.2.4.1).
    case timedOut
    /// The association is not connected (yet, or any more).
    case notConnected

    public var description: String {
        switch self {
        case let .library(operation, detail): return "OpenSSL \(operation) failed: \(detail)"
        case let .handshakeFailed(reason): return "DTLS handshake failed: \(reason)"
        case let .fingerprintMismatch(expected, actual):
            return "the peer's DTLS certificate fingerprint \(actual) is not the \(expected) its SDP announced"
        case let .unsupportedFingerprintAlgorithm(name): return "certificate fingerprint hash \(name) is not supported"
        case .noSRTPProfile: return "the DTLS peer agreed no SRTP protection profile (use_srtp)"
        case let .unusableSRTPSuites(suites):
            return suites.isEmpty ? "no SRTP suite to offer in use_srtp"
                : "the installed libsrtp cannot run \(suites.map(\.rawValue).joined(separator: ", ")) (offer use_srtp profiles it runs)"
        case .timedOut: return "the DTLS handshake timed out"
        case .notConnected: return "DTLS is not connected"
        }
    }

    /// OpenSSL's error queue as text (emptied).
    static func queue() -> String {
        var lines: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            lines.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return lines.isEmpty ? "no detail" : lines.joined(separator: "; ")
    }

    static func library(_ operation: String) -> DTLSError { .library(operation: operation, detail: queue()) }
}
