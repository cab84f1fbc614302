import Foundation
import InteropTestSupport
import MediaEngine
import Testing

/// The room model in a real Janus 1.1.2 VideoRoom (SPEC §8, docs/room-model.md), four engines as
/// four apps would be: alice (camera and microphone) and bob (camera) publish; carol joins later
/// receive-only and is told of both, with their tracks, before `roomJoined`, then receives alice
/// by her participant id and decodes her; dave, signalling only, is told the same and opens no
/// media socket. bob leaving reaches the others as `participantLeft` within 2 s; alice
/// unpublishing her camera reaches them as `trackUnpublished`. alice, auto-consuming, receives
/// bob, who published after she joined. Runs inside scripts/netns-run.sh's
/// namespace, like the other Janus tests.
@Suite(.serialized) struct JanusRoomModelTests {
    static let aliceTracks: Set<PublishedTrackKind> = [.camera, .microphone]

    /// The room-model events of a log so far, in order.
    static func roomEvents(_ log: EventLog) -> [ParticipantEvent] {
        log.all.filter { event in
            switch event {
            case .participantJoined, .roomJoined, .participantLeft, .trackPublished, .trackUnpublished, .trackMuteChanged: return true
            default: return false
            }
        }
    }

    /// Waits (real time, at most `seconds`) until `condition` holds; returns whether it did.
    static func wait(seconds: Double, until condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return try await condition()
    }

    /// Who was told joined before `roomJoined` (ids and track kinds), nil if `roomJoined` is missing.
    static func joinedBeforeRoomJoined(_ log: EventLog) -> [String: Set<PublishedTrackKind>]? {
        let events = roomEvents(log)
        guard let index = events.firstIndex(of: .roomJoined) else { return nil }
        var told: [String: Set<PublishedTrackKind>] = [:]
        for case let .participantJoined(participant) in events[..<index] { told[participant.id] = Set(participant.tracks.map(\.kind)) }
        return told
    }

    @Test func fourAppsInAJanusRoomSeeEachOtherReceiveByIdAndHearLeavingWithinTwoSeconds() async throws {
        try PrivateNamespace.require(for: "JanusRoomModelTests")
        let harness = try JanusHarness.start()
        defer { harness.stop() }
        let url = harness.url, address = PrivateNamespace.localAddress
        // A participant we did not write (aiortc on the peer host) publishes a camera and a 520 Hz microphone.
        async let foreignPublishing = ForeignJanusPublisher.start(url: url, toneHz: Self.foreignToneHz)
        let engines = (alice: MediaEngine(), bob: MediaEngine(), carol: MediaEngine(), dave: MediaEngine())

        let alice = try await engines.alice.joinJanusRoom(url: url, room: 1234, participantId: "alice", localAddress: address, name: "Alice")
        let aliceLog = EventLog(alice)
        let microphone = alice.createMicrophoneAudioTrack()
        try await alice.publish(microphone)
        let aliceCamera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
        try await alice.publish(aliceCamera)
        let bob = try await engines.bob.joinJanusRoom(url: url, room: 1234, participantId: "bob", localAddress: address)
        let bobLog = EventLog(bob)
        let bobCamera = try bob.createCameraVideoTrack(encoderConfig: .h360p)
        try await bob.publish(bobCamera)
        let aliceCapture = Capture(aliceCamera, width: 640, height: 360), bobCapture = Capture(bobCamera, width: 640, height: 360)
        let capturing = Task {
            async let aliceRuns: Void = aliceCapture.run(seconds: 12)
            async let bobRuns: Void = bobCapture.run(seconds: 12)
            _ = try await (aliceRuns, bobRuns)
        }
        defer { capturing.cancel() }
        #expect(await Self.wait(seconds: 5) { bobLog.all.contains { if case .participantJoined(let p) = $0 { p.id == "alice" } else { false } } })
        // alice (autoConsume, the default) consumes bob, who arrived after her: his packets reach her one socket.
        #expect(try await Self.wait(seconds: 5) { (try await alice.janusPacketsOnSocket(from: "bob", kind: .camera) ?? 0) > 0 })
        #expect(aliceLog.all.contains { if case .trackSubscribed(publisherId: "bob", trackId: _) = $0 { true } else { false } })

        let foreign = try await foreignPublishing
        defer { foreign.stop() }
        let foreignId = "janus-\(foreign.feed)"
        try await Self.aliceConsumes(foreign, id: foreignId, alice: alice, log: aliceLog)

        // carol (receive-only) and dave (signalling only) join later: everyone there first, then roomJoined.
        try await Task.sleep(for: .seconds(1))
        let carol = try await engines.carol.joinJanusRoom(url: url, room: 1234, participantId: "carol", localAddress: address, mode: .recvOnly)
        let carolLog = EventLog(carol)
        await #expect(throws: EngineError.beforeRoomJoined("subscribing to zed")) { try await carol.subscribe(to: "zed") }
        let dave = try await engines.dave.joinJanusRoom(url: url, room: 1234, participantId: "dave", localAddress: address, mode: .signallingOnly)
        let daveLog = EventLog(dave)
        #expect(await Self.wait(seconds: 5) { Self.joinedBeforeRoomJoined(carolLog) != nil && Self.joinedBeforeRoomJoined(daveLog) != nil })
        print("carol's events: \(Self.roomEvents(carolLog).map(\.description))")
        print("dave's events: \(Self.roomEvents(daveLog).map(\.description))")
        let expected = ["alice": Self.aliceTracks, "bob": [.camera], foreignId: [.camera, .microphone]]
        #expect(Self.joinedBeforeRoomJoined(carolLog) == expected)
        #expect(Self.joinedBeforeRoomJoined(daveLog) == expected)
        let snapshot = try await carol.participants
        #expect(snapshot.map(\.id).sorted() == ["alice", "bob", foreignId])
        #expect(snapshot.first { $0.id == "alice" }?.displayName == "Alice")

        // carol receives alice by participant id and decodes her; dave and unknown ids are typed errors.
        let joinedAt = ContinuousClock.now
        let fromAlice = try await carol.subscribe(to: "alice")
        #expect(try await Self.wait(seconds: 5) { try await fromAlice.stats().framesDecoded >= 30 })
        let stats = try await fromAlice.stats()
        print("carol decoded \(stats.framesDecoded) of alice's frames (\(stats.decoderErrors) decoder errors) \(ContinuousClock.now - joinedAt) after subscribing")
        #expect(stats.decoderErrors == 0)
        await #expect(throws: EngineError.unknownParticipant("zed")) { try await carol.subscribe(to: "zed") }
        // What Janus cannot do, named (docs/joining-a-room.md).
        try await fromAlice.setPinned(true)  // orders carol's client-side adaptive subscriptions (JanusAdaptiveSubscriptionTests)
        await #expect(throws: EngineError.unsupportedInJanusRoom(.screenShareQuality)) { try await fromAlice.setScreenShareQuality(.high) }
        await #expect(throws: EngineError.unsupportedInJanusRoom(.microphoneAfterCamera)) { try await bob.publish(bob.createMicrophoneAudioTrack()) }
        await #expect(throws: EngineError.unsupportedInJanusRoom(.unpublishingMicrophoneAlone)) { try await alice.unpublish(microphone) }
        await #expect(throws: EngineError.notAllowedInMode(.signallingOnly, action: "subscribing")) { try await dave.subscribe(to: "alice") }
        await #expect(throws: EngineError.notAllowedInMode(.recvOnly, action: "publishing")) {
            try await carol.publish(try carol.createCameraVideoTrack(encoderConfig: .h360p))
        }

