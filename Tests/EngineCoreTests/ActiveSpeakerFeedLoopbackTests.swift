import MediaCodecs
import RTPWire
import Simulcast
import Testing
@testable import EngineCore

/// Acceptance (issue 7): a loopback room. Three real Publishers (Opus, the RFC 6464 level measured
/// from their input) each send through a `NetworkImpairmentRelay` (20 ms one-way) to their own
/// Subscriber; one `ActiveSpeakerFeed` listens to all three subscribers' audio levels. The
/// participants speak in turns (`TestSignal` tones), with a loud 200 ms cough in someone else's
/// turn and a quiet second voice in the last one; the clock is virtual (1 ms steps).
@Suite(.serialized) struct ActiveSpeakerFeedLoopbackTests {
    final class Participant {
        let id: String
        let publisher: Publisher
        let subscriber: Subscriber
        let relay: NetworkImpairmentRelay
        var frames = 0

        /// Sent datagrams not yet read by the next hop (see `CallQualityLoopback.settle`).
        var inFlight: Bool {
            publisher.path.datagramsSent != relay.forward.statistics.offered
                || relay.forward.statistics.released - relay.sendFailures != Int(subscriber.statistics.datagramsReceived)
        }

        init(id: String, ssrc: UInt32, clock: ManualClock, seed: UInt64) throws {
            self.id = id
            let socket = try UDPSocket()
            relay = try NetworkImpairmentRelay(receiver: socket.localEndpoint,
                                               symmetric: .init(oneWayDelayMicroseconds: 20_000, seed: seed),
                                               clock: clock.mediaClock)
            var random = SplitMix64(seed: seed)
            publisher = try Publisher(configuration: PublisherConfiguration(audio: AudioTrackConfiguration(ssrc: ssrc),
                                                                            security: .insecure, cname: id),
                                      transport: try UDPSocket(),
                                      routing: try PublisherRouting(destination: relay.senderFacingEndpoint),
                                      clock: clock.mediaClock, using: &random)
            subscriber = try Subscriber(configuration: SubscriberConfiguration(localSSRC: ssrc &+ 0x1000,
                                                                               security: .insecurePlaintext),
                                        transport: socket, clock: clock.mediaClock)
        }
    }

    /// Who speaks when (milliseconds), and how loudly (peak amplitude).
    struct Line {
        var participant: String
        var from: Int64
        var to: Int64
        var amplitude: Double
    }

    static let script = [
        Line(participant: "alice", from: 0, to: 3_000, amplitude: 0.3),
        Line(participant: "bob", from: 1_500, to: 1_700, amplitude: 0.9),  // a cough
        Line(participant: "bob", from: 3_000, to: 6_000, amplitude: 0.3),
        Line(participant: "carol", from: 6_000, to: 9_000, amplitude: 0.3),
        Line(participant: "alice", from: 7_000, to: 9_000, amplitude: 0.05),  // quietly, alongside carol
    ]

    @Test func snapshotOrderFollowsTheSpeakers() throws {
        let clock = ManualClock()
        let start = clock.now
        let participants = try [("alice", UInt32(0xA11CE)), ("bob", 0xB0B), ("carol", 0xCA201)].enumerated().map {
            try Participant(id: $0.element.0, ssrc: $0.element.1, clock: clock, seed: UInt64($0.offset + 1))
        }
        let feed = ActiveSpeakerFeed(clock: clock.mediaClock)
        for participant in participants {
            feed.attach(participant.subscriber)
            feed.map(ssrc: participant.publisher.audioSender?.ssrc ?? 0, participantId: participant.id, trackId: "mic")
        }
        var changeTimes: [(DominantSpeakerChange, Int64)] = []
        feed.onDominantSpeakerChange = { change in changeTimes.append((change, (clock.now - start) / 1_000)) }
        var timeline: [(Int64, [String])] = []

        for elapsed in Int64(0)..<10_000 {
            if elapsed % 20 == 0 {
                for participant in participants {
                    let line = Self.script.last { $0.participant == participant.id && (($0.from)..<($0.to)).contains(elapsed) }
                    let frame = line.map { TestSignal(frequencyHz: 300, amplitude: $0.amplitude).frame(participant.frames) }
                        ?? AudioFrame.silence(channels: .mono)
                    try participant.publisher.send(audio: frame)
                    participant.frames += 1
                }
            }
            for participant in participants {
                try participant.relay.service()
                try participant.subscriber.step(timeoutMilliseconds: 0)
                try participant.relay.service()
                // Wait (briefly, in real time) for anything the kernel has not delivered yet, so
                // virtual time does not move on without it.
                let deadline = monotonicMicroseconds() + 1_000_000
                while participant.inFlight, monotonicMicroseconds() < deadline {
                    try participant.relay.service()
                    _ = try participant.subscriber.poll(timeoutMilliseconds: 1)
                }
                #expect(!participant.inFlight)
            }
            if feed.serviceIfDue() != nil, elapsed % 500 == 0 {
                timeline.append((elapsed, feed.snapshot.map(\.participantId)))
            }
            clock.advance(milliseconds: 1)
        }

        print("active speakers (snapshot every 0.5 s):", timeline.map { "\($0.0) ms \($0.1)" }.joined(separator: "; "))
        print("dominant speaker changes:", changeTimes.map { "\($0.0.previous ?? "-")→\($0.0.current ?? "-") at \($0.1) ms" })
        func snapshot(at time: Int64) -> [String]? { timeline.first { $0.0 == time }?.1 }
        #expect(snapshot(at: 1_000) == ["alice"])
        #expect(snapshot(at: 2_500) == ["alice"])  // the cough is over
        #expect(snapshot(at: 4_500) == ["bob"])
        #expect(snapshot(at: 6_500) == ["carol"])
        #expect(snapshot(at: 8_500) == ["carol", "alice"])  // sorted by level
        #expect(snapshot(at: 9_500) == [])
        #expect(feed.snapshots.last == [])  // the empty snapshot is emitted
        // Somewhere in the cough the loud cougher leads the snapshot, but never takes the stage.
        #expect(feed.snapshots.contains { $0.first?.participantId == "bob" && $0.count == 2 })
        #expect(changeTimes.map { $0.0 } == [DominantSpeakerChange(previous: nil, current: "alice"),
                                             DominantSpeakerChange(previous: "alice", current: "bob"),
                                             DominantSpeakerChange(previous: "bob", current: "carol")])
        // Turn changes are picked up within 1.5 s (audio arrives 20 ms late through the relay).
        if changeTimes.count == 3 {
            #expect(changeTimes[1].1 >= 3_000 && changeTimes[1].1 <= 4_500)
            #expect(changeTimes[2].1 >= 6_000 && changeTimes[2].1 <= 7_500)
        }
        #expect(feed.unmappedLevels == 0)
        // 500 frames each; the last (sent at 9 980 ms) is still in the 20 ms relay when the run ends.
        #expect(feed.observedLevels == 3 * 499)
    }
}
