internal import COpenSSL
import RTPWire
import SRTP

/// One DTLS 1.2 association for DTLS-SRTP (RFC 5764, RFC 6347) on OpenSSL, over memory BIOs:
/// the caller feeds it received DTLS datagrams (`handle`), runs its retransmission timer
/// (`poll`), and sends the datagrams both return. `use_srtp` offers the suites of
/// `SRTPSuite.preference` the installed libsrtp runs (AEAD_AES_128_GCM, AEAD_AES_256_GCM, then
/// AES128_CM_SHA1_80 and _32; as the DTLS server, OpenSSL picks the first of ours the client
/// offers too); the peer's certificate must match the fingerprint from its SDP;
/// once connected, `keys` holds the exported SRTP keys (`SSL_export_keying_material`,
/// "EXTRACTOR-dtls_srtp").
///
/// Not `Sendable`: an `SSL` object is confined with its transport.
public final class DTLSAssociation {
    /// Which side of the handshake we are (RFC 5763 §5: `a=setup:active` is the client).
    public enum Role: Sendable, Equatable {
        case client
        case server
    }

    public enum State: Sendable {
        case handshaking
        case connected(DTLSSRTPKeys)
        case failed(DTLSError)
        /// The peer sent close_notify.
        case closed
    }

    public let role: Role
    public private(set) var state: State = .handshaking
    /// Largest datagram the association sends (handshake messages are fragmented to fit).
    public let mtu: Int

    private let context: OpaquePointer
    private let ssl: OpaquePointer
    private let incoming: OpaquePointer
    private let outgoing: OpaquePointer
    /// What the verify callback compares the peer's certificate with (kept alive by `self`).
    private let expected: ExpectedFingerprint
    private var readBuffer = [UInt8](repeating: 0, count: 2048)

