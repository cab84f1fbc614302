import MediaCodecs
import RTPWire
import Simulcast
import Testing
@testable import EngineCore
import SessionCore

/// Calls `sample` outside the expectation macros (they cannot capture an inout meter).
private func take(_ meter: inout CallQualityMeter, streams: [CallQualityStreamCounters], rttMilliseconds: Double?,
                  nowMicroseconds: Int64) -> QualitySample? {
    meter.sample(streams: streams, rttMilliseconds: rttMilliseconds, nowMicroseconds: nowMicroseconds)
}

@Suite struct CallQualityMeterTests {
    private func counters(_ ssrc: UInt32 = 1, expected: Int64, lost: Int64, octets: UInt64 = 0,
                          jitter: Double = 0) -> CallQualityStreamCounters {
        CallQualityStreamCounters(ssrc: ssrc, expected: expected, lost: lost, octets: octets, jitterMilliseconds: jitter)
    }

    @Test func firstReadingIsABaselineThenLossIsOverTheWindow() throws {
        var meter = CallQualityMeter(lossWindowIntervals: 2)
        #expect(take(&meter, streams: [counters(expected: 10, lost: 0)], rttMilliseconds: nil, nowMicroseconds: 0) == nil)
        let one = try #require(take(&meter, streams: [counters(expected: 60, lost: 5, octets: 12_500)],
                                            rttMilliseconds: 40, nowMicroseconds: 1_000_000))
        #expect(one.loss == 0.1 && one.rttMilliseconds == 40 && one.bitrateKbps == 100)
        let two = try #require(take(&meter, streams: [counters(expected: 110, lost: 5, octets: 25_000)],
                                            rttMilliseconds: nil, nowMicroseconds: 2_000_000))
        #expect(two.loss == 0.05 && two.rttMilliseconds == 0)
        // The window holds two intervals: the first interval's 5 losses fall out.
        let three = try #require(take(&meter, streams: [counters(expected: 160, lost: 5)], rttMilliseconds: nil,
                                              nowMicroseconds: 3_000_000))
        #expect(three.loss == 0)
    }

    @Test func streamsAreSummedAndJitterIsTheWorst() throws {
        var meter = CallQualityMeter()
        _ = meter.sample(streams: [counters(1, expected: 0, lost: 0), counters(2, expected: 0, lost: 0)],
                         rttMilliseconds: nil, nowMicroseconds: 0)
        let sample = try #require(take(&meter, 
            streams: [counters(1, expected: 100, lost: 10, octets: 1_000, jitter: 3),
                      counters(2, expected: 300, lost: 10, octets: 3_000, jitter: 9)],
            rttMilliseconds: 20, nowMicroseconds: 500_000))
        #expect(sample.loss == 0.05 && sample.jitterMilliseconds == 9 && sample.bitrateKbps == 64)
    }

    @Test func nothingNewIsNilAndARestartStartsAfresh() throws {
        var meter = CallQualityMeter()
        _ = meter.sample(streams: [counters(expected: 50, lost: 0)], rttMilliseconds: nil, nowMicroseconds: 0)
        #expect(take(&meter, streams: [counters(expected: 50, lost: 0)], rttMilliseconds: nil, nowMicroseconds: 1) == nil)
        #expect(take(&meter, streams: [], rttMilliseconds: nil, nowMicroseconds: 2) == nil)
        // Counters that go backwards (new SSRC state): baseline again, no negative loss.
        _ = meter.sample(streams: [counters(expected: 500, lost: 40)], rttMilliseconds: nil, nowMicroseconds: 3)
        #expect(take(&meter, streams: [counters(expected: 10, lost: 0)], rttMilliseconds: nil, nowMicroseconds: 4) == nil)
        let after = try #require(take(&meter, streams: [counters(expected: 20, lost: 1)], rttMilliseconds: nil,
                                              nowMicroseconds: 5))
        #expect(after.loss == 0.1)
    }

    @Test func hostileCountersNeverTrapAndStayInRange() throws {
        var meter = CallQualityMeter()
        _ = meter.sample(streams: [counters(expected: .min, lost: .max, octets: .max, jitter: .nan)],
                         rttMilliseconds: .infinity, nowMicroseconds: .min)
        let sample = meter.sample(streams: [counters(expected: 0, lost: .min, octets: 0, jitter: -1)],
                                  rttMilliseconds: -.infinity, nowMicroseconds: .max)
        if let sample {
            #expect((0...1).contains(sample.loss) && sample.bitrateKbps >= 0)
        }
        let block = ReportBlock(ssrc: 9, fractionLost: 255, cumulativeLost: -1, extendedHighestSequenceNumber: .max,
                                interarrivalJitter: .max, lastSenderReport: 1, delaySinceLastSenderReport: .max)
        let uplink = CallQualityStreamCounters(reportBlock: block, clockRate: 0, octetsSent: 0)
        #expect(uplink.jitterMilliseconds == QualitySample.maximumMilliseconds)
    }
}

