/// Why SFrame refused a frame or a key. Every case reads as a sentence (`description`).
public enum SFrameError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes end before the SFrame header does (RFC 9605 §4.3), or hold no tag after it.
    case truncated(needed: Int, available: Int)
    /// No key is known for this KID (RFC 9605 §4.4.4: the frame may be retried once one arrives).
    case unknownKeyID(UInt64)
    /// The tag did not verify: a wrong key, or the frame, its header or its metadata changed.
    case authenticationFailed(keyID: UInt64, counter: UInt64)
    /// The counter was already seen for this KID, or is older than the replay window.
    case replayed(keyID: UInt64, counter: UInt64)
    /// A base key of the wrong size for the suite, or a KID the header cannot carry.
    case invalidKey(String)
    /// The sender's counter for this KID is used up (2^64 frames; rotate the key).
    case counterExhausted(keyID: UInt64)
    /// OpenSSL failed (the call named).
    case crypto(String)

    public var description: String {
        switch self {
        case let .truncated(needed, available): "SFrame ciphertext truncated: \(needed) bytes needed, \(available) present"
        case let .unknownKeyID(kid): "no SFrame key for KID \(kid)"
        case let .authenticationFailed(kid, ctr): "SFrame authentication failed for KID \(kid), CTR \(ctr)"
        case let .replayed(kid, ctr): "SFrame counter \(ctr) of KID \(kid) was already seen or is too old"
        case let .invalidKey(why): "invalid SFrame key: \(why)"
        case let .counterExhausted(kid): "the SFrame counter of KID \(kid) is exhausted; rotate the key"
        case let .crypto(call): "OpenSSL \(call) failed"
        }
    }
}
