import RTPWire
import Simulcast
import SessionCore

/// Cumulative counters of one RTP stream at one moment, in the form both directions can give:
/// RFC 3550 A.3 expected and lost packets, payload octets, and the current interarrival jitter.
public struct CallQualityStreamCounters: Sendable, Hashable {
    /// The stream.
    public var ssrc: UInt32
    /// Packets expected so far: the extended highest sequence number, or A.3 `expected`. Only
    /// differences are used, so any origin works.
    public var expected: Int64
    /// Packets lost so far (A.3 cumulative lost; may dip negative with duplicates).
    public var lost: Int64
    /// Payload octets sent or received so far (only differences are used).
    public var octets: UInt64
    /// Interarrival jitter now, milliseconds.
    public var jitterMilliseconds: Double

    public init(ssrc: UInt32, expected: Int64, lost: Int64, octets: UInt64, jitterMilliseconds: Double) {
        self.ssrc = ssrc
        self.expected = expected
        self.lost = lost
        self.octets = octets
        self.jitterMilliseconds = jitterMilliseconds
    }

    /// The subscriber's view of a stream it receives (RFC 3550 A.1/A.3/A.8).
    public init(receiving statistics: ReceiveStatistics) {
        self.init(ssrc: statistics.ssrc, expected: statistics.expectedPackets, lost: statistics.cumulativeLost,
                  octets: UInt64(max(0, statistics.bytesReceived)), jitterMilliseconds: statistics.jitterMilliseconds)
    }

    /// The publisher's view of a stream it sends, from the far end's latest report block about
    /// it (RFC 3550 §6.4.1) and its own payload-octet count. `clockRate` turns the block's jitter
    /// (timestamp units) into milliseconds; a non-positive one gives the maximum jitter.
    public init(reportBlock block: ReportBlock, clockRate: Int, octetsSent: UInt64) {
        let jitter = QualitySample(reportBlock: block, clockRate: clockRate, rttMilliseconds: 0, bitrateKbps: 0)
            .jitterMilliseconds
        self.init(ssrc: block.ssrc, expected: Int64(block.extendedHighestSequenceNumber),
                  lost: Int64(block.cumulativeLost), octets: octetsSent, jitterMilliseconds: jitter)
    }
}

/// Turns one direction's cumulative stream counters, read once per reporting interval, into
/// that interval's `QualitySample` (docs/quality-and-speakers.md):
///
/// - loss = Σ lost ÷ Σ expected over the streams, over the last `lossWindowIntervals` readings
///   (a sliding window: one second of 50 packets/s audio is too few to tell 3 % from 0 %);
/// - jitter = the largest stream jitter now;
/// - bitrate = Σ payload octets since the previous reading × 8 ÷ elapsed time, in kbps;
/// - rtt = what the caller passes (from LSR/DLSR), 0 when unknown.
///
/// A stream whose expected count goes backwards (restart, new SSRC) starts its window afresh;
/// octets that go backwards (a 32-bit sender count wrapped) add nothing to that interval.
/// `sample` returns nil when no stream expected a new packet since the previous reading:
/// nothing arrived to grade (the caller then counts a missed interval). Pure state; times are
/// microseconds on any monotonic clock.
public struct CallQualityMeter: Sendable {
    private struct Reading: Sendable {
        var time: Int64
        var expected: Int64
        var lost: Int64
        var octets: UInt64
    }

    /// Readings kept for the loss window (≥ 1).
    public let lossWindowIntervals: Int
    /// Readings per SSRC, oldest first, at most `lossWindowIntervals`.
    private var history: [UInt32: [Reading]] = [:]

    public init(lossWindowIntervals: Int = 5) {
        self.lossWindowIntervals = max(1, lossWindowIntervals)
    }

    /// Forgets every stream (after a reconnect).
    public mutating func reset() { history.removeAll() }

    /// The sample for the interval ending at `nowMicroseconds`, or nil when no stream advanced.
    public mutating func sample(streams: [CallQualityStreamCounters], rttMilliseconds: Double?,
                                nowMicroseconds now: Int64) -> QualitySample? {
        var windowExpected: Int64 = 0, windowLost: Int64 = 0
        var intervalOctets: UInt64 = 0
        var intervalMicroseconds: Int64 = 0
        var advanced = false
        var jitter = 0.0
        var present = Set<UInt32>()
        for stream in streams {
            present.insert(stream.ssrc)
            let reading = Reading(time: now, expected: stream.expected, lost: stream.lost, octets: stream.octets)
            var readings = history[stream.ssrc] ?? []
            if let last = readings.last, stream.expected < last.expected {
                readings.removeAll()  // restarted
            }
            if let last = readings.last {
                if stream.expected > last.expected { advanced = true }
                let (octets, overflow) = stream.octets.subtractingReportingOverflow(last.octets)
                if !overflow { intervalOctets = Self.add(intervalOctets, octets) }
                intervalMicroseconds = max(intervalMicroseconds, Self.difference(now, last.time))
            }
            if let first = readings.first {
                windowExpected = Self.add(windowExpected, max(0, Self.difference(stream.expected, first.expected)))
                windowLost = Self.add(windowLost, Self.difference(stream.lost, first.lost))
            }
            readings.append(reading)
            // The oldest kept reading starts the next window: `lossWindowIntervals` intervals back.
            if readings.count > lossWindowIntervals { readings.removeFirst(readings.count - lossWindowIntervals) }
            history[stream.ssrc] = readings
            jitter = max(jitter, stream.jitterMilliseconds)
        }
        for ssrc in Array(history.keys) where !present.contains(ssrc) { history[ssrc] = nil }
        guard advanced else { return nil }
        let loss = windowExpected > 0 ? Double(min(max(windowLost, 0), windowExpected)) / Double(windowExpected) : 0
        let kbps = intervalMicroseconds > 0 ? Double(intervalOctets) * 8 * 1_000 / Double(intervalMicroseconds) : 0
        return QualitySample(loss: loss, rttMilliseconds: rttMilliseconds ?? 0, jitterMilliseconds: jitter,
                             bitrateKbps: kbps)
    }

    // Counters come from the network (report blocks): saturate instead of trapping.
    private static func difference(_ a: Int64, _ b: Int64) -> Int64 {
        let (result, overflow) = a.subtractingReportingOverflow(b)
        return overflow ? (a > b ? .max : .min) : result
    }

    private static func add(_ a: Int64, _ b: Int64) -> Int64 {
        let (result, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : result
    }

    private static func add(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (result, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : result
    }
}
