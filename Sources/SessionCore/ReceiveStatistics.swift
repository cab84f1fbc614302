import RTPWire

/// Reception statistics for one RTP source (RFC 3550 §6.4.1), maintained as in RFC 3550
/// Appendix A.1 (sequence-number validation and extension), A.3 (expected and lost packets) and
/// A.8 (interarrival jitter), turned into a `ReportBlock` for an RR or SR.
///
/// Time is a parameter: arrival times are microseconds on any monotonic clock.
///
/// Differences from the appendix, and why:
/// - No probation (`MIN_SEQUENTIAL`): the source is already authenticated by SRTP and known by
///   signalling, so the first packet initialises the state.
/// - Jitter is only updated by packets that advance the highest sequence number. Reordered
///   packets and retransmissions answering a NACK would otherwise add their repair delay to
///   the jitter (libwebrtc makes the same choice).
public struct ReceiveStatistics: Sendable {
    /// RFC 3550 A.1 `MAX_DROPOUT`: a forward jump larger than this is suspicious.
    public static let maxDropout: UInt16 = 3000
    /// RFC 3550 A.1 `MAX_MISORDER`: an older packet this close is reordering, not a restart.
    public static let maxMisorder: UInt16 = 100
    /// RFC 3550 A.1 `RTP_SEQ_MOD`.
    static let sequenceModulus: Int64 = 1 << 16

    /// The source these statistics describe (SSRC_n of the report block).
    public let ssrc: UInt32
    /// RTP clock rate of the source in Hz (90 000 for video, 48 000 for Opus).
    public let clockRate: Int

    private var started = false
    private var maxSequence: UInt16 = 0
    /// Shifted count of sequence-number cycles (a multiple of 65536), A.1 `cycles`.
    private var cycles: Int64 = 0
    private var baseSequence: Int64 = 0
    private var badSequence: Int64 = sequenceModulus + 1
    /// Packets received, duplicates and retransmissions included (A.1 `received`).
    public private(set) var packetsReceived: Int64 = 0
    /// Payload octets received.
    public private(set) var bytesReceived: Int64 = 0
    private var expectedPrior: Int64 = 0
    private var receivedPrior: Int64 = 0

    private var lastTransit: Int64?
    /// Interarrival jitter estimate in RTP timestamp units (A.8, floating-point form).
    public private(set) var jitter: Double = 0

    private var lastSenderReportCompactNTP: UInt32 = 0
    private var lastSenderReportArrivalMicroseconds: Int64?

    /// Statistics for `ssrc` with an RTP clock of `clockRate` Hz (clamped to at least 1).
    public init(ssrc: UInt32, clockRate: Int) {
        self.ssrc = ssrc
        self.clockRate = max(1, clockRate)
    }

    /// Records one received packet (after SRTP, before any buffering). Returns false when the
    /// packet was not counted: a suspected restart (A.1 `bad_seq`) not yet confirmed by the next
    /// packet.
    @discardableResult
    public mutating func record(sequenceNumber: UInt16, rtpTimestamp: UInt32, arrivalMicroseconds: Int64,
                                payloadBytes: Int) -> Bool {
        var advancesHighest = false
        if !started {
            restart(at: sequenceNumber)
            advancesHighest = true
        } else {
            let delta = sequenceNumber &- maxSequence
            if delta < Self.maxDropout {
                if delta > 0 {
                    if sequenceNumber < maxSequence { cycles += Self.sequenceModulus }
                    maxSequence = sequenceNumber
                    advancesHighest = true
                }
            } else if delta <= UInt16.max - Self.maxMisorder {
                // A very large jump: the sender may have restarted. Believe it if the next packet
                // follows this one (A.1).
                if Int64(sequenceNumber) == badSequence {
                    restart(at: sequenceNumber)
                    lastTransit = nil
                    advancesHighest = true
                } else {
                    badSequence = (Int64(sequenceNumber) + 1) & (Self.sequenceModulus - 1)
                    return false
                }
            }
            // Otherwise a duplicate or reordered packet: counted below, no state change.
        }
        packetsReceived += 1
        bytesReceived += Int64(max(0, payloadBytes))
        if advancesHighest { updateJitter(rtpTimestamp: rtpTimestamp, arrivalMicroseconds: arrivalMicroseconds) }
        return true
    }

