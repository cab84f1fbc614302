/// Decides which missing RTP packets to ask for again with a generic NACK (RFC 4585 §6.2.1).
///
/// - A gap in the extended sequence numbers adds every missing number to the list (at most
///   `maxListSize`; a bigger gap keeps only its newest numbers: a key frame is cheaper then).
/// - Each listed packet is requested at most `maxRetries` times, never twice within the retry
///   interval (the current round-trip time if known, else `defaultRetryIntervalMilliseconds`).
/// - Packets too old to matter are not requested: those listed longer than
///   `maxAgeMilliseconds` (the jitter buffer's maximum delay: it will have given up on them),
///   and those below a flush point (`flush(before:)`: the jitter buffer's release point, or a
///   key frame that makes everything older irrelevant).
/// - A listed packet that arrives is removed and counted as recovered if it had been requested.
///
/// Sequence numbers are the 64-bit extended values of `JitterBuffer`/`SequenceNumberUnwrapper`;
/// time is a parameter in milliseconds.
public struct NACKGenerator: Sendable {
    /// Settings of the generator.
    public struct Configuration: Sendable, Equatable {
        /// Most NACKs per packet.
        public var maxRetries: Int
        /// Gap between two NACKs for the same packet when no round-trip time is known.
        public var defaultRetryIntervalMilliseconds: Int64
        /// Age after which a missing packet is no longer requested.
        public var maxAgeMilliseconds: Int64
        /// Most packets listed at once.
        public var maxListSize: Int

        /// Settings (defaults: 10 retries, 20 ms, 150 ms, 512 packets).
        public init(maxRetries: Int = 10, defaultRetryIntervalMilliseconds: Int64 = 20,
                    maxAgeMilliseconds: Int64 = 150, maxListSize: Int = 512) {
            self.maxRetries = max(1, maxRetries)
            self.defaultRetryIntervalMilliseconds = max(1, defaultRetryIntervalMilliseconds)
            self.maxAgeMilliseconds = max(0, maxAgeMilliseconds)
            self.maxListSize = max(1, maxListSize)
        }
    }

    private struct Entry: Sendable {
        var sequence: Int64
        var detectedMilliseconds: Int64
        var retries: Int
        var lastSentMilliseconds: Int64?
    }

    /// The settings in use.
    public let configuration: Configuration
    /// Listed packets, ascending by sequence number (gaps are appended in order).
    private var entries: [Entry] = []
    private var highest: Int64?
    private var flushPoint: Int64 = .min

    /// NACK requests issued (one per packet per NACK).
    public private(set) var requestsSent: Int64 = 0
    /// Requested packets that arrived afterwards.
    public private(set) var packetsRecovered: Int64 = 0
    /// Packets dropped from the list after `maxRetries` requests without arriving.
    public private(set) var packetsAbandonedAfterRetries: Int64 = 0
    /// Packets dropped from the list as too old (age or flush) before arriving.
    public private(set) var packetsTooOld: Int64 = 0

    /// A generator with `configuration`.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        entries.reserveCapacity(configuration.maxListSize)
    }

    /// Packets currently listed as missing.
    public var missingCount: Int { entries.count }

    /// Extended sequence numbers currently listed, oldest first.
    public var missingSequences: [Int64] { entries.map(\.sequence) }

    /// Notes the arrival of the packet with extended sequence number `sequence` at `nowMilliseconds`.
    public mutating func packetReceived(_ sequence: Int64, nowMilliseconds: Int64) {
        guard let highest else {
            self.highest = sequence
            return
        }
        if sequence <= highest {
            if let position = position(of: sequence) {
                if entries[position].retries > 0 { packetsRecovered += 1 }
                entries.remove(at: position)
            }
            return
        }
        self.highest = sequence
        var first = highest + 1
        let gap = sequence - first
        guard gap > 0 else { return }
        if gap > Int64(configuration.maxListSize) {
            first = sequence - Int64(configuration.maxListSize)
        }
        first = max(first, flushPoint)
        var missing = first
        while missing < sequence {
            entries.append(Entry(sequence: missing, detectedMilliseconds: nowMilliseconds, retries: 0,
                                 lastSentMilliseconds: nil))
            missing += 1
        }
        if entries.count > configuration.maxListSize {
            packetsTooOld += Int64(entries.count - configuration.maxListSize)
            entries.removeFirst(entries.count - configuration.maxListSize)
        }
    }

    /// Forgets listed packets below `sequence` and never lists them again: they can no longer
    /// be used (the jitter buffer released past them, or a key frame superseded them).
    public mutating func flush(before sequence: Int64) {
        flushPoint = max(flushPoint, sequence)
        let keep = entries.firstIndex { $0.sequence >= sequence } ?? entries.count
        if keep > 0 {
            packetsTooOld += Int64(keep)
            entries.removeFirst(keep)
        }
    }

    /// The extended sequence numbers to NACK now, oldest first; marks them as sent.
    /// `roundTripMilliseconds` (if known) sets the retry interval.
    public mutating func sequencesToRequest(nowMilliseconds: Int64, roundTripMilliseconds: Int64? = nil) -> [Int64] {
        var result: [Int64] = []
        requestInto(&result, nowMilliseconds: nowMilliseconds, roundTripMilliseconds: roundTripMilliseconds)
        return result
    }

    /// When `requestInto` next has something to ask for (RFC 4585 §6.2.1: a gap never asked
    /// for at once, else one retry interval after the last request; the RTT when known); nil:
    /// nothing is missing. Entries past their age or retries are dropped by that call, not here.
    public func nextRequestMilliseconds(roundTripMilliseconds: Int64? = nil) -> Int64? {
        let interval = max(1, roundTripMilliseconds ?? configuration.defaultRetryIntervalMilliseconds)
        var earliest: Int64?
        for entry in entries where entry.retries < configuration.maxRetries {
            guard let sent = entry.lastSentMilliseconds else { return entry.detectedMilliseconds }
            earliest = min(earliest ?? .max, sent + interval)
        }
        return earliest
    }

    /// Like `sequencesToRequest`, appending to a caller-owned (reusable) array.
    public mutating func requestInto(_ result: inout [Int64], nowMilliseconds: Int64,
                                     roundTripMilliseconds: Int64? = nil) {
        let interval = max(1, roundTripMilliseconds ?? configuration.defaultRetryIntervalMilliseconds)
        var kept = 0
        for index in entries.indices {
            var entry = entries[index]
            if nowMilliseconds - entry.detectedMilliseconds > configuration.maxAgeMilliseconds {
                packetsTooOld += 1
                continue
            }
            if entry.retries >= configuration.maxRetries {
                packetsAbandonedAfterRetries += 1
                continue
            }
            if entry.lastSentMilliseconds.map({ nowMilliseconds - $0 >= interval }) ?? true {
                entry.retries += 1
                entry.lastSentMilliseconds = nowMilliseconds
                requestsSent += 1
                result.append(entry.sequence)
            }
            entries[kept] = entry
            kept += 1
        }
        entries.removeLast(entries.count - kept)
    }

    private func position(of sequence: Int64) -> Int? {
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].sequence < sequence { low = middle + 1 } else { high = middle }
        }
        return low < entries.count && entries[low].sequence == sequence ? low : nil
    }
}
