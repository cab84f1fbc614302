internal import CSRTP

/// Process-wide libsrtp state: one `srtp_init`, the suite probe, and the policy builder.
enum SRTPLibrary {
    /// `srtp_init()`'s status. A static `let` is initialised lazily under `swift_once`, so
    /// libsrtp is initialised exactly once per process, thread-safely, on first use.
    /// `srtp_shutdown` is never called: sessions may live until the process exits.
    static let initStatus: srtp_err_status_t = srtp_init()

    /// Throws when `srtp_init` failed (it only fails when libsrtp's self-tests fail).
    static func ensureInitialized() throws(SRTPError) {
        try SRTPError.check(initStatus)
    }

    /// The suites for which `srtp_create` succeeds with this libsrtp build. A suite whose cipher
    /// is not compiled in makes `srtp_create` fail (`bad_param`/`cipher_fail`), which is what
    /// we look for — once per process, so `SRTPSession.init` can say `unsupportedSuite` early.
    static let supportedSuites: Set<SRTPSuite> = {
        guard initStatus == srtp_err_status_ok else { return [] }
        var found = Set<SRTPSuite>()
        for suite in SRTPSuite.allCases {
            var probeKey = [UInt8](repeating: 0, count: suite.keyingMaterialLength)
            let status = probeKey.withUnsafeMutableBufferPointer { key -> srtp_err_status_t in
                var policy = makePolicy(suite: suite, direction: .outbound, key: key.baseAddress!,
                                        replayWindowSize: SRTPSession.defaultReplayWindowSize)
                var session: srtp_t?
                let status = srtp_create(&session, &policy)
                if let session { _ = srtp_dealloc(session) }
                return status
            }
            if status == srtp_err_status_ok { found.insert(suite) }
        }
        return found
    }()

    /// Builds the libsrtp policy for one wildcard-SSRC stream template. `key` must stay valid
    /// until `srtp_create` returns (libsrtp copies and expands it).
    static func makePolicy(suite: SRTPSuite, direction: SRTPSession.Direction,
                           key: UnsafeMutablePointer<UInt8>, replayWindowSize: Int) -> srtp_policy_t {
        var policy = srtp_policy_t()
        switch suite {
        case .aesCm128HmacSha1_80:
            srtp_crypto_policy_set_rtp_default(&policy.rtp)
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        case .aesCm128HmacSha1_32:
            srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(&policy.rtp)
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        case .aeadAes128Gcm:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp)
        case .aeadAes256Gcm:
            srtp_crypto_policy_set_aes_gcm_256_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_256_16_auth(&policy.rtcp)
        }
        policy.ssrc.type = direction == .inbound ? ssrc_any_inbound : ssrc_any_outbound
        policy.ssrc.value = 0
        policy.key = key
        policy.window_size = UInt(replayWindowSize)
        policy.allow_repeat_tx = 0
        policy.next = nil
        return policy
    }
}

extension SRTPError {
    /// libsrtp's enumerator names, indexed by `srtp_err_status_t` value (srtp.h).
    private static let statusNames = [
        "ok", "fail", "bad_param", "alloc_fail", "dealloc_fail", "init_fail", "terminus",
        "auth_fail", "cipher_fail", "replay_fail", "replay_old", "algo_fail", "no_such_op",
        "no_ctx", "cant_check", "key_expired", "socket_err", "signal_err", "nonce_bad",
        "read_fail", "write_fail", "parse_err", "encode_err", "semaphore_err", "pfkey_err",
        "bad_mki", "pkt_idx_old", "pkt_idx_adv",
    ]

    /// The one place where `srtp_err_status_t` becomes a Swift error.
    static func check(_ status: srtp_err_status_t) throws(SRTPError) {
        switch status {
        case srtp_err_status_ok: return
        case srtp_err_status_auth_fail: throw .authenticationFailed
        case srtp_err_status_replay_fail: throw .replayed(.duplicate)
        case srtp_err_status_replay_old: throw .replayed(.tooOld)
        default:
            let raw = Int32(truncatingIfNeeded: status.rawValue)
            let name = statusNames.indices.contains(Int(raw)) ? statusNames[Int(raw)] : "unknown"
            throw .library(status: raw, name: "srtp_err_status_" + name)
        }
    }
}
