import RTPWire
import Testing
@testable import SessionCore

/// 90 kHz: one millisecond is 90 RTP units, so arrivals given in ms convert exactly.
private func record(_ stats: inout ReceiveStatistics, seq: UInt16, timestamp: UInt32 = 0, arrivalMs: Int64 = 0) {
    stats.record(sequenceNumber: seq, rtpTimestamp: timestamp, arrivalMicroseconds: arrivalMs * 1000, payloadBytes: 100)
}

@Suite struct ReceiveStatisticsTests {
    @Test func interarrivalJitterFollowsRFC3550AppendixA8() {
        var stats = ReceiveStatistics(ssrc: 1, clockRate: 90_000)
        // Arrivals 0, 40, 70, 110 ms = 0, 3600, 6300, 9900 units; timestamps 0, 3000, 6000, 9000.
        // Transit 0, 600, 300, 900 → |D| 600, 300, 600.
        // J = 600/16 = 37.5; 37.5 + (300 − 37.5)/16 = 53.90625; 53.90625 + (600 − 53.90625)/16 = 88.037109375.
        record(&stats, seq: 0, timestamp: 0, arrivalMs: 0)
        record(&stats, seq: 1, timestamp: 3000, arrivalMs: 40)
        #expect(stats.jitter == 37.5)
        record(&stats, seq: 2, timestamp: 6000, arrivalMs: 70)
        #expect(stats.jitter == 53.90625)
        record(&stats, seq: 3, timestamp: 9000, arrivalMs: 110)
        #expect(stats.jitter == 88.037109375)
        let block = stats.makeReportBlock(nowMicroseconds: 200_000)
        #expect(block.interarrivalJitter == 88)
        #expect(abs(stats.jitterMilliseconds - 88.037109375 / 90) < 1e-9)
    }

    @Test func jitterIgnoresReorderedAndRetransmittedPackets() {
        var stats = ReceiveStatistics(ssrc: 1, clockRate: 90_000)
        record(&stats, seq: 0, timestamp: 0, arrivalMs: 0)
        record(&stats, seq: 2, timestamp: 6000, arrivalMs: 66)
        let before = stats.jitter
        record(&stats, seq: 1, timestamp: 3000, arrivalMs: 300)  // a late retransmission
        #expect(stats.jitter == before)
    }

    @Test func jitterHandlesTimestampWrap() {
        var stats = ReceiveStatistics(ssrc: 1, clockRate: 90_000)
        record(&stats, seq: 0, timestamp: UInt32.max - 4499, arrivalMs: 0)
        record(&stats, seq: 1, timestamp: 4500, arrivalMs: 100)  // 9000 units later, 9000 units of time
        #expect(stats.jitter == 0)
    }

    @Test func fractionAndCumulativeLostFollowAppendixA3() {
        var stats = ReceiveStatistics(ssrc: 7, clockRate: 90_000)
        for seq in UInt16(0)..<10 where seq != 3 && seq != 5 { record(&stats, seq: seq) }
        let first = stats.makeReportBlock(nowMicroseconds: 0)
        #expect(first.cumulativeLost == 2)
        #expect(first.fractionLost == 51)  // (2 << 8) / 10
        for seq in UInt16(10)..<20 { record(&stats, seq: seq) }
        let second = stats.makeReportBlock(nowMicroseconds: 0)
        #expect(second.cumulativeLost == 2)
        #expect(second.fractionLost == 0)
    }

    @Test func lateArrivalOfALostPacketLowersCumulativeLost() {
        var stats = ReceiveStatistics(ssrc: 7, clockRate: 90_000)
        for seq: UInt16 in [0, 1, 3] { record(&stats, seq: seq) }
        #expect(stats.cumulativeLost == 1)
        record(&stats, seq: 2)
        #expect(stats.cumulativeLost == 0)
    }

    @Test func duplicatesMakeCumulativeLostNegativeAndFractionZero() {
        var stats = ReceiveStatistics(ssrc: 7, clockRate: 90_000)
        for seq: UInt16 in [0, 1, 1, 2] { record(&stats, seq: seq) }
        let block = stats.makeReportBlock(nowMicroseconds: 0)
        #expect(block.cumulativeLost == -1)
        #expect(block.fractionLost == 0)
    }

