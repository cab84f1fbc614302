import RTPWire

/// The sending side of transport-wide congestion control: remembers when each transport-wide
/// sequence number left and how big it was (a fixed ring of `capacity` packets), and turns a
/// feedback packet into `PacketResult`s for the `SendSideBandwidthEstimator`: arrival times
/// rebuilt from the reference time and deltas (the receiver's clock: only differences matter).
/// Results for unknown or forgotten sequence numbers, repeated reports and malformed feedback are
/// dropped and counted. No allocation per sent packet.
public struct TransportFeedbackAdapter: Sendable {
    public let capacity: Int
    private var sequences: [UInt16]
    private var sendTimes: [Int64]
    private var sizes: [Int]
    private var acknowledged: [Bool]
    /// The probe cluster of each slot's packet (-1: media).
    private var clusters: [Int]
    /// Reports whose results could not be used, and results for packets not (or no longer) known.
    public private(set) var malformedFeedback = 0
    public private(set) var unknownPackets = 0

    public init(capacity: Int = 4_096) {
        self.capacity = max(64, capacity)
        sequences = Array(repeating: 0, count: self.capacity)
        sendTimes = Array(repeating: .min, count: self.capacity)
        sizes = Array(repeating: 0, count: self.capacity)
        acknowledged = Array(repeating: false, count: self.capacity)
        clusters = Array(repeating: -1, count: self.capacity)
    }

    /// A packet with `transportSequenceNumber` left at `sendMicroseconds` with `bytes` on the wire,
    /// as part of probe cluster `probeCluster` (nil: media).
    public mutating func sent(transportSequenceNumber: UInt16, sendMicroseconds: Int64, bytes: Int, probeCluster: Int? = nil) {
        let slot = Int(transportSequenceNumber) % capacity
        sequences[slot] = transportSequenceNumber
        sendTimes[slot] = sendMicroseconds
        sizes[slot] = bytes
        acknowledged[slot] = false
        clusters[slot] = probeCluster ?? -1
    }

    /// The results `feedback` reports, in sequence order.
    public mutating func results(from feedback: TransportWideFeedback) -> [PacketResult] {
        guard let reported = try? feedback.packetResults() else {
            malformedFeedback += 1
            return []
        }
        var arrival = Int64(feedback.referenceTime) * 64_000
        var results: [PacketResult] = []
        results.reserveCapacity(reported.count)
        for packet in reported {
            if let delta = packet.receiveDelta { arrival += Int64(delta) * 250 }
            let slot = Int(packet.sequenceNumber) % capacity
            guard sequences[slot] == packet.sequenceNumber, sendTimes[slot] != .min, !acknowledged[slot] else {
                unknownPackets += 1
                continue
            }
            if packet.receiveDelta != nil { acknowledged[slot] = true }
            results.append(PacketResult(sendMicroseconds: sendTimes[slot],
                                        arrivalMicroseconds: packet.receiveDelta == nil ? nil : arrival, bytes: sizes[slot],
                                        probeCluster: clusters[slot] >= 0 ? clusters[slot] : nil))
        }
        return results.sorted { $0.sendMicroseconds < $1.sendMicroseconds }
    }
}
