import MediaEngine
import MediaEngineTesting
import Testing

/// The room model of a hosted room on virtual time (SPEC §8, docs/room-model.md): who is in the
/// room and what each publishes, told in order (everyone already there before `roomJoined`),
/// leaving, unpublishing without leaving, muting, and the three modes, each checked on the room's
/// real forwarding path (`MediaEngine` through `VirtualTimeEngine`, real VP8 and SRTP).
@Suite struct RoomModelTests {
    /// The room-model events of `participant` so far, in order.
    static func roomEvents(_ virtual: VirtualTimeEngine, _ participant: LocalParticipant) -> [ParticipantEvent] {
        virtual.events(of: participant).filter { event in
            switch event {
            case .participantJoined, .roomJoined, .participantLeft, .trackPublished, .trackUnpublished, .trackMuteChanged,
                 .streamEnabled, .streamDisabled: return true
            default: return false
            }
        }
    }

    /// alice publishes camera and microphone, bob his camera; then carol joins.
    static func threeParticipants(carolMode: RoomMode = .sendAndRecv, autoConsume: Bool = true) async throws
        -> (virtual: VirtualTimeEngine, room: Room, alice: LocalParticipant, bob: LocalParticipant, carol: LocalParticipant,
            aliceCamera: LocalVideoTrack, aliceMicrophone: LocalAudioTrack) {
        let virtual = VirtualTimeEngine(seed: 3)
        let room = try await virtual.engine.hostRoom(options: RoomOptions(autoConsume: autoConsume))
        let alice = try await room.join(participantId: "alice", displayName: "Alice")
        let aliceCamera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
        try await alice.publish(aliceCamera)
        let aliceMicrophone = alice.createMicrophoneAudioTrack()
        try await alice.publish(aliceMicrophone)
        let bob = try await room.join(participantId: "bob")
        try await bob.publish(try bob.createCameraVideoTrack(encoderConfig: .h360p))
        let carol = try await room.join(participantId: "carol", mode: carolMode)
        return (virtual, room, alice, bob, carol, aliceCamera, aliceMicrophone)
    }

    static let alice = RemoteParticipant(id: "alice", displayName: "Alice", tracks: [PublishedTrack(kind: .camera), PublishedTrack(kind: .microphone)])
    static let bob = RemoteParticipant(id: "bob", displayName: "bob", tracks: [PublishedTrack(kind: .camera)])

