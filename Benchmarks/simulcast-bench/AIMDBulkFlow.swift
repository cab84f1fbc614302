import EngineCore

/// A long TCP-like bulk transfer for RFC 8867 §5.6, on simulated ports: a sender that keeps a
/// window of 1,200-byte segments in flight (slow start, then +1 segment per window acknowledged;
/// halved at most once per round trip when a segment is missing three segments later or was not
/// acknowledged within the retransmission timeout, as Reno does) and a sink through the
/// bottleneck that acknowledges every segment. Retransmissions are not modelled: the flow is
/// always backlogged, so only the rate matters.
final class AIMDBulkFlow {
    static let segmentBytes = 1_200
    let senderPort: SimulatedNetwork.Port
    let sinkPort: SimulatedNetwork.Port
    /// Segments allowed in flight.
    private(set) var window = 2.0
    private var slowStartThreshold = Double.greatestFiniteMagnitude
    private var nextSegment: UInt64 = 0
    /// Segments sent and not yet acknowledged or declared lost, with their send times (µs).
    private var outstanding: [UInt64: Int64] = [:]
    /// No further halving until a segment sent after the last one is acknowledged.
    private var recoveryUntil: UInt64 = 0
    private var smoothedRoundTripMicroseconds: Double?
    private var buffer = [UInt8](repeating: 0, count: 2_048)
    private(set) var lossEvents = 0

    init(network: SimulatedNetwork) {
        senderPort = network.makePort()
        sinkPort = network.makePort()
    }

    /// Acknowledges what reached the sink, takes the acknowledgements, reacts to loss and fills
    /// the window.
    func step(nowMicroseconds now: Int64) throws {
        while let (count, from) = try sinkPort.receive(into: &buffer, timeoutMilliseconds: 0) {
            if count >= 8 { try sinkPort.send(buffer[0..<8], to: from) }
        }
        while let (count, _) = try senderPort.receive(into: &buffer, timeoutMilliseconds: 0) {
            guard count >= 8 else { continue }
            acknowledged(buffer.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }, nowMicroseconds: now)
        }
        let timeout = max(200_000, Int64(2 * (smoothedRoundTripMicroseconds ?? 500_000)))
        if let stale = outstanding.first(where: { now - $0.value > timeout }) {
            outstanding = outstanding.filter { now - $0.value <= timeout }
            lost(segment: stale.key)
        }
        var payload = [UInt8](repeating: 0, count: Self.segmentBytes)
        while Double(outstanding.count) < window.rounded(.down) {
            withUnsafeBytes(of: nextSegment) { payload.replaceSubrange(0..<8, with: $0) }
            try senderPort.send(payload, to: sinkPort.localEndpoint)
            outstanding[nextSegment] = now
            nextSegment += 1
        }
    }

    private func acknowledged(_ segment: UInt64, nowMicroseconds now: Int64) {
        guard let sent = outstanding.removeValue(forKey: segment) else { return }
        let sample = Double(now - sent)
        smoothedRoundTripMicroseconds = smoothedRoundTripMicroseconds.map { 0.875 * $0 + 0.125 * sample } ?? sample
        window += window < slowStartThreshold ? 1 : 1 / window
        // Three later segments through: the earlier ones missing are lost.
        let missing = outstanding.keys.filter { $0 + 3 <= segment }
        if let first = missing.min() {
            for key in missing { outstanding.removeValue(forKey: key) }
            lost(segment: first)
        }
    }

    private func lost(segment: UInt64) {
        guard segment >= recoveryUntil else { return }
        lossEvents += 1
        window = max(2, window / 2)
        slowStartThreshold = window
        recoveryUntil = nextSegment
    }
}
