import EngineCore
import Foundation
import InteropTestSupport
import MediaEngine
import Testing

/// The public API into a Janus VideoRoom: `joinJanusRoom`, a microphone and a camera track pushed
/// from capture loops, `publish`; Janus lists the participant as a publisher under the feed id the
/// `.publishedToSFU` event reports, with its Opus and VP8 simulcast streams. Runs inside scripts/netns-run.sh's
/// namespace (Janus gathers ICE candidates on its veth only), like the other Janus tests.
@Suite(.serialized) struct JanusRoomAPITests {
    /// A throw-away Janus inside scripts/netns-run.sh's namespace (`options` for the harness,
    /// e.g. `--ice-tcp`).
    static func startJanus(_ options: [String] = []) throws -> JanusHarness {
        try PrivateNamespace.require(for: "JanusRoomAPITests")
        return try JanusHarness.start(options)
    }

    /// Janus's participants of room 1234, asked through a session of its own.
    static func janusParticipants(url: URL) throws -> [[String: Any]] {
        let janus = JanusHTTPClient(base: url)
        try janus.attach(plugin: "janus.plugin.videoroom")
        let reply = try janus.message(["request": "listparticipants", "room": 1234])
        janus.close()
        let participants = (((reply["plugindata"] as? [String: Any])?["data"] as? [String: Any])?["participants"] as? [[String: Any]]) ?? []
        print("Janus participants: \(participants)")
        return participants
    }

    /// A new engine's "alice" joins room 1234 at `url` (default protocol) and publishes a
    /// microphone and then a 640x360 camera, both pushed for 2 s.
    static func alicePublishes(to url: URL) async throws -> (MediaEngine, LocalParticipant, EventLog, LocalVideoTrack, LocalAudioTrack) {
        let engine = MediaEngine()
        let alice = try await engine.joinJanusRoom(url: url, room: 1234, participantId: "alice", localAddress: PrivateNamespace.localAddress)
        let events = EventLog(alice)
        let microphone = alice.createMicrophoneAudioTrack()
        try await alice.publish(microphone)
        let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
        try await alice.publish(camera)
        async let spoke: Void = Self.speak(into: microphone, seconds: 2)
        try await Capture(camera, width: 640, height: 360).run(seconds: 2)
        try await spoke
        return (engine, alice, events, camera, microphone)
    }

