/// The NACK responder stage (RFC 4585 §6.2.1 answered by retransmission, RFC 4588 §3 without
/// RTX): keeps each packet's bytes exactly as they went on the wire and hands them back for a
/// NACKed sequence number when the `RetransmissionBudget` allows, so a resend is the very same
/// datagram (SRTP will not protect one index twice).
///
/// Fixed memory: a `PacketHistory` ring and the budget's per-packet ring, sized at init; nothing
/// is allocated per packet. Time is a parameter (milliseconds on any monotonic clock).
public struct RetransmissionStore: Sendable {
    /// What became of one NACKed sequence number.
    public enum Outcome: Sendable, Equatable {
        case resent
        /// No longer (or never) in the store.
        case missing
        /// Refused by the retransmission budget.
        case refused(RetransmissionBudget.Decision)
    }

    private var history: PacketHistory
    private var budget: RetransmissionBudget

    /// Requests the budget refused, per reason.
    public var refusals: RetransmissionBudget.Refusals { budget.refusals }

    /// - Parameters:
    ///   - capacity: packets kept (older ones are forgotten).
    ///   - maximumPacketSize: the largest datagram kept (protected size: plain + SRTP overhead).
    public init(capacity: Int, maximumPacketSize: Int, budget: RetransmissionBudget.Configuration) {
        history = PacketHistory(capacity: capacity, maximumPacketSize: maximumPacketSize)
        self.budget = RetransmissionBudget(configuration: budget, capacity: capacity)
    }

    /// A new media packet went out: keeps its bytes and counts them as media for the budget.
    public mutating func mediaSent(_ datagram: ArraySlice<UInt8>, sequenceNumber: UInt16, nowMilliseconds: Int64) {
        history.store(datagram, sequenceNumber: sequenceNumber)
        budget.mediaSent(sequenceNumber: sequenceNumber, bytes: datagram.count, nowMilliseconds: nowMilliseconds)
    }

    /// Keeps the bytes of a packet sent as a repair (rebuilt elsewhere and admitted with `admit`),
    /// so a later NACK of it resends these same bytes.
    public mutating func keepRepair(_ datagram: ArraySlice<UInt8>, sequenceNumber: UInt16) {
        history.store(datagram, sequenceNumber: sequenceNumber)
    }

    /// Whether the bytes of `sequenceNumber` are still kept.
    public func contains(sequenceNumber: UInt16) -> Bool {
        history.withPacket(sequenceNumber: sequenceNumber) { _ in true } ?? false
    }

    /// Answers a NACK of `sequenceNumber`: hands the kept bytes to `resend` if the budget admits
    /// them (`roundTripMilliseconds`: the requester's RTT, if known).
    public mutating func answer<Failure: Error>(
        sequenceNumber: UInt16, roundTripMilliseconds: Int64?, nowMilliseconds: Int64,
        resend: (ArraySlice<UInt8>) throws(Failure) -> Void
    ) throws(Failure) -> Outcome {
        guard let size = history.withPacket(sequenceNumber: sequenceNumber, { $0.count }) else { return .missing }
        let decision = budget.admit(sequenceNumber: sequenceNumber, bytes: size,
                                    roundTripMilliseconds: roundTripMilliseconds, nowMilliseconds: nowMilliseconds)
        guard decision == .resend else { return .refused(decision) }
        let result: Result<Void, Failure>? = history.withPacket(sequenceNumber: sequenceNumber) { packet in
            Result { () throws(Failure) in try resend(packet) }
        }
        try result?.get()
        return .resent
    }

    /// Asks the budget about a repair built outside the store (e.g. rebuilt from the publisher's
    /// plain history) of `bytes` on the wire; records it if admitted.
    public mutating func admit(sequenceNumber: UInt16, bytes: Int, roundTripMilliseconds: Int64?,
                               nowMilliseconds: Int64) -> RetransmissionBudget.Decision {
        budget.admit(sequenceNumber: sequenceNumber, bytes: bytes,
                     roundTripMilliseconds: roundTripMilliseconds, nowMilliseconds: nowMilliseconds)
    }
}
