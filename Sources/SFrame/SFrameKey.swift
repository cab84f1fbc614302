/// The key and salt SFrame encrypts with for one KID (RFC 9605 §4.4.2), derived from that KID's
/// base key:
///
///     sframe_secret = HKDF-Extract("", base_key)
///     sframe_key    = HKDF-Expand(sframe_secret, "SFrame 1.0 Secret key "  + KID(8) + suite(2), Nk)
///     sframe_salt   = HKDF-Expand(sframe_secret, "SFrame 1.0 Secret salt " + KID(8) + suite(2), Nn)
public struct SFrameKey: Sendable {
    public let suite: SFrameCipherSuite
    public let keyID: UInt64
    /// `sframe_key` (for CTR+HMAC suites: the AES key, then the HMAC key).
    let key: [UInt8]
    /// `sframe_salt`.
    let salt: [UInt8]

    public init(suite: SFrameCipherSuite, keyID: UInt64, baseKey: [UInt8]) throws(SFrameError) {
        guard !baseKey.isEmpty else { throw .invalidKey("an empty base key") }
        self.suite = suite
        self.keyID = keyID
        let secret = try SFrameCrypto.extract(suite, salt: [], keyMaterial: baseKey)
        key = try SFrameCrypto.expand(suite, pseudorandomKey: secret, info: Self.label("SFrame 1.0 Secret key ", keyID, suite),
                                      length: suite.keyLength)
        salt = try SFrameCrypto.expand(suite, pseudorandomKey: secret, info: Self.label("SFrame 1.0 Secret salt ", keyID, suite),
                                       length: suite.nonceLength)
    }

    /// The HKDF info of §4.4.2: the label's text, the KID as 8 bytes and the suite as 2, big-endian.
    static func label(_ text: String, _ keyID: UInt64, _ suite: SFrameCipherSuite) -> [UInt8] {
        var bytes = Array(text.utf8)
        SFrameHeader.appendBigEndian(keyID, bytes: 8, to: &bytes)
        SFrameHeader.appendBigEndian(UInt64(suite.rawValue), bytes: 2, to: &bytes)
        return bytes
    }

    /// The nonce for `counter`: the salt XOR the counter as an `Nn`-byte big-endian integer (§4.4.3).
    func nonce(counter: UInt64) -> [UInt8] {
        var nonce = salt
        for index in 0..<8 { nonce[nonce.count - 1 - index] ^= UInt8(truncatingIfNeeded: counter >> (8 * index)) }
        return nonce
    }

    /// The next base key of §5.1's ratchet: HKDF-Expand(HKDF-Extract("", base_key), "SFrame 1.0 Ratchet", Nh).
    public static func ratchet(_ baseKey: [UInt8], suite: SFrameCipherSuite) throws(SFrameError) -> [UInt8] {
        let secret = try SFrameCrypto.extract(suite, salt: [], keyMaterial: baseKey)
        return try SFrameCrypto.expand(suite, pseudorandomKey: secret, info: Array("SFrame 1.0 Ratchet".utf8), length: suite.hashLength)
    }
}
