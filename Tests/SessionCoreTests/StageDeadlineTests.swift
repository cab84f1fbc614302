import RTPWire
import Testing
@testable import SessionCore

/// The deadlines the stages report for the engine loop (issue 27 item 1): a loop that wakes only
/// at them does what one polling every millisecond does, and nothing is due while nothing waits.
@Suite struct StageDeadlineTests {
    private func packet(_ sequence: UInt16) -> RTPPacket {
        RTPPacket(header: RTPHeader(payloadType: 96, sequenceNumber: sequence, timestamp: 0, ssrc: 1), payload: [1])
    }

    @Test func theJitterBufferIsDueWhenAGapIsGivenUpOnAndNotBefore() {
        var buffer = JitterBuffer(configuration: .init(maxDelayMilliseconds: 100))
        #expect(buffer.nextReleaseMilliseconds == nil)
        _ = buffer.insert(packet(1), arrivalMilliseconds: 0)
        buffer.release(nowMilliseconds: 0) { _ in }
        #expect(buffer.nextReleaseMilliseconds == nil)  // everything released
        _ = buffer.insert(packet(3), arrivalMilliseconds: 10)
        #expect(buffer.nextReleaseMilliseconds == 110)  // packet 2 is waited for until then
        var released: [UInt16] = []
        buffer.release(nowMilliseconds: 109) { released.append($0.header.sequenceNumber) }
        #expect(released.isEmpty)
        buffer.release(nowMilliseconds: 110) { released.append($0.header.sequenceNumber) }
        #expect(released == [3])
        #expect(buffer.nextReleaseMilliseconds == nil)
    }

    @Test func aNACKIsDueAtOnceThenAtEachRetryUntilTheRetriesRunOut() {
        var nack = NACKGenerator(configuration: .init(maxRetries: 2, defaultRetryIntervalMilliseconds: 20))
        #expect(nack.nextRequestMilliseconds() == nil)
        nack.packetReceived(1, nowMilliseconds: 0)
        nack.packetReceived(3, nowMilliseconds: 5)
        #expect(nack.nextRequestMilliseconds() == 5)
        #expect(nack.sequencesToRequest(nowMilliseconds: 5) == [2])
        #expect(nack.nextRequestMilliseconds() == 25)
        #expect(nack.nextRequestMilliseconds(roundTripMilliseconds: 40) == 45)  // the RTT when known
        #expect(nack.sequencesToRequest(nowMilliseconds: 25) == [2])
        #expect(nack.nextRequestMilliseconds() == nil)  // both retries spent
        nack.packetReceived(2, nowMilliseconds: 30)
        #expect(nack.nextRequestMilliseconds() == nil)
    }

    @Test func transportFeedbackIsDueOneIntervalAfterTheLastReportWhileArrivalsWait() {
        var recorder = TransportFeedbackRecorder(intervalMilliseconds: 50)
        #expect(recorder.nextFeedbackMilliseconds == nil)
        recorder.record(transportSequenceNumber: 1, arrivalMicroseconds: 1_000)
        #expect(recorder.nextFeedbackMilliseconds == .min)  // no report yet: at once
        let first = recorder.feedback(senderSSRC: 1, mediaSSRC: 2, nowMicroseconds: 2_000)
        #expect(first != nil)
        #expect(recorder.nextFeedbackMilliseconds == nil)
        recorder.record(transportSequenceNumber: 2, arrivalMicroseconds: 10_000)
        #expect(recorder.nextFeedbackMilliseconds == 52)
        #expect(recorder.feedback(senderSSRC: 1, mediaSSRC: 2, nowMicroseconds: 51_999) == nil)
        let second = recorder.feedback(senderSSRC: 1, mediaSSRC: 2, nowMicroseconds: 52_000)
        #expect(second != nil)
    }

    @Test func drainingOnlyAtThePacersDeparturesSendsWhatDrainingEveryMillisecondSends() {
        func enqueue(_ pacer: inout PacketPacer, count: Int) {
            let bytes = [UInt8](repeating: 7, count: 1_000)
            for _ in 0..<count {
                _ = bytes.withUnsafeBytes { pacer.enqueue($0, ssrc: 1, transportSequenceNumber: nil, priority: .video, nowMicroseconds: 0) }
            }
        }
        var polled = PacketPacer(bitsPerSecond: 1_000_000), timed = PacketPacer(bitsPerSecond: 1_000_000)
        enqueue(&polled, count: 20)
        enqueue(&timed, count: 20)
        var polledLast: Int64 = 0, timedLast: Int64 = 0, wakeUps = 0
        for now in stride(from: Int64(0), through: 300_000, by: 1_000) {
            polled.drain(nowMicroseconds: now) { _ in polledLast = now }
        }
        var now: Int64 = 0
        while let departure = timed.nextDepartureMicroseconds, wakeUps < 1_000 {
            now = max(now, departure)
            wakeUps += 1
            timed.drain(nowMicroseconds: now) { _ in timedLast = now }
        }
        #expect(polled.queuedPackets == 0 && timed.queuedPackets == 0)
        #expect(abs(timedLast - polledLast) <= 1_000)  // 20 kB at 125 bytes/ms: about 160 ms either way
        #expect(wakeUps <= 40)  // the polling loop woke 301 times
    }

    @Test func anActiveProbeClusterIsDueAtItsNextStepAndAClosedGateWhenItOpens() throws {
        var probes = ProbeController(configuration: .init(clusterMilliseconds: 30, retryIntervalMilliseconds: 2_000))
        #expect(probes.nextProbeMilliseconds(lastOveruseMilliseconds: nil, nowMilliseconds: 0) == nil)
        let started = probes.cluster(estimate: 500_000, wanted: 2_000_000, lastOveruseMilliseconds: nil, nowMilliseconds: 100)
        let cluster = try #require(started)
        let first = try #require(probes.nextProbeMilliseconds(lastOveruseMilliseconds: nil, nowMilliseconds: 100))
        #expect(first == 100 && cluster.bytesDue(nowMilliseconds: first) > 0)
        probes.sent(bytes: cluster.bytesDue(nowMilliseconds: 100))
        let next = try #require(probes.nextProbeMilliseconds(lastOveruseMilliseconds: nil, nowMilliseconds: 100))
        var active = try #require(probes.active)
        #expect(next > 100 && active.bytesDue(nowMilliseconds: next) > 0 && active.bytesDue(nowMilliseconds: next - 1) <= 0)
        probes.sent(bytes: active.totalBytes)
        active = try #require(probes.active)
        // Sent out, its result never comes: the gate opens after the retry interval.
        let gate = try #require(probes.nextProbeMilliseconds(lastOveruseMilliseconds: nil, nowMilliseconds: 200))
        #expect(gate == active.startMilliseconds + active.durationMilliseconds + 2_000 + 1)
    }
}
