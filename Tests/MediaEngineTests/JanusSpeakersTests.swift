import Foundation
import InteropTestSupport
import MediaEngine
import Simulcast
import Synchronization
import Testing

/// Issue 28 item 5 through a real Janus 1.1 (inside scripts/netns-run.sh's namespace): active
/// speakers and quality reports in a Janus room, computed by each client from what it receives
/// (the RFC 6464 levels Janus forwards on the consumed microphones, its own microphone's level,
/// its own RTCP). alice (a 440 Hz tone at −12 dBov) and bob (silent) publish a microphone and a
/// camera; carol joins `RECV_ONLY`. bob and carol (and alice herself) are told alice holds the
/// stage; then bob speaks louder (−6 dBov) and alice falls silent: everyone is told bob holds it.
/// Every participant gets a quality report (`.qualityChanged` from `.unknown`).
@Suite(.serialized) struct JanusSpeakersTests {
    static func dominantSpeakers(_ log: EventLog) -> [String?] {
        log.all.compactMap { if case let .dominantSpeakerChanged(id) = $0 { id } else { nil } }
    }

    static func qualityChanges(_ log: EventLog) -> [(ConnectionQualityLevel, ConnectionQualityLevel, Double)] {
        log.all.compactMap { if case let .qualityChanged(previous, current, mos) = $0 { (previous, current, mos) } else { nil } }
    }

    @Test func theStageMovesFromAliceToBobForEveryoneAndQualityIsReported() async throws {
        try PrivateNamespace.require(for: "JanusSpeakersTests")
        let harness = try JanusHarness.start([])
        defer { harness.stop() }
        let engine = MediaEngine()
        var publishers: [(participant: LocalParticipant, log: EventLog, voice: Voice)] = []
        for (id, frequency) in [("alice", 440.0), ("bob", 660.0)] {
            let participant = try await engine.joinJanusRoom(url: harness.url, room: 1234, participantId: id,
                                                             localAddress: PrivateNamespace.localAddress)
            let log = EventLog(participant)
            let microphone = participant.createMicrophoneAudioTrack()
            try await participant.publish(microphone)
            // The microphone rides the camera's peer connection; no frame needs to be pushed.
            try await participant.publish(try participant.createCameraVideoTrack(encoderConfig: .h360p))
            publishers.append((participant, log, Voice(microphone, frequency: frequency)))
        }
        let (alice, bob) = (publishers[0], publishers[1])
        defer { for publisher in publishers { publisher.voice.stop() } }
        let carolEngine = MediaEngine()
        let carol = try await carolEngine.joinJanusRoom(url: harness.url, room: 1234, participantId: "carol",
                                                        localAddress: PrivateNamespace.localAddress, mode: .recvOnly)
        let carolLog = EventLog(carol)
        let logs = [("alice", alice.log), ("bob", bob.log), ("carol", carolLog)]

        // alice talks, bob is silent.
        var start = ContinuousClock.now
        alice.voice.speak(amplitude: 8_192)  // −12 dBov
        let aliceHeld = await JanusRoomModelTests.wait(seconds: 10) {
            logs.allSatisfy { Self.dominantSpeakers($0.1).last == "alice" }
        }
        let aliceAfter = ContinuousClock.now - start
        for (id, log) in logs {
            print("\(id): dominant \(Self.dominantSpeakers(log)), speakers "
                  + "\(log.all.compactMap { if case let .activeSpeakersChanged(list) = $0 { list.map(\.participantId) } else { nil } }.prefix(3))")
        }
        print("alice held the stage for everyone \(aliceAfter) after she began")
        #expect(aliceHeld)
        for (id, log) in logs {
            #expect(Self.dominantSpeakers(log).first == "alice", "\(id) first saw \(Self.dominantSpeakers(log))")
            let snapshots = log.all.compactMap { if case let .activeSpeakersChanged(list) = $0 { list } else { nil } }
            #expect(snapshots.first?.map(\.participantId) == ["alice"], "\(id)'s first snapshot \(String(describing: snapshots.first))")
        }

        // bob talks louder, alice falls silent: the stage moves to bob for everyone.
        start = ContinuousClock.now
        bob.voice.speak(amplitude: 16_384)  // −6 dBov
        alice.voice.speak(amplitude: 0)
        let bobHeld = await JanusRoomModelTests.wait(seconds: 10) {
            logs.allSatisfy { Self.dominantSpeakers($0.1).last == "bob" }
        }
        print("bob held the stage for everyone \(ContinuousClock.now - start) after the turn; "
              + logs.map { "\($0.0): \(Self.dominantSpeakers($0.1))" }.joined(separator: "; "))
        #expect(bobHeld)
        for (id, log) in logs { #expect(Self.dominantSpeakers(log) == ["alice", "bob"], "\(id) saw \(Self.dominantSpeakers(log))") }
        // The ranking adaptive subscriptions order by: bob, then alice (heard speaking), then carol (never heard).
        let ranking = try await carol.janusDominanceRanking()
        print("carol's dominance ranking: \(ranking ?? [])")
        #expect(ranking == ["bob", "alice"])

        // Quality: every participant was told its level once it had a report (a second after its
        // first stream), from our RTCP: alice and bob publish (Janus's receiver reports), carol receives.
        let reported = await JanusRoomModelTests.wait(seconds: 5) { logs.allSatisfy { !Self.qualityChanges($0.1).isEmpty } }
        for (id, log) in logs { print("\(id)'s quality: \(Self.qualityChanges(log))") }
        #expect(reported)
        for (id, log) in logs {
            let first = Self.qualityChanges(log).first
            #expect(first?.0 == .unknown && (first?.1 == .excellent || first?.1 == .good), "\(id): \(String(describing: first))")
        }
        // The reports' figures: a publisher's uplink from Janus's receiver reports (its RTT from
        // LSR/DLSR, RFC 3550 §6.4.1; Janus reports once a second, so the first report may still
        // mirror the downlink), everyone's downlink from its own receive statistics. What alice
        // sends is what bob receives and the other way round; carol receives both.
        func close(_ a: Double, _ b: Double) -> Bool { a > 0 && abs(a - b) <= 0.2 * b }
        var reports: [QualityReport] = []
        let measured = await JanusRoomModelTests.wait(seconds: 5) {
            reports = []
            for participant in [alice.participant, bob.participant, carol] {
                guard let report = try? await participant.janusQualityReport() else { return false }
                reports.append(report)
            }
            return close(reports[0].uplink.bitrateKbps, reports[1].downlink.bitrateKbps)
                && close(reports[1].uplink.bitrateKbps, reports[0].downlink.bitrateKbps)
                && close(reports[2].downlink.bitrateKbps, reports[0].uplink.bitrateKbps + reports[1].uplink.bitrateKbps)
        }
        for (id, report) in zip(["alice", "bob", "carol"], reports) {
            print("\(id)'s latest report: uplink \(report.uplink), downlink \(report.downlink)")
        }
        #expect(measured)
        for (id, report) in zip(["alice", "bob", "carol"], reports) {
            #expect(report.downlink.loss < 0.02 && report.uplink.loss < 0.02, "\(id): \(report)")
            if id != "carol" { #expect(report.uplink.rttMilliseconds > 0, "\(id)'s uplink \(report.uplink)") }
        }
        await engine.close()
        await carolEngine.close()
    }
}
