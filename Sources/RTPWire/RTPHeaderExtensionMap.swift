/// The header extensions this engine understands, each identified in SDP by a URI (RFC 8285 §5).
public enum RTPHeaderExtensionKind: String, Sendable, Hashable, CaseIterable {
    /// Client-to-mixer audio level, RFC 6464.
    case audioLevel = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"
    /// Absolute send time (6.18 fixed point seconds), webrtc.org abs-send-time.
    case absSendTime = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
    /// Transport-wide sequence number, draft-holmer-rmcat-transport-wide-cc-extensions-01 §2.
    case transportSequenceNumber = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    /// Media identification (BUNDLE MID), RFC 9143 §15 / RFC 8843, carried as an SDES item (RFC 7941).
    case mid = "urn:ietf:params:rtp-hdrext:sdes:mid"
    /// RTP stream identifier, RFC 8852 §3.1.
    case rid = "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"
    /// Repaired RTP stream identifier, RFC 8852 §3.2.
    case repairedRid = "urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id"

    /// The extension URI negotiated in SDP `a=extmap` (RFC 8285 §5).
    public var uri: String { rawValue }
}

/// A mapping of local extension identifiers to kinds for one session (RFC 8285 §5 `a=extmap`).
///
/// `RTPHeaderExtensionMap.defaults` is this engine's offer:
///
/// | id | kind |
/// |----|------|
/// | 1  | audio level (RFC 6464) |
/// | 2  | abs-send-time |
/// | 3  | transport-wide sequence number |
/// | 4  | MID |
/// | 10 | RID (RFC 8852 rtp-stream-id) |
/// | 11 | repaired RID (RFC 8852 repaired-rtp-stream-id) |
///
/// All default ids are in 1...14 so every default element can use the one-byte form.
public struct RTPHeaderExtensionMap: Sendable, Equatable {
    private var kindsByID: [UInt8: RTPHeaderExtensionKind] = [:] {
        didSet { idsByKind = RTPHeaderExtensionIDs(kindsByID) }
    }
    /// The reverse of `kindsByID`, kept beside it so `id(for:)` is a field read on the packet path.
    private var idsByKind = RTPHeaderExtensionIDs()

    /// An empty map (no extensions negotiated).
    public init() {}

    /// A map from explicit pairs, registered in order (a later pair for the same kind wins).
    /// Throws `WireError.outOfRange` for id 0 or 15 (RFC 8285 §5 allows 1...255, 15 only in the
    /// two-byte form; this type accepts 1...14 and 16...255).
    public init(_ pairs: [(id: UInt8, kind: RTPHeaderExtensionKind)]) throws(WireError) {
        for pair in pairs { try register(pair.kind, id: pair.id) }
    }

    /// The engine's default mapping (see the type's documentation).
    public static let defaults: RTPHeaderExtensionMap = {
        var map = RTPHeaderExtensionMap()
        map.kindsByID = [1: .audioLevel, 2: .absSendTime, 3: .transportSequenceNumber,
                         4: .mid, 10: .rid, 11: .repairedRid]
        return map
    }()

    /// Maps `id` to `kind`, replacing whatever `id` meant before (RFC 8285 §5).
    /// Throws `WireError.outOfRange` for id 0 or 15.
    public mutating func register(_ kind: RTPHeaderExtensionKind, id: UInt8) throws(WireError) {
        guard id != 0, id != RTPHeaderExtensions.oneByteStopID else {
            throw .outOfRange(field: "header extension id", value: Int(id))
        }
        for (existingID, existingKind) in kindsByID where existingKind == kind {
            kindsByID[existingID] = nil
        }
        kindsByID[id] = kind
    }

    /// The kind negotiated for `id`, if any.
    public func kind(for id: UInt8) -> RTPHeaderExtensionKind? { kindsByID[id] }

    /// The id negotiated for `kind`, if any (the smallest if, impossibly, several).
    public func id(for kind: RTPHeaderExtensionKind) -> UInt8? { idsByKind[kind] }
}
