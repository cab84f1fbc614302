/// The SFrame cipher suites of RFC 9605 §4.5 (IANA "SFrame Cipher Suites", §8.1), with the
/// constants of its Table 4: hash output `Nh`, AES key `Nka` (compound CTR+HMAC suites only),
/// AEAD key `Nk`, nonce `Nn` and tag `Nt`, all in bytes.
public enum SFrameCipherSuite: UInt16, CaseIterable, Sendable, Hashable, CustomStringConvertible {
    /// AES-128 in counter mode with HMAC-SHA256 tags cut to 80 bits (§4.5.1).
    case aes128CtrHmacSha256_80 = 0x0001
    /// The same with 64-bit tags.
    case aes128CtrHmacSha256_64 = 0x0002
    /// The same with 32-bit tags (for audio, where every byte counts).
    case aes128CtrHmacSha256_32 = 0x0003
    /// AES-128-GCM with 128-bit tags, SHA-256 for key derivation.
    case aes128GcmSha256_128 = 0x0004
    /// AES-256-GCM with 128-bit tags, SHA-512 for key derivation.
    case aes256GcmSha512_128 = 0x0005

    public var description: String {
        switch self {
        case .aes128CtrHmacSha256_80: "AES_128_CTR_HMAC_SHA256_80"
        case .aes128CtrHmacSha256_64: "AES_128_CTR_HMAC_SHA256_64"
        case .aes128CtrHmacSha256_32: "AES_128_CTR_HMAC_SHA256_32"
        case .aes128GcmSha256_128: "AES_128_GCM_SHA256_128"
        case .aes256GcmSha512_128: "AES_256_GCM_SHA512_128"
        }
    }

    /// Output size of the suite's hash (`Hash.Nh`).
    public var hashLength: Int { self == .aes256GcmSha512_128 ? 64 : 32 }
    /// AES key size of the compound CTR+HMAC AEAD (`AEAD.Nka`); nil for GCM.
    public var encryptionKeyLength: Int? { isCounterModeWithHMAC ? 16 : nil }
    /// AEAD key size (`AEAD.Nk`): `Nka + Nh` for CTR+HMAC.
    public var keyLength: Int {
        switch self {
        case .aes128CtrHmacSha256_80, .aes128CtrHmacSha256_64, .aes128CtrHmacSha256_32: 48
        case .aes128GcmSha256_128: 16
        case .aes256GcmSha512_128: 32
        }
    }
    /// Nonce size (`AEAD.Nn`).
    public var nonceLength: Int { 12 }
    /// Authentication tag size (`AEAD.Nt`).
    public var tagLength: Int {
        switch self {
        case .aes128CtrHmacSha256_80: 10
        case .aes128CtrHmacSha256_64: 8
        case .aes128CtrHmacSha256_32: 4
        case .aes128GcmSha256_128, .aes256GcmSha512_128: 16
        }
    }
    /// Whether the AEAD is §4.5.1's AES-CTR + HMAC composition (else AES-GCM).
    public var isCounterModeWithHMAC: Bool { rawValue <= 3 }
}
