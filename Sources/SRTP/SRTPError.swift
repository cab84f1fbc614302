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