    @Test func extendedHighestSequenceNumberCountsWraps() {
        var stats = ReceiveStatistics(ssrc: 1, clockRate: 90_000)
        for seq: UInt16 in [65534, 65535, 1, 0] { record(&stats, seq: seq) }
        #expect(stats.extendedHighestSequenceNumber == 65536 + 1)
        #expect(stats.expectedPackets == 4)
        #expect(stats.cumulativeLost == 0)
    }

    @Test func largeJumpIsAcceptedOnlyWhenTheNextPacketFollowsIt() {
        var stats = ReceiveStatistics(ssrc: 1, clockRate: 90_000)
        record(&stats, seq: 100)
        let counted = stats.record(sequenceNumber: 20_000, rtpTimestamp: 0, arrivalMicroseconds: 0, payloadBytes: 0)
        #expect(!counted)
        #expect(stats.extendedHighestSequenceNumber == 100)
        record(&stats, seq: 20_001)
        #expect(stats.extendedHighestSequenceNumber == 20_001)
        #expect(stats.expectedPackets == 1)
    }

    @Test func reportBlockCarriesSourceSequenceAndSenderReportTiming() {
        var stats = ReceiveStatistics(ssrc: 0xABCD, clockRate: 90_000)
        record(&stats, seq: 10)
        record(&stats, seq: 11)
        // NTP 0x0000_1234_5678_9ABC: the middle 32 bits are 0x1234_5678.
        stats.recordSenderReport(ntpTimestamp: 0x0000_1234_5678_9ABC, arrivalMicroseconds: 1_000_000)
        let block = stats.makeReportBlock(nowMicroseconds: 1_500_000)
        #expect(block.ssrc == 0xABCD)
        #expect(block.extendedHighestSequenceNumber == 11)
        #expect(block.lastSenderReport == 0x1234_5678)
        #expect(block.delaySinceLastSenderReport == 32_768)  // 0.5 s in 1/65536 s
    }

    @Test func reportBlockWithoutSenderReportHasZeroLSRAndDLSR() {
        var stats = ReceiveStatistics(ssrc: 1, clockRate: 48_000)
        record(&stats, seq: 1)
        let block = stats.makeReportBlock(nowMicroseconds: 9_000_000)
        #expect(block.lastSenderReport == 0)
        #expect(block.delaySinceLastSenderReport == 0)
    }

    @Test func roundTripTimeIsArrivalMinusLSRMinusDLSR() {
        // LSR 1 s, DLSR 0.5 s, arrival 2.5 s (compact NTP 16.16) → RTT 1 s.
        let block = ReportBlock(ssrc: 1, lastSenderReport: 0x0001_0000, delaySinceLastSenderReport: 0x0000_8000)
        #expect(ReceiveStatistics.roundTripMicroseconds(reportBlock: block, arrivalCompactNTP: 0x0002_8000) == 1_000_000)
    }

    @Test func roundTripTimeNeedsAnLSRAndAPlausibleResult() {
        let noSR = ReportBlock(ssrc: 1, lastSenderReport: 0, delaySinceLastSenderReport: 0)
        #expect(ReceiveStatistics.roundTripMicroseconds(reportBlock: noSR, arrivalCompactNTP: 0x10_0000) == nil)
        let future = ReportBlock(ssrc: 1, lastSenderReport: 0x0002_0000, delaySinceLastSenderReport: 0)
        #expect(ReceiveStatistics.roundTripMicroseconds(reportBlock: future, arrivalCompactNTP: 0x0001_0000) == nil)
    }

    @Test func ntpHelpersConvertBetweenMicrosecondsAndCompactUnits() {
        #expect(NTPTime.compactDuration(microseconds: 1_000_000) == 65_536)
        #expect(NTPTime.microseconds(compact: 65_536 / 4) == 250_000)
        let ntp = NTPTime.timestamp(microsecondsSinceEpoch: 2_500_000)
        #expect(NTPTime.compact(ntp) == 0x0002_8000)
    }
}
