/// Decides when a receiver that follows one media SSRC should start over on another: the first
/// packet sets it; a different SSRC takes over only after `run` packets of it with consecutive
/// sequence numbers and none of the current SSRC in between (the sender really restarted), so a
/// single stray or spoofed packet cannot reset the stream. Packets it holds back are counted.
public struct SSRCChangeGuard: Sendable {
    /// Consecutive packets a new SSRC needs.
    public let run: Int
    /// The SSRC being followed, nil before the first packet.
    public private(set) var current: UInt32?
    /// Packets of another SSRC that were not (yet) enough to switch.
    public private(set) var heldBack = 0
    private var candidate: (ssrc: UInt32, lastSequenceNumber: UInt16, count: Int)?

    /// - Parameter run: at least 1 (default 4).
    public init(run: Int = 4) {
        self.run = max(1, run)
    }

    /// What to do with a packet.
    public enum Verdict: Sendable, Equatable {
        /// Of the current stream.
        case current
        /// The first packet, or the one that completes a new SSRC's run: start the stream over.
        case start
        /// Of another SSRC, not (yet) enough to switch: drop it.
        case holdBack
    }

    /// The verdict for a packet of `ssrc` with `sequenceNumber`.
    public mutating func admit(ssrc: UInt32, sequenceNumber: UInt16) -> Verdict {
        guard let current else {
            self.current = ssrc
            return .start
        }
        if ssrc == current {
            candidate = nil
            return .current
        }
        if let candidate, candidate.ssrc == ssrc, sequenceNumber == candidate.lastSequenceNumber &+ 1 {
            self.candidate = (ssrc, sequenceNumber, candidate.count + 1)
        } else {
            candidate = (ssrc, sequenceNumber, 1)
        }
        guard let candidate, candidate.count >= run else {
            heldBack += 1
            return .holdBack
        }
        self.current = ssrc
        self.candidate = nil
        return .start
    }
}