    @Test func aClientPublishesItsCameraIntoAJanusRoomThroughThePublicAPI() async throws {
        let harness = try Self.startJanus()
        defer { harness.stop() }
        let (engine, alice, events, camera, microphone) = try await Self.alicePublishes(to: harness.url)
        #expect(camera.framesPushed >= 50)
        #expect(microphone.framesPushed >= 80)
        await #expect(throws: EngineError.self) { try await alice.subscribe(to: "bob") }
        // Both tracks ride one peer connection: a second microphone cannot join it later.
        await #expect(throws: EngineError.self) { try await alice.publish(alice.createMicrophoneAudioTrack()) }
        let publication = try #require(try await events.publication())
        print("Published: \(publication), Janus's streams \(publication.streamsJSON)")
        #expect(publication.rids.count == camera.layerSizes.count)
        #expect(publication.audio)
        #expect(publication.streamsJSON.contains("\"opus\"") && publication.streamsJSON.contains("\"vp8\""))

        // Janus lists alice once, as a publisher, under the feed id the event gave.
        let named = try Self.janusParticipants(url: harness.url).filter { $0["display"] as? String == "alice|alice" && $0["publisher"] as? Bool == true }
        #expect(named.count == 1 && named.first?["publisher"] as? Bool == true
            && (named.first?["id"] as? Int).map(String.init) == publication.feedId)
        #expect(try await camera.stats().transportProtocol == .udp)
        #expect(events.all.contains(.connectionStateChanged(.connected)))
        await alice.leave()
        await engine.close()
        #expect(events.all.last == .connectionStateChanged(.disconnected))
    }

    /// docs/joining-a-room.md with Janus (issue 18): with every UDP datagram dropped in the namespace (nftables),
    /// the default `.udpOverTCP` gives ICE over UDP 2 s, then publishes over ICE-TCP (Janus with
    /// `ice_tcp` and `ice_lite`) and says so; Janus lists the camera's publisher once (the UDP
    /// attempt left the room).
    @Test func withUDPBlockedTheCameraReachesJanusOverICETCP() async throws {
        let harness = try Self.startJanus(["--ice-tcp"])
        defer { harness.stop() }
        let ((), dropped) = try await NamespaceFirewall.withUDPBlocked {
            let (engine, _, events, camera, _) = try await Self.alicePublishes(to: harness.url)
            let switches = events.protocolSwitches
            print("Janus with UDP blocked: \(switches.map(\.description)), \(try await camera.stats().framesEncoded) frames encoded")
            #expect(switches.count == 1)
            #expect(switches.first.map { $0.connection == .publishing && $0.to == .tcp && (2_000..<4_000).contains($0.afterMilliseconds) } == true)
            #expect(try await camera.stats().transportProtocol == .tcp)
            let named = try Self.janusParticipants(url: harness.url).filter { $0["display"] as? String == "alice|alice" && $0["publisher"] as? Bool == true }
            #expect(named.count == 1 && named.first?["publisher"] as? Bool == true)
            await engine.close()
        }
        #expect(dropped > 0)  // the UDP checks really were dropped
    }

    /// 20 ms frames of a tone pushed at the microphone's pace, as a capture callback would.
    static func speak(into microphone: LocalAudioTrack, seconds: Int) async throws {
        let start = ContinuousClock.now
        for index in 0..<(seconds * 50) {
            let samples = (0..<960).map { Int16(8_000 * sin(Double(index * 960 + $0) * 2 * .pi * 440 / 48_000)) }
            try microphone.push(pcm: samples, channels: 1)
            try await Task.sleep(until: start + .milliseconds(20 * (index + 1)), clock: .continuous)
        }
    }

    /// Issue 16 through Janus: alice's camera is SFrame-encrypted (RFC 9605) before it reaches
    /// Janus, with her own key (a key per sender, as in hosted rooms: `setKey(_:keyId:participant:)`);
    /// bob, holding it as the room key, receives it through Janus's VideoRoom, opens and decodes
    /// every frame and still switches substreams; dave holds it as alice's key only (his shared
    /// key is another) and opens it too, subscribing by her Janus feed id; carol, with another
    /// key, decodes nothing and is told so.
    @Test func anEncryptedCameraThroughJanusOpensOnlyWithTheKey() async throws {
        let janus = try Self.startJanus()
        defer { janus.stop() }
        let key = (0..<16).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 3) }
        let engine = MediaEngine()
        let roomKey = E2EEOptions(keyProvider: try E2EEKeyProvider(sharedKey: key))
        let alicesKeys = try E2EEKeyProvider()
        try alicesKeys.setKey(key, keyId: 0, participant: "alice")
        let alice = try await engine.joinJanusRoom(url: janus.url, room: 1234, participantId: "alice", localAddress: PrivateNamespace.localAddress,
                                                   e2ee: E2EEOptions(keyProvider: alicesKeys))
        let aliceEvents = EventLog(alice)
        let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
        try await alice.publish(camera)
        let capture = Capture(camera, width: 640, height: 360)
        let publication = try #require(try await aliceEvents.publication())

        let bob = try await engine.joinJanusRoom(url: janus.url, room: 1234, participantId: "bob", localAddress: PrivateNamespace.localAddress, e2ee: roomKey)
        let carol = try await engine.joinJanusRoom(url: janus.url, room: 1234, participantId: "carol", localAddress: PrivateNamespace.localAddress,
                                                   e2ee: E2EEOptions(keyProvider: try E2EEKeyProvider(sharedKey: key.map { $0 ^ 0x5A })))
        let carolEvents = EventLog(carol)
        let davesKeys = try E2EEKeyProvider(sharedKey: key.map { $0 ^ 0x33 })
        try davesKeys.setKey(key, keyId: 0, participant: "alice")
        let dave = try await engine.joinJanusRoom(url: janus.url, room: 1234, participantId: "dave", localAddress: PrivateNamespace.localAddress,
                                                  e2ee: E2EEOptions(keyProvider: davesKeys))
        let daveEvents = EventLog(dave)
        let bobTrack = try await bob.subscribe(to: publication.feedId)
        let carolTrack = try await carol.subscribe(to: publication.feedId)
        let bobSizes = SizeLog(bobTrack), carolSizes = SizeLog(carolTrack)
        // dave's roster knows whose feed it is once he is in the room: alice's key opens it.
        #expect(await JanusRoomModelTests.wait(seconds: 5) { daveEvents.all.contains(.roomJoined) })
        let daveTrack = try await dave.subscribe(to: publication.feedId)

        // Top substream first (640x360), then bob asks for the lowest (320x180).
        #expect(try await capture.run(until: { bobSizes.last == VideoSize(width: 640, height: 360) }, within: 6))
        try await capture.run(seconds: 1.5)
        let beforeSwitch = bobSizes.count
        try await bobTrack.setQuality(.low)
        #expect(try await capture.run(until: { bobSizes.last == VideoSize(width: 320, height: 180) }, within: 4))
        try await capture.run(seconds: 1.5)

        let bobStats = try await bobTrack.stats(), carolStats = try await carolTrack.stats(), daveStats = try await daveTrack.stats()
        print("dave (alice's key as hers only) decoded \(daveStats.framesDecoded), \(daveStats.framesUndecryptable) undecryptable")
        #expect(daveStats.framesDecoded >= 30 && daveStats.framesUndecryptable == 0 && daveStats.decoderErrors == 0)
        print("Through Janus: bob decoded \(bobStats.framesDecoded) (\(beforeSwitch) before asking for 320x180), "
            + "\(bobStats.decoderErrors) decoder errors, \(bobStats.framesUndecryptable) undecryptable; carol decoded "
            + "\(carolStats.framesDecoded), \(carolStats.framesUndecryptable) undecryptable, \(carolStats.bytesReceived) bytes received")
        #expect(bobStats.framesDecoded >= 60)
        #expect(bobStats.decoderErrors == 0)
        #expect(bobStats.framesUndecryptable == 0)
        // Carol received the top substream the whole time and opened none of it (she waits for a
        // key frame after each refused one, so only those count as undecryptable).
        #expect(carolStats.bytesReceived > 20_000)
        #expect(carolStats.framesDecoded == 0 && carolSizes.count == 0)
        #expect(carolStats.framesUndecryptable >= 2)
        // Told under alice's participant id (the room model's; carol asked by feed id).
        #expect(carolEvents.all.contains(.e2eeStateChanged(publisherId: "alice", state: .missingKey))
            || carolEvents.all.contains(.e2eeStateChanged(publisherId: "alice", state: .decryptionFailed)))
        await engine.close()
    }

    @Test func badJanusAddressesAreTypedErrors() async throws {
        let engine = MediaEngine()
        await #expect(throws: EngineError.invalidConfiguration("'nowhere' is not an IPv4 address")) {
            try await engine.joinJanusRoom(url: URL(string: "http://127.0.0.1:1/janus")!, room: 1, participantId: "a", localAddress: "nowhere")
        }
        // Nothing listens there: publishing fails with a typed error, never a trap or a hang.
        let alice = try await engine.joinJanusRoom(url: URL(string: "http://127.0.0.1:1/janus")!, room: 1, participantId: "a",
                                                   localAddress: "127.0.0.1")
        let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
        await #expect(throws: EngineError.self) { try await alice.publish(camera) }
        await engine.close()
    }
}
