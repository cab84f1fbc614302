import RTPWire

/// Candidate priorities and foundations (RFC 8445 §5.1.2, §5.1.1.3).
///
/// priority = 2^24 × type preference + 2^8 × local preference + (256 − component ID), with the
/// recommended type preferences (§5.1.2.2): host 126, peer-reflexive 110, server-reflexive 100,
/// relayed 0. The local preference tells apart candidates of one type on several interfaces
/// (65535 for the first, counting down); RFC 8421 §4 orders address families by it.
public enum ICECandidatePriority {
    /// The recommended type preference of `kind` (RFC 8445 §5.1.2.2).
    public static func typePreference(of kind: ICECandidate.Kind) -> UInt32 {
        switch kind {
        case .host: 126
        case .peerReflexive: 110
        case .serverReflexive: 100
        case .relayed: 0
        }
    }

    /// The priority of a candidate of `kind` (§5.1.2.1). `localPreference` 0...65535,
    /// `component` 1...256 (clamped).
    public static func priority(kind: ICECandidate.Kind, localPreference: UInt16 = 65_535, component: Int = 1) -> UInt32 {
        let component = UInt32(min(max(component, 1), 256))
        return (typePreference(of: kind) << 24) | (UInt32(localPreference) << 8) | (256 - component)
    }

    /// A foundation (§5.1.1.3): equal for candidates of the same type, from the same base IP
    /// address, through the same STUN/TURN server, over the same transport, so checks of pairs
    /// that would fail alike are frozen together. At most 32 characters of `ice-char`: a short
    /// FNV-1a hash of those four, in decimal.
    public static func foundation(kind: ICECandidate.Kind, baseAddress: String, server: String?, transport: String) -> String {
        var hash: UInt32 = 0x811C_9DC5
        for byte in "\(kind.rawValue)|\(baseAddress)|\(server ?? "")|\(transport.lowercased())".utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        return String(hash)
    }
}