/// The reporter on the real loopback call (`CallQualityLoopback`, virtual clock).
@Suite(.serialized) struct CallQualityReporterTests {
    @Test func nilBeforeTheFirstReportThenAReportEveryInterval() throws {
        let call = try CallQualityLoopback(impairment: .init(oneWayDelayMicroseconds: 5_000), seed: 1)
        var reported: [QualityReport] = []
        call.reporter.onReport = { reported.append($0) }
        try call.run(milliseconds: 1_000)
        #expect(call.reporter.connectionQuality() == nil)  // the first interval is the baseline
        try call.run(milliseconds: 4_000)
        let report = try #require(call.reporter.connectionQuality())
        #expect(reported.count >= 3 && reported.count == call.reporter.reports.count)
        #expect(report.uplink.level == .excellent && report.downlink.level == .excellent)
        #expect(report.uplink.bitrateKbps > 10 && report.downlink.bitrateKbps > 10)
        #expect(abs(report.downlink.rttMilliseconds - 10) < 1)  // borrowed from the uplink
        #expect(call.reporter.changes.first?.previous == .unknown)
        #expect(call.reporter.changes.count == 1)
    }

    @Test func reconnectForgetsEverythingAndTheNextChangeStartsFromUnknown() throws {
        let call = try CallQualityLoopback(impairment: .init(), seed: 2)
        try call.run(milliseconds: 4_000)
        #expect(call.reporter.connectionQuality() != nil)
        call.reporter.reconnected()
        #expect(call.reporter.connectionQuality() == nil)
        #expect(call.reporter.uplinkRoundTripMilliseconds == nil)
        try call.run(milliseconds: 1_000)
        #expect(call.reporter.connectionQuality() == nil)  // baseline interval again
        try call.run(milliseconds: 2_000)
        #expect(call.reporter.connectionQuality() != nil)
        #expect(call.reporter.changes.map(\.previous) == [.unknown, .unknown])
    }

    @Test func degradationFiresOneChangeAndADeadLinkIsLost() throws {
        let call = try CallQualityLoopback(impairment: .init(lossModel: .spread, oneWayDelayMicroseconds: 10_000), seed: 3)
        try call.run(milliseconds: 8_000)
        #expect(call.reporter.connectionQuality()?.overall == .excellent)
        call.relay.forward.configuration.lossProbability = 0.2
        try call.run(milliseconds: 8_000)
        #expect(call.reporter.connectionQuality()?.overall == .poor)
        // Everything dropped: nothing new either way, so intervals go missing and the connection
        // is lost after three of them.
        call.relay.forward.configuration.lossProbability = 1
        try call.run(milliseconds: 6_000)
        #expect(call.reporter.connectionQuality()?.overall == .lost)
        #expect(call.reporter.missedIntervals >= 3)
        let path = call.reporter.changes.map { "\($0.previous)→\($0.overall)" }
        print("level changes:", path)
        #expect(call.reporter.changes.first.map { $0.previous == .unknown && $0.overall == .excellent } == true)
        #expect(call.reporter.changes.last?.overall == .lost)
        // Only real level moves are events: no two consecutive changes name the same level.
        #expect(zip(call.reporter.changes, call.reporter.changes.dropFirst()).allSatisfy { $0.overall == $1.previous && $0.overall != $1.overall })
    }

    @Test func publisherGradesReportBlocksAboutItsOwnStreamsOnly() throws {
        let rig = try PublisherRig(audio: true, video: false)
        try rig.publisher.send(audio: TestSignal().frame(0))
        try rig.publisher.sendReports()
        let sr = try #require(rig.transport.sent.last)
        let receiver = try TestReceiver()
        let plain = try receiver.unprotect(sr.bytes)
        let compound = try RTCPCompoundPacket(parsing: plain.bytes)
        guard case let .senderReport(report) = compound.packets.first else {
            Issue.record("no SR")
            return
        }
        let sentAtMonotonic = rig.clock.monotonic
        rig.clock.advance(milliseconds: 30)
        // The far end held the SR for 10 ms: RTT = 30 − 10 = 20 ms.
        let block = ReportBlock(ssrc: 2000, fractionLost: 26, cumulativeLost: 3, extendedHighestSequenceNumber: 100,
                                interarrivalJitter: 480, lastSenderReport: NTPTime.compact(report.ntpTimestamp),
                                delaySinceLastSenderReport: NTPTime.compactDuration(microseconds: 10_000))
        let stranger = ReportBlock(ssrc: 0xDEAD, fractionLost: 255)
        var seen: [Publisher.ReceivedReportBlock] = []
        rig.publisher.onReportBlock = { seen.append($0) }
        let outcome = try rig.publisher.handleIncoming(
            try receiver.protectFeedback([.receiverReport(ReceiverReport(ssrc: 77, reportBlocks: [block, stranger]))]))
        #expect(outcome.reportBlocks == 1)
        let received = try #require(rig.publisher.latestReportBlocks[2000])
        #expect(seen == [received])
        #expect(rig.publisher.latestReportBlocks[0xDEAD] == nil)
        #expect(received.arrivalMonotonicMicroseconds == sentAtMonotonic + 30_000)
        let rtt = try #require(received.roundTripMicroseconds)
        #expect(abs(rtt - 20_000) < 100)
        // No LSR (the far end has not seen an SR): no RTT, but the block still counts.
        _ = try rig.publisher.handleIncoming(try receiver.protectFeedback([.receiverReport(ReceiverReport(
            ssrc: 77, reportBlocks: [ReportBlock(ssrc: 2000, extendedHighestSequenceNumber: 120)]))]))
        #expect(rig.publisher.latestReportBlocks[2000]?.roundTripMicroseconds == nil)
    }
}
