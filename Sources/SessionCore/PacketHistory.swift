/// The last `capacity` packets sent on one SSRC, by RTP sequence number, for answering
/// generic NACKs (RFC 4585 §6.2.1) with retransmissions. Slots are preallocated and reused:
/// storing a packet copies it into an existing buffer and allocates nothing in steady state.
public struct PacketHistory: Sendable {
    public let capacity: Int
    private var slots: [[UInt8]]
    private var sequenceNumbers: [UInt16?]

    /// - Parameters:
    ///   - capacity: packets kept (older ones are forgotten).
    ///   - maximumPacketSize: bytes reserved per slot (a larger packet still fits, by growing its slot once).
    public init(capacity: Int = 512, maximumPacketSize: Int = 1500) {
        self.capacity = max(1, capacity)
        slots = (0..<self.capacity).map { _ in
            var slot = [UInt8]()
            slot.reserveCapacity(maximumPacketSize)
            return slot
        }
        sequenceNumbers = Array(repeating: nil, count: self.capacity)
    }

    /// Stores a copy of `packet` (plain RTP, before protection) under `sequenceNumber`.
    public mutating func store(_ packet: some Collection<UInt8>, sequenceNumber: UInt16) {
        let index = Int(sequenceNumber) % capacity
        slots[index].removeAll(keepingCapacity: true)
        slots[index].append(contentsOf: packet)
        sequenceNumbers[index] = sequenceNumber
    }

    /// Calls `body` with the stored packet for `sequenceNumber`, if it is still in the history.
    @discardableResult
    public func withPacket<R>(sequenceNumber: UInt16, _ body: (ArraySlice<UInt8>) throws -> R) rethrows -> R? {
        let index = Int(sequenceNumber) % capacity
        guard sequenceNumbers[index] == sequenceNumber else { return nil }
        return try body(slots[index][...])
    }
}
