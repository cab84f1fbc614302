/// Packets a sender's feedback reported over some stretch (a report, the time since the
/// loss-based controller last moved): how many arrived and were lost, the bytes those that
/// arrived carried and the send times they all span, for the loss fraction and what got through.
struct LossTally: Sendable, Equatable {
    var received = 0, lost = 0, receivedBytes = 0
    var firstSendMicroseconds: Int64?, lastSendMicroseconds: Int64?

    var packets: Int { received + lost }
    var lossFraction: Double { packets > 0 ? Double(lost) / Double(packets) : 0 }

    /// A packet sent at `sendMicroseconds` of `bytes` that arrived or not.
    mutating func add(sendMicroseconds: Int64, bytes: Int, arrived: Bool) {
        firstSendMicroseconds = min(firstSendMicroseconds ?? .max, sendMicroseconds)
        lastSendMicroseconds = max(lastSendMicroseconds ?? .min, sendMicroseconds)
        if arrived {
            received += 1
            receivedBytes += bytes
        } else {
            lost += 1
        }
    }

    /// Both stretches as one.
    func merged(with other: LossTally) -> LossTally {
        LossTally(received: received + other.received, lost: lost + other.lost, receivedBytes: receivedBytes + other.receivedBytes,
                  firstSendMicroseconds: [firstSendMicroseconds, other.firstSendMicroseconds].compactMap { $0 }.min(),
                  lastSendMicroseconds: [lastSendMicroseconds, other.lastSendMicroseconds].compactMap { $0 }.max())
    }

    /// What got through: the bytes that arrived over the time the packets were sent in (bits per
    /// second); nil over less than 10 ms of sending.
    var deliveredBitsPerSecond: UInt64? {
        guard let first = firstSendMicroseconds, let last = lastSendMicroseconds, last - first >= 10_000 else { return nil }
        return UInt64(Double(receivedBytes) * 8 / (Double(last - first) / 1_000_000))
    }
}
