import RTPWire
import SessionCore

/// What a `NACKResponder` did with the sequence numbers NACKed to it.
struct NACKResponseCounts: Sendable, Equatable {
    /// Sequence numbers NACKed (each once per NACK).
    var nacked = 0
    /// Of those: resent, no longer (or never) kept, refused by the retransmission budget.
    var retransmitted = 0
    var missing = 0
    var refused = 0
    /// Resent as a copy rebuilt elsewhere (the kept bytes were gone).
    var repaired = 0

    static func += (total: inout NACKResponseCounts, more: NACKResponseCounts) {
        total.nacked += more.nacked
        total.retransmitted += more.retransmitted
        total.missing += more.missing
        total.refused += more.refused
        total.repaired += more.repaired
    }
}

/// What became of one NACKed sequence number.
enum NACKAnswer: Sendable, Equatable {
    case resent
    /// Resent as a copy rebuilt from elsewhere.
    case repaired
    case missing
    case refused

    init(_ outcome: RetransmissionStore.Outcome) {
        switch outcome {
        case .resent: self = .resent
        case .missing: self = .missing
        case .refused: self = .refused
        }
    }
}

/// The NACK answering stage (RFC 4585 §6.2.1 generic NACK answered by retransmission, RFC 4588
/// §3 without RTX): takes a NACK apart into its distinct sequence numbers (the PID and BLP bits
/// may name one twice) and asks `resend` to answer each from a history under the
/// `RetransmissionBudget` (`RetransmissionStore.answer`), counting what became of them.
///
/// Reuses one scratch list: answering allocates nothing per NACK.
struct NACKResponder {
    private var lost: [UInt16] = []

    init() {
        lost.reserveCapacity(64)
    }

    /// Answers `nack`: `resend` answers one sequence number. Returns the counts of this NACK.
    mutating func answer<Failure: Error>(
        _ nack: GenericNACK, resend: (UInt16) throws(Failure) -> NACKAnswer
    ) throws(Failure) -> NACKResponseCounts {
        nack.uniqueLostSequenceNumbers(into: &lost)
        var counts = NACKResponseCounts()
        for sequence in lost {
            counts.nacked += 1
            switch try resend(sequence) {
            case .resent: counts.retransmitted += 1
            case .missing: counts.missing += 1
            case .refused: counts.refused += 1
            case .repaired: counts.repaired += 1
            }
        }
        return counts
    }
}
