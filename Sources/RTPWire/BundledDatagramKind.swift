/// What a datagram on a port shared by STUN, DTLS and SRTP is, from its first byte
/// (RFC 7983 §7, as updated by RFC 9443): 0–3 STUN, 20–63 DTLS, 128–191 RTP/RTCP; the rest
/// (ZRTP, TURN channels, QUIC) is not used by this engine and is dropped.
public enum BundledDatagramKind: Sendable, Equatable {
    case stun
    case dtls
    case rtpOrRTCP
    case other

    public static func classify(_ bytes: ArraySlice<UInt8>) -> BundledDatagramKind { classify(firstByte: bytes.first) }

    /// The kind a datagram starting with `firstByte` is (nil: an empty datagram).
    public static func classify(firstByte: UInt8?) -> BundledDatagramKind {
        guard let first = firstByte else { return .other }
        switch first {
        case 0...3: return .stun
        case 20...63: return .dtls
        case 128...191: return .rtpOrRTCP
        default: return .other
        }
    }
}
