/// Which source address a receiver takes a peer's packets from, when the peer's address is not
/// configured: the first valid packet pins it; a different address takes over only after
/// `takeoverRun` valid packets in a row from that one address with none from the pinned one in
/// between (the peer really moved, e.g. a NAT rebinding), so a single spoofed packet re-points
/// nothing. A configured address is never replaced.
///
/// The caller decides what "valid" means (authenticated SRTP, a known SSRC, a parseable packet)
/// and calls `admit` only for such packets.
public struct PeerAddressLatch<Address: Hashable & Sendable>: Sendable, Equatable {
    /// Valid packets in a row a new address needs to take over.
    public let takeoverRun: Int
    /// The peer's address: configured, or pinned by its first packet; nil before.
    public private(set) var peer: Address?
    private let isConfigured: Bool
    private var candidate: Address?
    private var candidateRun = 0
    /// Packets from other addresses refused, and how many times the peer moved.
    public private(set) var refused = 0
    public private(set) var takeovers = 0

    /// - Parameters:
    ///   - configured: the peer's known address (never replaced), or nil to learn it.
    ///   - takeoverRun: at least 1 (default 8).
    public init(configured: Address? = nil, takeoverRun: Int = 8) {
        peer = configured
        isConfigured = configured != nil
        self.takeoverRun = max(1, takeoverRun)
    }

    /// Whether a valid packet from `source` comes from the peer (pinning or moving it if so).
    public mutating func admit(_ source: Address) -> Bool {
        guard let current = peer else {
            peer = source
            return true
        }
        if source == current {
            candidate = nil
            candidateRun = 0
            return true
        }
        guard !isConfigured else {
            refused += 1
            return false
        }
        if candidate == source {
            candidateRun += 1
        } else {
            candidate = source
            candidateRun = 1
        }
        guard candidateRun >= takeoverRun else {
            refused += 1
            return false
        }
        peer = source
        candidate = nil
        candidateRun = 0
        takeovers += 1
        return true
    }
}