    @Test func aLateJoinerHearsOfEveryoneWithTheirTracksBeforeRoomJoined() async throws {
        let room = try await Self.threeParticipants()
        let carolSaw = Self.roomEvents(room.virtual, room.carol)
        #expect(Array(carolSaw.prefix(3)) == [.participantJoined(Self.alice), .participantJoined(Self.bob), .roomJoined], "\(carolSaw)")
        // With autoConsume carol then receives both cameras.
        #expect(carolSaw.dropFirst(3).contains(.streamEnabled(participantId: "alice", kind: .camera)))
        #expect(carolSaw.dropFirst(3).contains(.streamEnabled(participantId: "bob", kind: .camera)))
        #expect(try await room.carol.participants == [Self.alice, Self.bob])
        // The first one in heard the others arrive and publish.
        let aliceSaw = Self.roomEvents(room.virtual, room.alice)
        #expect(Array(aliceSaw.prefix(4)) == [
            .roomJoined, .participantJoined(RemoteParticipant(id: "bob", displayName: "bob")),
            .trackPublished(participantId: "bob", track: PublishedTrack(kind: .camera)), .streamEnabled(participantId: "bob", kind: .camera),
        ], "\(aliceSaw)")
        #expect(aliceSaw.contains(.participantJoined(RemoteParticipant(id: "carol", displayName: "carol"))))
        #expect(try await room.alice.participants.map(\.id) == ["bob", "carol"])
        await room.virtual.close()
    }

    @Test func leavingIsToldWithTheTracksGoingAndEndsWhatOthersReceived() async throws {
        let room = try await Self.threeParticipants()
        let fromAlice = try await room.carol.subscribe(to: "alice")
        _ = await room.virtual.play(try TestSceneSource(width: 640, height: 360), on: room.aliceCamera)
        #expect(try await room.virtual.advance(until: { try await fromAlice.stats().framesDecoded > 5 }, within: .seconds(5)))
        await room.alice.leave()
        let carolSaw = Self.roomEvents(room.virtual, room.carol)
        #expect(Array(carolSaw.suffix(4)) == [
            .streamDisabled(participantId: "alice", kind: .camera),
            .trackUnpublished(participantId: "alice", track: PublishedTrack(kind: .camera)),
            .trackUnpublished(participantId: "alice", track: PublishedTrack(kind: .microphone)),
            .participantLeft(participantId: "alice"),
        ], "\(carolSaw)")
        #expect(try await room.carol.participants == [Self.bob])
        await #expect(throws: EngineError.self) { try await fromAlice.stats() }
        room.virtual.advance(by: .seconds(1))
        await room.virtual.close()
    }

    @Test func unpublishingWithoutLeavingIsToldAndTheTrackCanBePublishedAgain() async throws {
        let room = try await Self.threeParticipants()
        // The microphone rides the camera's node: the camera cannot go first.
        await #expect(throws: EngineError.self) { try await room.alice.unpublish(room.aliceCamera) }
        try await room.alice.unpublish(room.aliceMicrophone)
        try await room.alice.unpublish(room.aliceCamera)
        let bobSaw = Self.roomEvents(room.virtual, room.bob)
        #expect(Array(bobSaw.suffix(3)) == [
            .trackUnpublished(participantId: "alice", track: PublishedTrack(kind: .microphone)),
            .streamDisabled(participantId: "alice", kind: .camera),
            .trackUnpublished(participantId: "alice", track: PublishedTrack(kind: .camera)),
        ], "\(bobSaw)")
        #expect(try await room.bob.participants.first == RemoteParticipant(id: "alice", displayName: "Alice"))
        #expect(!bobSaw.contains(.participantLeft(participantId: "alice")))
        // Nothing of alice's is published now; unpublishing again is a typed error.
        await #expect(throws: EngineError.notPublished(participant: "alice", track: "camera \(room.aliceCamera.id)")) {
            try await room.alice.unpublish(room.aliceCamera)
        }
        try await room.alice.publish(room.aliceCamera)
        #expect(Self.roomEvents(room.virtual, room.bob).suffix(2) == [
            .trackPublished(participantId: "alice", track: PublishedTrack(kind: .camera)),
            .streamEnabled(participantId: "alice", kind: .camera),
        ])
        let again = try await room.bob.subscribe(to: "alice")
        _ = await room.virtual.play(try TestSceneSource(width: 640, height: 360), on: room.aliceCamera)
        #expect(try await room.virtual.advance(until: { try await again.stats().framesDecoded > 5 }, within: .seconds(5)))
        await room.virtual.close()
    }

    /// Issue 28 item 3: `RemoteVideoTrack.stopConsuming()` stops one video without leaving: the
    /// node forwards none of it any more (counted on the forwarding path) while the microphone
    /// goes on, the frame stream ends, and subscribing again brings a new stream.
    @Test func stoppingAVideoWithoutLeavingEndsItsStreamAndItsPacketsOnly() async throws {
        let room = try await Self.threeParticipants(autoConsume: false)
        let (virtual, carol) = (room.virtual, room.carol)
        let video = try await carol.subscribe(to: "alice")
        let audio = try await carol.subscribe(toMicrophoneOf: "alice")
        let frames = ReceivedStream<VideoFrame>(video)
        _ = await virtual.play(try TestSceneSource(width: 640, height: 360), on: room.aliceCamera)
        _ = await virtual.play(ToneSource(frequencyHz: 440, talkFrames: 1_000, frames: 1_000), on: room.aliceMicrophone)
        #expect(try await virtual.advance(until: { try await video.stats().framesDecoded > 10 }, within: .seconds(5)))
        await video.stopConsuming()
        await frames.reader.value  // the stream finished
        await video.stopConsuming()  // idempotent
        virtual.advance(by: .milliseconds(300))  // what was in flight lands
        let stopped = try await room.room.packetsForwarded(subscriber: "carol", publisher: "alice")
        virtual.advance(by: .seconds(2))
        let later = try await room.room.packetsForwarded(subscriber: "carol", publisher: "alice")
        #expect(later.video == stopped.video)
        #expect(later.audio >= stopped.audio + 90)  // 2 s of 20 ms packets: the microphone goes on
        #expect(try await audio.stats().framesDecoded > 0)
        #expect(Self.roomEvents(virtual, carol).last == .streamDisabled(participantId: "alice", kind: .camera))
        await #expect(throws: EngineError.self) { _ = try await video.stats() }
        // Subscribing again: a new stream, the node forwards again.
        let again = try await carol.subscribe(to: "alice")
        #expect(Self.roomEvents(virtual, carol).last == .streamEnabled(participantId: "alice", kind: .camera))
        let framesAgain = ReceivedStream<VideoFrame>(again)
        // Judged on the engine's count (the reading task may lag virtual time on a loaded
        // machine), then the new stream is seen to carry frames.
        let decodedBefore = try await again.stats().framesDecoded
        #expect(try await virtual.advance(until: { try await again.stats().framesDecoded > decodedBefore + 5 }, within: .seconds(5)))
        for _ in 0..<1_000 where framesAgain.count == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(framesAgain.count > 0)
        #expect(try await room.room.packetsForwarded(subscriber: "carol", publisher: "alice").video > later.video)
        await audio.stopConsuming()
        await virtual.close()
    }

    @Test func mutingTheMicrophoneIsToldToTheOthers() async throws {
        let room = try await Self.threeParticipants()
        try await room.aliceMicrophone.setMuted(true)
        #expect(Self.roomEvents(room.virtual, room.carol).last == .trackMuteChanged(participantId: "alice", track: PublishedTrack(kind: .microphone, muted: true)))
        #expect(try await room.carol.participants.first?.track(.microphone)?.muted == true)
        await room.virtual.close()
    }

    @Test func receiveOnlyReceivesAndCannotPublish() async throws {
        let room = try await Self.threeParticipants(carolMode: .recvOnly)
        #expect(room.carol.mode == .recvOnly)
        await #expect(throws: EngineError.notAllowedInMode(.recvOnly, action: "publishing")) {
            try await room.carol.publish(try room.carol.createCameraVideoTrack(encoderConfig: .h360p))
        }
        await #expect(throws: EngineError.notAllowedInMode(.recvOnly, action: "publishing")) {
            try await room.carol.publish(room.carol.createMicrophoneAudioTrack())
        }
        let fromAlice = try await room.carol.subscribe(to: "alice")
        _ = await room.virtual.play(try TestSceneSource(width: 640, height: 360), on: room.aliceCamera)
        #expect(try await room.virtual.advance(until: { try await fromAlice.stats().framesDecoded > 10 }, within: .seconds(5)))
        #expect(!Self.roomEvents(room.virtual, room.alice).contains { if case .trackPublished("carol", _) = $0 { true } else { false } })
        await room.virtual.close()
    }

    /// dave, signalling only, gets the room's events as carol (receive-only) does, and the room
    /// forwards him nothing: no media socket, 0 media datagrams, read from the room's forwarding
    /// path for him while carol's count (the same counter) grows.
    @Test func signallingOnlyGetsTheEventsAndNoMediaAtAll() async throws {
        let room = try await Self.threeParticipants(carolMode: .recvOnly)
        let dave = try await room.room.join(participantId: "dave", mode: .signallingOnly)
        _ = await room.virtual.play(try TestSceneSource(width: 640, height: 360), on: room.aliceCamera)
        _ = await room.virtual.play(ToneSource(frequencyHz: 440), on: room.aliceMicrophone)
        room.virtual.advance(by: .seconds(3))
        await #expect(throws: EngineError.notAllowedInMode(.signallingOnly, action: "subscribing")) { try await dave.subscribe(to: "alice") }
        await #expect(throws: EngineError.notAllowedInMode(.signallingOnly, action: "publishing")) {
            try await dave.publish(try dave.createCameraVideoTrack(encoderConfig: .h360p))
        }
        let daveSaw = Self.roomEvents(room.virtual, dave)
        #expect(Array(daveSaw.prefix(4)) == [
            .participantJoined(Self.alice), .participantJoined(Self.bob),
            .participantJoined(RemoteParticipant(id: "carol", displayName: "carol")), .roomJoined,
        ], "\(daveSaw)")
        #expect(!daveSaw.contains { if case .streamEnabled = $0 { true } else { false } })
        let (daveMedia, carolMedia) = (try await dave.mediaActivity(), try await room.carol.mediaActivity())
        print("media after 3 s: dave \(daveMedia), carol \(carolMedia)")
        #expect(daveMedia.mediaSockets == 0 && daveMedia.mediaDatagramsReceived == 0)
        #expect(carolMedia.mediaSockets == 2 && carolMedia.mediaDatagramsReceived > 100)
        await room.bob.leave()
        #expect(Self.roomEvents(room.virtual, dave).last == .participantLeft(participantId: "bob"))
        await room.virtual.close()
    }
}