        // Janus lists each of our participants once (the presence is the publisher's own handle once it
        // publishes; receive-only and signalling-only participants are there once, publishing nothing).
        let listed = try await foreign.participants()
        let displays = listed.compactMap { $0["display"] as? String }
        print("Janus lists \(listed.count) participants: \(displays)")
        #expect(displays.sorted() == ["Alice|alice", "Gustav | aiortc", "bob|bob", "carol|carol", "dave|dave"])
        #expect(listed.filter { $0["publisher"] as? Bool == true }.count == 3)

        // bob leaves: the others hear it within 2 s.
        let left = ContinuousClock.now
        await bob.leave()
        let heard = await Self.wait(seconds: 2) {
            [aliceLog, carolLog, daveLog].allSatisfy { $0.all.contains(.participantLeft(participantId: "bob")) }
        }
        print("bob's leaving heard by alice, carol and dave \(ContinuousClock.now - left) after he left")
        #expect(heard)
        #expect(try await dave.participants.map(\.id).sorted() == ["alice", foreignId])

        // alice unpublishes her camera (and the microphone in its peer connection) without leaving.
        try await alice.unpublish(aliceCamera)
        #expect(await Self.wait(seconds: 2) {
            carolLog.all.contains(.trackUnpublished(participantId: "alice", track: PublishedTrack(kind: .camera)))
        })
        #expect(!carolLog.all.contains(.participantLeft(participantId: "alice")))

        // alice publishes again: a new Janus feed for the same participant (the unpublished camera's
        // handle leaves, the others' rosters move her to the new feed), still listed once.
        try await alice.publish(try alice.createCameraVideoTrack(encoderConfig: .h360p))
        #expect(await Self.wait(seconds: 3) {
            carolLog.all.contains(.trackPublished(participantId: "alice", track: PublishedTrack(kind: .camera)))
        })
        #expect(try await Self.wait(seconds: 2) {
            try await foreign.participants().filter { $0["display"] as? String == "Alice|alice" }.count == 1
        })
        #expect(!carolLog.all.contains(.participantLeft(participantId: "alice")))

        // The foreign participant leaves: alice (reading the room through her new camera's handle) hears it.
        let foreignSummary = try await foreign.leave()
        print("aiortc sent \(foreignSummary["video_frames"] ?? "?") frames and \(foreignSummary["audio_frames"] ?? "?") audio frames")
        #expect(await Self.wait(seconds: 2) { aliceLog.all.contains(.participantLeft(participantId: foreignId)) })

        // dave, signalling only, opened no media socket and received nothing; carol's count (the same counter) grew.
        let (daveMedia, carolMedia) = (try await dave.mediaActivity(), try await carol.mediaActivity())
        print("media: dave \(daveMedia), carol \(carolMedia)")
        #expect(daveMedia.mediaSockets == 0 && daveMedia.mediaDatagramsReceived == 0)
        #expect(carolMedia.mediaSockets == 1 && carolMedia.mediaDatagramsReceived >= stats.framesDecoded)
        capturing.cancel()
        for engine in [engines.alice, engines.bob, engines.carol, engines.dave] { await engine.close() }
        // Closing left the room: every presence and publisher session is gone from Janus.
        #expect(try await Self.wait(seconds: 2) { try JanusRoomAPITests.janusParticipants(url: url).isEmpty })
    }
}
