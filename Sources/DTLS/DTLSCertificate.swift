internal import COpenSSL
import RTPWire

/// A self-signed ECDSA P-256 certificate and its key (RFC 8827 §6.5: a fresh one per
/// engine), made with OpenSSL: its SHA-256 fingerprint goes in SDP's `a=fingerprint`
/// (RFC 8122) and the peer checks the certificate against it.
///
/// Immutable after init; `@unchecked Sendable` because OpenSSL reference-counts and never
/// mutates a certificate or key once built.
public final class DTLSCertificate: @unchecked Sendable {
    let key: OpaquePointer
    let certificate: OpaquePointer
    /// SHA-256 of the DER certificate, as SDP announces it.
    public let fingerprint: DTLSFingerprint

    /// Generates the key (`EVP_PKEY_Q_keygen` "EC" prime256v1) and a certificate valid from a day
    /// ago for 30 days, signed with it (`X509_sign`, SHA-256).
    public init(commonName: String = "MediaEngine") throws(DTLSError) {
        guard let key = media_ec_key("prime256v1") else { throw .library("EVP_PKEY_Q_keygen(EC, prime256v1)") }
        guard let certificate = X509_new() else {
            EVP_PKEY_free(key)
            throw .library("X509_new")
        }
        var serial = UInt64.random(in: 1...UInt64(Int64.max))
        let built = Self.fill(certificate, key: key, commonName: commonName, serial: &serial)
        guard built, let digest = Self.digest(of: certificate, algorithm: "sha-256") else {
            X509_free(certificate)
            EVP_PKEY_free(key)
            throw .library("building the self-signed certificate")
        }
        self.key = key
        self.certificate = certificate
        fingerprint = DTLSFingerprint(algorithm: "sha-256", digest: digest)
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(key)
    }

    private static func fill(_ certificate: OpaquePointer, key: OpaquePointer, commonName: String, serial: inout UInt64) -> Bool {
        guard X509_set_version(certificate, 2) == 1,
              ASN1_INTEGER_set_uint64(X509_get_serialNumber(certificate), serial) == 1,
              X509_gmtime_adj(X509_getm_notBefore(certificate), -86_400) != nil,
              X509_gmtime_adj(X509_getm_notAfter(certificate), 30 * 86_400) != nil,
              X509_set_pubkey(certificate, key) == 1,
              let name = X509_get_subject_name(certificate),
              X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0) == 1,
              X509_set_issuer_name(certificate, name) == 1,
              X509_sign(certificate, key, EVP_sha256()) > 0 else { return false }
        return true
    }

    /// The digest of `certificate`'s DER encoding with the SDP-named hash (`X509_digest`).
    static func digest(of certificate: OpaquePointer, algorithm: String) -> [UInt8]? {
        let function: OpaquePointer?
        switch algorithm.lowercased() {
        case "sha-256": function = EVP_sha256()
        case "sha-384": function = EVP_sha384()
        case "sha-512": function = EVP_sha512()
        default: return nil
        }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, function, &digest, &length) == 1 else { return nil }
        return Array(digest.prefix(Int(length)))
    }
}