    private mutating func restart(at sequenceNumber: UInt16) {
        started = true
        maxSequence = sequenceNumber
        baseSequence = Int64(sequenceNumber)
        badSequence = Self.sequenceModulus + 1
        cycles = 0
        packetsReceived = 0
        bytesReceived = 0
        expectedPrior = 0
        receivedPrior = 0
    }

    /// A.8: transit = arrival (in RTP units) − RTP timestamp; D = transit − previous transit;
    /// J += (|D| − J) / 16. Differences are taken modulo 2^32 so both clocks may wrap.
    private mutating func updateJitter(rtpTimestamp: UInt32, arrivalMicroseconds: Int64) {
        let arrival = Self.rtpUnits(microseconds: arrivalMicroseconds, clockRate: clockRate)
        let transit = Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: arrival) &- rtpTimestamp))
        if let lastTransit {
            let d = Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: transit &- lastTransit)))
            jitter += (Double(abs(d)) - jitter) / 16
        }
        lastTransit = transit
    }

    /// `microseconds` expressed in ticks of a `clockRate` Hz clock (floor), without overflow for
    /// any time below ~3 years at 90 kHz.
    static func rtpUnits(microseconds: Int64, clockRate: Int) -> Int64 {
        let seconds = microseconds / 1_000_000
        let rest = microseconds % 1_000_000
        return seconds &* Int64(clockRate) &+ rest * Int64(clockRate) / 1_000_000
    }

    /// Records a sender report from this source (RFC 3550 §6.4.1 LSR): keeps the middle 32 bits
    /// of its NTP timestamp and the arrival time, for the LSR and DLSR of our next report block.
    public mutating func recordSenderReport(ntpTimestamp: UInt64, arrivalMicroseconds: Int64) {
        lastSenderReportCompactNTP = NTPTime.compact(ntpTimestamp)
        lastSenderReportArrivalMicroseconds = arrivalMicroseconds
    }

    /// Whether any packet has been counted.
    public var hasReceivedPackets: Bool { started }

    /// The extended highest sequence number received (A.1: cycles + max_seq), as reported.
    public var extendedHighestSequenceNumber: UInt32 {
        UInt32(truncatingIfNeeded: cycles + Int64(maxSequence))
    }

    /// Packets expected so far (A.3: extended_max − base_seq + 1); 0 before the first packet.
    public var expectedPackets: Int64 {
        started ? cycles + Int64(maxSequence) - baseSequence + 1 : 0
    }

    /// Cumulative packets lost (A.3: expected − received); negative with duplicates.
    public var cumulativeLost: Int64 { expectedPackets - packetsReceived }

    /// The jitter estimate in milliseconds.
    public var jitterMilliseconds: Double { jitter * 1000 / Double(clockRate) }

    /// The report block for this source at `nowMicroseconds` (RFC 3550 §6.4.1), and starts a
    /// new fraction-lost interval (A.3: the fraction covers the time since the previous block).
    /// Cumulative lost is clamped to the 24-bit signed field; LSR/DLSR are 0 before any SR.
    public mutating func makeReportBlock(nowMicroseconds: Int64) -> ReportBlock {
        let expected = expectedPackets
        let expectedInterval = expected - expectedPrior
        let receivedInterval = packetsReceived - receivedPrior
        expectedPrior = expected
        receivedPrior = packetsReceived
        let lostInterval = expectedInterval - receivedInterval
        let fraction: UInt8
        if expectedInterval <= 0 || lostInterval <= 0 {
            fraction = 0
        } else {
            // lostInterval ≤ expectedInterval, so the quotient is at most 256; 256 only if nothing
            // arrived, which then rounds to the field's maximum.
            fraction = UInt8(clamping: (lostInterval << 8) / expectedInterval)
        }
        let range = ReportBlock.cumulativeLostRange
        let lost = Int32(min(max(cumulativeLost, Int64(range.lowerBound)), Int64(range.upperBound)))
        var delay: UInt32 = 0
        if let arrival = lastSenderReportArrivalMicroseconds {
            delay = NTPTime.compactDuration(microseconds: max(0, nowMicroseconds - arrival))
        }
        return ReportBlock(ssrc: ssrc, fractionLost: fraction, cumulativeLost: lost,
                           extendedHighestSequenceNumber: extendedHighestSequenceNumber,
                           interarrivalJitter: UInt32(min(jitter, Double(UInt32.max))),
                           lastSenderReport: lastSenderReportCompactNTP,
                           delaySinceLastSenderReport: lastSenderReportArrivalMicroseconds == nil ? 0 : delay)
    }
}
