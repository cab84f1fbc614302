/// Every failure the SRTP module reports. libsrtp's `srtp_err_status_t` is mapped to this type in
/// exactly one place (`SRTPError.check(_:)` in `SRTPLibrary.swift`); the remaining cases are
/// checks this module makes before any C call.
public enum SRTPError: Error, Equatable, Sendable {
    /// The master key or salt does not have the length the suite requires.
    case badKeyLength(suite: SRTPSuite, field: KeyField, expected: Int, actual: Int)
    /// The installed libsrtp cannot run this suite (e.g. built without a GCM backend).
    /// Reported when a session is created, never by protect/unprotect.
    case unsupportedSuite(SRTPSuite)
    /// The output buffer cannot hold the result; `needed` bytes are required.
    case bufferTooSmall(needed: Int, available: Int)
    /// The packet's authentication tag did not verify (`srtp_err_status_auth_fail`).
    case authenticationFailed
    /// The packet was rejected by the replay check (RFC 3711 §3.3.2).
    case replayed(Replay)
    /// An `a=crypto` line (RFC 4568 §9.1) could not be used.
    case badCryptoLine(CryptoLineProblem)
    /// None of the `offered` `a=crypto` lines names a suite this engine runs (RFC 4568 §7.1.2:
    /// the answerer then rejects the media stream).
    case noCommonSuite(offered: Int)
    /// The replay window must be 64...32767 packets (libsrtp's limits for `window_size`).
    case invalidReplayWindow(Int)
    /// `protect` was called on an inbound session or `unprotect` on an outbound one;
    /// the associated value is the session's direction.
    case wrongDirection(SRTPSession.Direction)
    /// The input is not an RTP or RTCP packet this module can hand to libsrtp.
    case malformedPacket(String)
    /// Any other `srtp_err_status_t` value, with libsrtp's enumerator name.
    case library(status: Int32, name: String)

    /// How a replayed packet was recognised by libsrtp's replay database.
    public enum Replay: Equatable, Sendable {
        /// The packet index was already seen (`srtp_err_status_replay_fail`).
        case duplicate
        /// The packet index lies behind the replay window (`srtp_err_status_replay_old`).
        case tooOld
    }

    /// Which part of the keying material had the wrong length.
    public enum KeyField: String, Equatable, Sendable {
        case masterKey, masterSalt, concatenated
    }

    /// Why an `a=crypto` attribute was rejected.
    public enum CryptoLineProblem: Equatable, Sendable {
        /// The text is not of the form `a=crypto:<tag> <suite> <key-params>`; says what was wrong.
        case malformed(String)
        /// The crypto-suite name is not one this module implements.
        case unknownSuite(String)
        /// Only the `inline:` key method exists (RFC 4568 §6.1); another one was given.
        case unsupportedKeyMethod(String)
        /// The key-salt is not valid base64 (RFC 4648 §4).
        case badBase64
        /// A key lifetime (`|2^31`) was given; this module never rekeys, so it refuses one.
        case lifetimeNotSupported
        /// An MKI (`|1:4`) was given; this module uses a single master key without MKI.
        case mkiNotSupported
        /// Several key-params, or session parameters (e.g. `KDR=1`, `UNENCRYPTED_SRTP`), were given.
        case unsupportedParameters(String)
    }
}

extension SRTPError: CustomStringConvertible {
    /// What was wrong, with the values involved and what is accepted. Never shows key bytes.
    public var description: String {
        switch self {
        case let .badKeyLength(suite, field, expected, actual):
            switch field {
            case .concatenated:
                return "the SRTP key for \(suite) must be \(expected) bytes (\(suite.masterKeyLength)-byte key + "
                    + "\(suite.masterSaltLength)-byte salt); got \(actual)"
            case .masterKey:
                return "the SRTP master key for \(suite) must be \(expected) bytes; got \(actual)"
            case .masterSalt:
                return "the SRTP master salt for \(suite) must be \(expected) bytes; got \(actual)"
            }
        case let .unsupportedSuite(suite):
            let usable = SRTPSuite.supported.map(\.rawValue).joined(separator: ", ")
            return "the installed libsrtp2 cannot run \(suite) (built without its cipher); usable suites: \(usable)"
        case let .bufferTooSmall(needed, available):
            return "the output buffer holds \(available) bytes but the result needs \(needed)"
        case .authenticationFailed:
            return "the SRTP/SRTCP packet failed authentication: wrong key or suite, or the packet was altered"
        case .replayed(.duplicate):
            return "the SRTP/SRTCP packet is a replay: a packet with its index was already received"
        case .replayed(.tooOld):
            return "the SRTP/SRTCP packet is too old: its index lies behind the replay window"
        case let .badCryptoLine(problem):
            return "the a=crypto line cannot be used: \(problem)"
        case let .invalidReplayWindow(size):
            return "a replay window of \(size) packets is out of range: use 64 to 32767"
        case let .wrongDirection(direction):
            return direction == .inbound
                ? "this SRTP session is inbound: it can only unprotect (use an outbound session to protect)"
                : "this SRTP session is outbound: it can only protect (use an inbound session to unprotect)"
        case let .malformedPacket(what):
            return "not an RTP or RTCP packet libsrtp2 can process: \(what)"
        case let .library(status, name):
            return "libsrtp2 failed with \(name) (status \(status))"
        case let .noCommonSuite(offered):
            return "none of the \(offered) offered a=crypto lines names a suite this engine runs "
                + "(it runs \(SRTPSuite.preferredSupported.map(\.rawValue).joined(separator: ", ")))"
        }
    }
}

extension SRTPError.CryptoLineProblem: CustomStringConvertible {
    /// The problem, as the end of a sentence, with what RFC 4568 allows here.
    public var description: String {
        switch self {
        case let .malformed(what):
            return "\(what) (expected 'a=crypto:<tag> <crypto-suite> inline:<base64 key||salt>', RFC 4568 §9.1)"
        case let .unknownSuite(name):
            return "unknown crypto-suite '\(name)'; known: \(SRTPSuite.allCases.map(\.rawValue).joined(separator: ", "))"
        case let .unsupportedKeyMethod(method):
            return "key method '\(method)' is not supported; only 'inline:' is (RFC 4568 §6.1)"
        case .badBase64:
            return "the inline key||salt is not valid base64"
        case .lifetimeNotSupported:
            return "a key lifetime ('|2^31') is not supported: keys are never renewed, so leave it out"
        case .mkiNotSupported:
            return "an MKI ('|1:4') is not supported: one master key is used without MKI, so leave it out"
        case let .unsupportedParameters(what):
            return "unsupported parameters (\(what)): give one inline key and no session parameters"
        }
    }
}