    /// - Parameters:
    ///   - certificate: ours (its fingerprint is in our SDP).
    ///   - remoteFingerprint: from the peer's SDP `a=fingerprint`.
    ///   - srtpSuites: the protection profiles offered (client) or accepted (server), most
    ///     preferred first (RFC 5764 §4.1.2; default: `SRTPSuite.preferredSupported`, AEAD-GCM
    ///     first). Each must run on the installed libsrtp.
    public init(role: Role, certificate: DTLSCertificate, remoteFingerprint: DTLSFingerprint, mtu: Int = 1200,
                srtpSuites: [SRTPSuite] = SRTPSuite.preferredSupported) throws(DTLSError) {
        guard DTLSCertificate.supports(remoteFingerprint.algorithm) else {
            throw .unsupportedFingerprintAlgorithm(remoteFingerprint.algorithm)
        }
        guard !srtpSuites.isEmpty, srtpSuites.allSatisfy(\.isSupported) else {
            throw .unusableSRTPSuites(srtpSuites.filter { !$0.isSupported })
        }
        guard let context = SSL_CTX_new(DTLS_method()) else { throw .library("SSL_CTX_new(DTLS_method)") }
        guard SSL_CTX_use_certificate(context, certificate.certificate) == 1,
              SSL_CTX_use_PrivateKey(context, certificate.key) == 1,
              SSL_CTX_check_private_key(context) == 1,
              SSL_CTX_set_tlsext_use_srtp(context, srtpSuites.map(\.dtlsProfileName).joined(separator: ":")) == 0,
              media_ssl_ctx_require_dtls12(context) == 1 else {
            SSL_CTX_free(context)
            throw .library("configuring the DTLS context")
        }
        // Self-signed certificates have no chain to verify (RFC 8827 §6.5): the check is the
        // fingerprint from SDP, made in OpenSSL's verify callback so a mismatch aborts the
        // handshake with a bad_certificate alert the peer sees too.
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT) { _, store in
            guard let store, X509_STORE_CTX_get_error_depth(store) == 0,
                  let certificate = X509_STORE_CTX_get0_cert(store),
                  let sslPointer = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()),
                  let expectedPointer = SSL_get_ex_data(OpaquePointer(sslPointer), 0) else { return 0 }
            let expected = Unmanaged<ExpectedFingerprint>.fromOpaque(expectedPointer).takeUnretainedValue()
            let actual = DTLSCertificate.digest(of: certificate, algorithm: expected.fingerprint.algorithm) ?? []
            expected.seen = actual
            return actual == expected.fingerprint.digest ? 1 : 0
        }
        guard let ssl = SSL_new(context), let incoming = BIO_new(BIO_s_mem()), let outgoing = BIO_new(BIO_s_mem()) else {
            SSL_CTX_free(context)
            throw .library("SSL_new / BIO_new")
        }
        media_bio_set_retry_on_empty(incoming)
        SSL_set_bio(ssl, incoming, outgoing)  // the SSL object owns both BIOs now
        SSL_set_options(ssl, media_ssl_op_no_query_mtu())
        _ = media_ssl_set_mtu(ssl, mtu - 28)  // IP + UDP headers are not the record layer's
        if role == .client { SSL_set_connect_state(ssl) } else { SSL_set_accept_state(ssl) }
        self.role = role
        self.mtu = mtu
        self.context = context
        self.ssl = ssl
        self.incoming = incoming
        self.outgoing = outgoing
        expected = ExpectedFingerprint(remoteFingerprint)
        SSL_set_ex_data(ssl, 0, Unmanaged.passUnretained(expected).toOpaque())
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    /// Starts the handshake: the client's first flight (ClientHello); nothing for a server.
    public func start() -> [[UInt8]] {
        advance()
        return drain()
    }

    /// Handles one received DTLS datagram; returns the datagrams to send in answer.
    public func handle(_ datagram: ArraySlice<UInt8>) -> [[UInt8]] {
        guard !datagram.isEmpty, datagram.count <= Int(Int32.max) else { return [] }
        let written = datagram.withUnsafeBytes { BIO_write(incoming, $0.baseAddress, Int32($0.count)) }
        guard written > 0 else { return [] }
        advance()
        return drain()
    }

    /// Runs the handshake's retransmission timer (RFC 6347 §4.2.4): the datagrams of a
    /// retransmitted flight, if it fired.
    public func poll() -> [[UInt8]] {
        guard case .handshaking = state else { return [] }
        var seconds = 0, microseconds = 0
        guard media_dtls_get_timeout(ssl, &seconds, &microseconds) == 1, seconds == 0, microseconds == 0 else { return [] }
        if media_dtls_handle_timeout(ssl) < 0 {
            state = .failed(.timedOut)
            return []
        }
        return drain()
    }

    /// Milliseconds until `poll` has work, nil when no timer runs.
    public var millisecondsUntilTimeout: Int? {
        var seconds = 0, microseconds = 0
        guard media_dtls_get_timeout(ssl, &seconds, &microseconds) == 1 else { return nil }
        return seconds * 1000 + microseconds / 1000
    }

    private func advance() {
        switch state {
        case .handshaking:
            let result = SSL_do_handshake(ssl)
            if result == 1 {
                state = finishHandshake()
                return
            }
            let error = SSL_get_error(ssl, result)
            if error != SSL_ERROR_WANT_READ, error != SSL_ERROR_WANT_WRITE {
                if let seen = expected.seen, seen != expected.fingerprint.digest {
                    _ = DTLSError.queue()
                    state = .failed(.fingerprintMismatch(expected: expected.fingerprint.description,
                                                         actual: DTLSFingerprint(algorithm: expected.fingerprint.algorithm, digest: seen).description))
                } else {
                    state = .failed(.handshakeFailed(DTLSError.queue()))
                }
            }
        case .connected:
            // Post-handshake records: alerts (close_notify) or a retransmitted last flight.
            let result = readBuffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if result <= 0, SSL_get_error(ssl, result) == SSL_ERROR_ZERO_RETURN { state = .closed }
        case .failed, .closed:
            break
        }
    }

    /// Checks the peer's certificate against its SDP fingerprint once more, then exports the
    /// SRTP keys.
    private func finishHandshake() -> State {
        guard let peer = SSL_get1_peer_certificate(ssl) else { return .failed(.handshakeFailed("the peer sent no certificate")) }
        defer { X509_free(peer) }
        let actual = DTLSCertificate.digest(of: peer, algorithm: expected.fingerprint.algorithm) ?? []
        guard actual == expected.fingerprint.digest else {
            return .failed(.fingerprintMismatch(expected: expected.fingerprint.description,
                                                actual: DTLSFingerprint(algorithm: expected.fingerprint.algorithm, digest: actual).description))
        }
        guard let profile = SSL_get_selected_srtp_profile(ssl) else { return .failed(.noSRTPProfile) }
        guard let suite = SRTPSuite(dtlsProfileID: profile.pointee.id) else { return .failed(.noSRTPProfile) }
        // RFC 5764 §4.2: client key | server key | client salt | server salt.
        let keyLength = suite.masterKeyLength, saltLength = suite.masterSaltLength
        var material = [UInt8](repeating: 0, count: 2 * (keyLength + saltLength))
        let label = "EXTRACTOR-dtls_srtp"
        guard SSL_export_keying_material(ssl, &material, material.count, label, label.utf8.count, nil, 0, 0) == 1 else {
            return .failed(.library("SSL_export_keying_material"))
        }
        func keys(_ keyOffset: Int, _ saltOffset: Int) throws(SRTPError) -> SRTPKeyingMaterial {
            try SRTPKeyingMaterial(suite: suite, masterKey: Array(material[keyOffset..<(keyOffset + keyLength)]),
                                   masterSalt: Array(material[saltOffset..<(saltOffset + saltLength)]))
        }
        do {
            let client = try keys(0, 2 * keyLength), server = try keys(keyLength, 2 * keyLength + saltLength)
            for index in material.indices { material[index] = 0 }  // the master secrets live on in libsrtp only
            return .connected(role == .client ? DTLSSRTPKeys(suite: suite, local: client, remote: server)
                                              : DTLSSRTPKeys(suite: suite, local: server, remote: client))
        } catch {
            return .failed(.library(operation: "SRTP keys", detail: "\(error)"))
        }
    }

    /// What OpenSSL wrote, cut into datagrams of at most `mtu` bytes on record boundaries
    /// (DTLS records carry their length: RFC 6347 §4.1, 13-byte header).
    private func drain() -> [[UInt8]] {
        var bytes: [UInt8] = []
        while media_bio_pending(outgoing) > 0 {
            let count = readBuffer.withUnsafeMutableBytes { BIO_read(outgoing, $0.baseAddress, Int32($0.count)) }
            guard count > 0 else { break }
            bytes += readBuffer[0..<Int(count)]
        }
        var datagrams: [[UInt8]] = []
        var current: [UInt8] = []
        var offset = 0
        while offset + 13 <= bytes.count {
            let length = Int(bytes[offset + 11]) << 8 | Int(bytes[offset + 12])
            let end = min(bytes.count, offset + 13 + length)
            if !current.isEmpty, current.count + (end - offset) > mtu {
                datagrams.append(current)
                current = []
            }
            current += bytes[offset..<end]
            offset = end
        }
        if offset < bytes.count { current += bytes[offset...] }
        if !current.isEmpty { datagrams.append(current) }
        return datagrams
    }
}

extension DTLSCertificate {
    static func supports(_ algorithm: String) -> Bool { ["sha-256", "sha-384", "sha-512"].contains(algorithm.lowercased()) }
}

/// The peer's SDP fingerprint, reachable from OpenSSL's verify callback through the SSL
/// object's ex_data slot 0, and what the callback saw.
final class ExpectedFingerprint {
    let fingerprint: DTLSFingerprint
    var seen: [UInt8]?

    init(_ fingerprint: DTLSFingerprint) { self.fingerprint = fingerprint }
}
