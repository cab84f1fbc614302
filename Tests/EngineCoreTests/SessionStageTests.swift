import Testing
import RTPWire
import SessionCore
@testable import EngineCore

/// The RTCP stages the endpoints are assembled from, each alone on a manual clock.
struct SessionStageTests {
    @Test func aReportIsDueAtOnceThenOnceAnIntervalPerStream() {
        var schedule = ReportScheduler(interval: 1000, streams: 2)
        #expect(schedule.isDue(ssrc: 1, now: 0))
        schedule.reported(ssrc: 1, now: 0)
        #expect(!schedule.isDue(ssrc: 1, now: 999))
        #expect(schedule.isDue(ssrc: 2, now: 999))
        #expect(schedule.isDue(ssrc: 1, now: 1000))
        #expect(schedule.reportsSent == 1)
    }

    @Test func aClockThatWentBackwardsMakesTheReportDue() {
        var schedule = ReportScheduler(interval: 1000, streams: 1)
        schedule.reported(ssrc: 1, now: 5000)
        #expect(schedule.isDue(ssrc: 1, now: 4000))
    }

    @Test func senderReportCompoundIsReportThenCNAMEThenGoodbye() {
        let report = SenderReport(ssrc: 7, ntpTimestamp: 1, rtpTimestamp: 2, packetCount: 3, octetCount: 4)
        let compound = ReportCompound.senderReport(report, cname: "me", goodbye: Goodbye(ssrcs: [7], reason: nil))
        guard compound.packets.count == 3, case .senderReport = compound.packets[0],
              case .sourceDescription = compound.packets[1], case .goodbye = compound.packets[2] else {
            Issue.record("unexpected compound \(compound.packets)")
            return
        }
    }

    @Test func receiverReportCompoundPutsFeedbackAfterTheReport() {
        let pli = RTCPPacket.pictureLossIndication(PictureLossIndication(senderSSRC: 1, mediaSSRC: 2))
        let compound = ReportCompound.receiverReport(localSSRC: 1, feedback: [pli])
        #expect(compound.packets == [.receiverReport(ReceiverReport(ssrc: 1)), pli])
    }

    @Test func aThrottledKeyFrameRequestIsServedOnceTheIntervalIsOver() {
        var gate = KeyFrameRequestGate(minimumIntervalMilliseconds: 300)
        let first = gate.admitOrDefer(10, value: 0, nowMilliseconds: 0)
        let second = gate.admitOrDefer(10, value: 2, nowMilliseconds: 100)
        #expect(first && !second)
        #expect(gate.throttled == 1)
        var served: [Int] = []
        gate.serveDeferred(nowMilliseconds: 200) { served.append($0) }
        #expect(served.isEmpty)
        gate.serveDeferred(nowMilliseconds: 300) { served.append($0) }
        #expect(served == [2])
        #expect(!gate.hasDeferred)
    }

    @Test func aRequestThatPassesClearsWhatWasOwed() {
        var gate = KeyFrameRequestGate(minimumIntervalMilliseconds: 300)
        _ = gate.admitOrDefer(10, value: 0, nowMilliseconds: 0)
        _ = gate.admitOrDefer(10, value: 1, nowMilliseconds: 100)
        let passed = gate.admitOrDefer(10, value: 1, nowMilliseconds: 400)
        #expect(passed)
        #expect(!gate.hasDeferred)
    }

    @Test func nackResponderCountsEachDistinctSequenceNumberOnce() {
        var responder = NACKResponder()
        // PID 100 with BLP naming 101 and 102, and 101 again as its own item.
        let nack = GenericNACK(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: [100, 101, 102, 101])
        var asked: [UInt16] = []
        let counts = responder.answer(nack) { sequence -> NACKAnswer in
            asked.append(sequence)
            switch sequence {
            case 100: return .resent
            case 101: return .missing
            default: return .refused
            }
        }
        #expect(asked.sorted() == [100, 101, 102])
        #expect(counts == NACKResponseCounts(nacked: 3, retransmitted: 1, missing: 1, refused: 1, repaired: 0))
    }

    @Test func nackRequesterAsksForTheGapAndNothingWithoutOne() {
        var requester = NACKRequester(configuration: .init())
        requester.received(sequenceNumber: 65534, nowMilliseconds: 0)
        requester.received(sequenceNumber: 65535, nowMilliseconds: 0)
        let none = requester.request(senderSSRC: 1, mediaSSRC: 2, nowMilliseconds: 10, roundTripMilliseconds: nil)
        #expect(none == nil)
        requester.received(sequenceNumber: 2, nowMilliseconds: 10)  // 0 and 1 lost across the wrap
        let nack = requester.request(senderSSRC: 1, mediaSSRC: 2, nowMilliseconds: 20, roundTripMilliseconds: nil)
        #expect(nack?.lostSequenceNumbers == [0, 1])
        #expect(requester.lastRequestCount == 2)
    }

    @Test func reportBlockTrackerKeepsTheLastRoundTripWhenABlockHasNoLSR() {
        var tracker = ReportBlockTracker(streams: 1)
        // Arrival 1 s (compact NTP 65536) after an SR sent at 0 and answered after 0.5 s.
        tracker.receive(ReportBlock(ssrc: 5, lastSenderReport: 1, delaySinceLastSenderReport: 32768),
                        arrivalCompactNTP: 65537, nowMicroseconds: 0)
        #expect(tracker.lastRoundTripMicroseconds == 500_000)
        #expect(tracker.roundTripMilliseconds(ssrc: 5) == 500)
        tracker.receive(ReportBlock(ssrc: 5), arrivalCompactNTP: 70000, nowMicroseconds: 1)
        #expect(tracker.lastRoundTripMicroseconds == 500_000)
        #expect(tracker.roundTripMilliseconds(ssrc: 5) == nil)
        #expect(tracker.longestRoundTripMilliseconds == ReportBlockTracker.assumedRoundTripMilliseconds)
    }

    @Test func rembLimitTakesOnlyREMBsAboutOurStreamsOrNone() {
        var limit = REMBLimit()
        let other = limit.take(ReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: 100_000, ssrcs: [9]), about: [5, 6])
        let ours = limit.take(ReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: 200_000, ssrcs: [6]), about: [5, 6])
        let anyone = limit.take(ReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: 300_000, ssrcs: []), about: [5, 6])
        #expect(!other && ours && anyone)
        #expect(limit.received == 2)
        #expect(limit.bitsPerSecond == 300_000)
    }
}
