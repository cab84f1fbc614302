import RTPWire

/// The receiving side of transport-wide congestion control
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1): records the transport-wide sequence
/// number and arrival time of every packet and, every `intervalMilliseconds` (50–100 ms), builds
/// the feedback for everything since the last report: gaps reported as lost, arrival deltas in
/// 250 µs units from a 64 ms reference time. Bounded memory: at most `capacity` arrivals wait;
/// older ones are reported at once. Time is a parameter.
public struct TransportFeedbackRecorder: Sendable {
    public let intervalMilliseconds: Int64
    public let capacity: Int
    private var unwrapper = SequenceNumberUnwrapper()
    /// Arrivals not yet reported: extended sequence number → arrival µs.
    private var pending: [Int64: Int64] = [:]
    /// The first extended sequence number the next report starts at (packets before it are done).
    private var nextToReport: Int64?
    private var feedbackCount: UInt8 = 0
    private var lastReportMilliseconds: Int64?
    /// Arrivals older than the last report (late or duplicate): not reported again.
    public private(set) var lateArrivals = 0

    public init(intervalMilliseconds: Int64 = 50, capacity: Int = 1_000) {
        self.intervalMilliseconds = max(10, intervalMilliseconds)
        self.capacity = max(16, capacity)
    }

    /// A packet carrying `transportSequenceNumber` arrived at `arrivalMicroseconds`.
    public mutating func record(transportSequenceNumber: UInt16, arrivalMicroseconds: Int64) {
        let extended = unwrapper.unwrap(transportSequenceNumber)
        if let next = nextToReport, extended < next {
            lateArrivals += 1
            return
        }
        if nextToReport == nil { nextToReport = extended }
        pending[extended] = arrivalMicroseconds
        if pending.count > capacity, let oldest = pending.keys.min() { pending[oldest] = nil }
    }

    /// When `feedback` next builds a report (ms): one interval after the last report once an
    /// arrival waits (at once before the first report); nil when nothing waits.
    public var nextFeedbackMilliseconds: Int64? {
        guard !pending.isEmpty else { return nil }
        return lastReportMilliseconds.map { $0 + intervalMilliseconds } ?? .min
    }

    /// The feedback due at `nowMicroseconds` (nil when nothing arrived or the interval has not
    /// passed). At most 2^15 packets and deltas within ±8 s per report; the rest waits.
    public mutating func feedback(senderSSRC: UInt32, mediaSSRC: UInt32, nowMicroseconds: Int64) -> TransportWideFeedback? {
        let now = nowMicroseconds / 1000
        if let last = lastReportMilliseconds, now - last < intervalMilliseconds { return nil }
        guard let start = nextToReport, let end = pending.keys.max(), !pending.isEmpty else { return nil }
        let first = pending.keys.filter { $0 >= start }.min() ?? start
        guard let firstArrival = pending[first] else { return nil }
        // Reference time: 64 ms units (24-bit signed, wraps); deltas count from it in 250 µs units.
        let referenceUnits = firstArrival / 64_000
        var previous = referenceUnits * 64_000
        var results: [TransportWideFeedback.PacketResult] = []
        var sequence = start
        while sequence <= end, results.count < 0x7FFF {
            if let arrival = pending[sequence] {
                let delta = (arrival - previous) / 250
                guard delta >= Int64(Int16.min), delta <= Int64(Int16.max) else { break }  // the next report starts here
                results.append(.init(sequenceNumber: UInt16(truncatingIfNeeded: sequence), receiveDelta: Int16(delta)))
                previous += delta * 250
                pending[sequence] = nil
            } else {
                results.append(.init(sequenceNumber: UInt16(truncatingIfNeeded: sequence), receiveDelta: nil))
            }
            sequence += 1
        }
        // Trailing losses are not reported yet: the packets may still come.
        while let last = results.last, last.receiveDelta == nil { results.removeLast(); sequence -= 1 }
        guard !results.isEmpty else { return nil }
        nextToReport = sequence
        lastReportMilliseconds = now
        defer { feedbackCount &+= 1 }
        let reference = Int32(truncatingIfNeeded: (referenceUnits << 40) >> 40)  // 24-bit two's complement
        return try? TransportWideFeedback(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, referenceTime: reference,
                                          feedbackPacketCount: feedbackCount, packets: results)
    }
}
