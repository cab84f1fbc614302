import EngineCore
import RTPWire
import Testing
@testable import MediaEngine

/// `JanusRoomQuality` (issue 28 item 5) with no Janus: the consumed streams' receive statistics
/// make the downlink of a `CallQualityReporter` report each second, a change of level is told as
/// the hosted room tells it, and with nothing to measure no report timer is armed.
struct JanusRoomQualityTests {
    @Test func consumedStreamsMakeQualityReportsOnlyWhileThereIsSomethingToMeasure() throws {
        let clock = HandClock()
        let quality = JanusRoomQuality(clock: clock.mediaClock)
        #expect(quality.nextReportDue == nil && quality.serviceIfDue() == nil)
        var alice = try ReceivedJanusAudio(publisherId: "alice", feed: 11, mid: "0", ssrc: 0xA11CE, clock: clock)
        quality.attach(alice.stream)
        #expect(quality.nextReportDue == .min)  // the baseline is taken at once
        #expect(quality.serviceIfDue() == nil)

        var told: [ParticipantEvent] = []
        for _ in 0..<150 {  // 3 s of audio, every packet there
            try alice.receive(dBov: 30, voice: true)
            clock.advance(milliseconds: 20)
            if let due = quality.nextReportDue, due <= clock.now, let event = quality.serviceIfDue() { told.append(event) }
        }
        guard case let .qualityChanged(previous, current, mos)? = told.first else {
            Issue.record("no quality change in 3 s of clean audio: \(told)")
            return
        }
        #expect(told.count == 1)
        #expect(previous == .unknown && current == .excellent && mos > 4)
        #expect(quality.latestReport?.downlink.loss == 0)

        // Three quarters of the packets lost for 2 s: the level drops.
        told.removeAll()
        for step in 0..<100 {
            if step % 4 == 0 { try alice.receive(dBov: 30, voice: true) } else { alice.skip() }
            clock.advance(milliseconds: 20)
            if let due = quality.nextReportDue, due <= clock.now, let event = quality.serviceIfDue() { told.append(event) }
        }
        guard case let .qualityChanged(_, worse, _)? = told.last else {
            Issue.record("no quality change with 75 % loss: \(told)")
            return
        }
        #expect(worse > .excellent)

        // Publishing starts (a reporter made anew, its levels from `.unknown`; nothing reported
        // on the uplink yet, so it mirrors the downlink): the app hears no change from
        // `.unknown` again, only the level that differs from the one it was told.
        var random = SplitMix64(seed: 1)
        let publisher = try Publisher(configuration: PublisherConfiguration(audio: AudioTrackConfiguration(ssrc: 0xB0B), security: .insecure),
                                      transport: MemoryTransport(), routing: PublisherRouting(destination: .loopback(port: 9)),
                                      clock: clock.mediaClock, using: &random)
        quality.setPublisher(publisher)
        told.removeAll()
        for _ in 0..<150 {
            try alice.receive(dBov: 30, voice: true)
            clock.advance(milliseconds: 20)
            if let due = quality.nextReportDue, due <= clock.now, let event = quality.serviceIfDue() { told.append(event) }
        }
        guard told.count == 1, case let .qualityChanged(previous, current, _)? = told.first else {
            Issue.record("one change expected after the reporter was made anew: \(told)")
            return
        }
        #expect(previous == worse && current == .excellent)

        // Publishing stops and the stream ends: nothing left to measure, no timer.
        quality.setPublisher(nil)
        #expect(quality.nextReportDue != nil)
        quality.detach(alice.stream)
        #expect(quality.nextReportDue == nil)
    }
}
