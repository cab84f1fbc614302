import EngineCore
import RTPWire
import SessionCore
import Simulcast
import Synchronization
import Testing
@testable import MediaEngine

/// `JanusRoomSpeakers` (issue 28 item 5) with no Janus: the levels of received microphones (as
/// their endpoints parse them) and the local participant's own go into the room's detector, the
/// events a hosted room tells come out, the ranking orders participants by dominance, and the
/// evaluation timer is armed only while audio flows.
struct JanusRoomSpeakersTests {
    @Test func receivedLevelsAndOurOwnMakeTheHostedRoomsSpeakerEvents() throws {
        let clock = HandClock()
        let speakers = JanusRoomSpeakers(clock: clock.mediaClock)
        var alice = try ReceivedJanusAudio(publisherId: "alice", feed: 11, mid: "0", ssrc: 0xA11CE, clock: clock)
        var carol = try ReceivedJanusAudio(publisherId: "carol", feed: 13, mid: "2", ssrc: 0xCA401, clock: clock)
        let video = try ReceivedJanusAudio(publisherId: "alice", feed: 11, mid: "1", ssrc: 0xA11CF, kind: .camera, clock: clock)
        for stream in [alice, carol, video] { speakers.attach(stream.stream) }
        #expect(video.stream.subscriber.onAudioLevel == nil)
        #expect(speakers.nextEvaluationDue == nil)  // nothing flows: no timer

        var told: [ParticipantEvent] = []
        /// `milliseconds` of 20 ms frames: alice at `alice` dBov, carol silent, bob (us) at `bob` dBov.
        func run(milliseconds: Int64, alice aliceLevel: UInt8?, bob bobLevel: UInt8?) throws {
            for step in 0..<(milliseconds / 20) {
                if let aliceLevel { try alice.receive(dBov: aliceLevel, voice: true) }
                try carol.receive(dBov: 127, voice: false)
                speakers.observeLocal(AudioLevel(clampingLevel: bobLevel ?? 127, voiceActivity: bobLevel != nil),
                                      participantId: "bob", trackId: "bob-mic", ssrc: 0xB0B)
                clock.advance(milliseconds: 20)
                if step % 5 == 4 {
                    #expect(speakers.nextEvaluationDue.map { $0 <= clock.now } == true)
                    told += speakers.serviceIfDue()
                }
            }
        }
        try run(milliseconds: 1_000, alice: 20, bob: nil)
        #expect(told.contains(.dominantSpeakerChanged("alice")))
        let firstSnapshot = told.compactMap { if case let .activeSpeakersChanged(list) = $0 { list } else { nil } }.first
        #expect(firstSnapshot?.map(\.participantId) == ["alice"])
        #expect(firstSnapshot?.first?.trackId == "microphone-0")
        #expect(speakers.dominanceRanking().first == "alice")
        #expect(Set(speakers.dominanceRanking()) == ["alice", "bob", "carol"])

        // We (bob) speak louder, alice falls silent: the stage moves to us, as the hosted room
        // counts a participant's own microphone.
        told.removeAll()
        try run(milliseconds: 1_500, alice: nil, bob: 10)
        #expect(told.last { if case .dominantSpeakerChanged = $0 { true } else { false } } == .dominantSpeakerChanged("bob"))
        #expect(speakers.dominanceRanking().prefix(2) == ["bob", "alice"])

        // bob stops too (nothing arrives): his level fades out of the 300 ms window, the snapshot
        // empties, he keeps the stage, and with nothing flowing no timer is armed.
        told.removeAll()
        for _ in 0..<5 {
            clock.advance(milliseconds: 100)
            told += speakers.serviceIfDue()
        }
        #expect(told.last == .activeSpeakersChanged([]))
        #expect(told.allSatisfy { if case .activeSpeakersChanged = $0 { true } else { false } })
        #expect(speakers.nextEvaluationDue == nil)

        // A second stream of alice's microphone (a whole-feed subscription beside the per-mid
        // one) brings the same frames: they count once.
        var twin = try ReceivedJanusAudio(publisherId: "alice", feed: 11, mid: "3", ssrc: 0xA11CD, clock: clock)
        speakers.attach(twin.stream)
        try twin.receive(dBov: 5, voice: true)
        #expect(speakers.nextEvaluationDue == nil)
        // alice's first stream ends (unsubscribed): its levels reach nobody, the twin's count
        // from now on; she leaves: she is forgotten.
        speakers.detach(alice.stream)
        #expect(alice.stream.subscriber.onAudioLevel == nil)
        try alice.receive(dBov: 5, voice: true)
        #expect(speakers.nextEvaluationDue == nil)
        try twin.receive(dBov: 5, voice: true)
        #expect(speakers.nextEvaluationDue != nil)
        speakers.removeParticipant("alice")
        #expect(!speakers.dominanceRanking().contains("alice"))
    }
}
