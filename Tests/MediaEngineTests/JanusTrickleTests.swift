import EngineCore
import Foundation
import InteropTestSupport
@testable import MediaEngine
import Testing

/// Issue 29 item 2, trickle ICE with Janus (RFC 8838), through a real Janus and coturn inside
/// scripts/netns-run.sh's namespace (one Janus run, one coturn): alice publishes her camera, bob
/// (another engine on the same host) subscribes to it; both joined without a local address.
/// 1. Time to first media (alice's `publish` begun → bob's first decoded frame) with no ICE
///    servers, then with a STUN server that never answers (a port on the peer host where nothing
///    listens): the offer and the answer go out with the host candidates at once, so it takes as
///    long as without servers, well under the 3 s gathering timeout that used to come first; the
///    end-of-candidates trickle goes out on both connections once gathering gives up.
/// 2. Relay only (policy `.relay`, coturn as TURN): the offer and the answer carry no candidate,
///    the relayed ones trickle, and both connections run on them.
/// 3. An ICE restart of that relay-only call: the client host's address moves, so coturn no longer
///    knows the allocations' 5-tuple; the paths die, the room restarts ICE, gathers fresh
///    allocations (trickled), and bob decodes again, over the fresh relayed candidates, with no
///    decoder error.
@Suite(.serialized) struct JanusTrickleTests {
    static let turnPort: UInt16 = 34_797
    /// Nothing listens there: a STUN server that never answers.
    static let silentSTUN = ICEServer(urls: ["stun:10.99.0.2:34799"])
    static let turn = ICEServer(urls: ["turn:10.99.0.2:34797?transport=udp"], username: Coturn.username, credential: Coturn.password)

    /// One call: its participants, the camera pushing, bob's track, and how long each step took.
    struct Call {
        let engines: [MediaEngine]
        let alice: LocalParticipant, bob: LocalParticipant
        let aliceEvents: JanusReconnectTests.TimedEventLog, bobEvents: JanusReconnectTests.TimedEventLog
        let camera: LocalVideoTrack
        let track: RemoteVideoTrack
        let sizes: SizeLog
        let pushing: Task<Void, Error>
        let publish: Duration, firstFrame: Duration

        func close() async {
            pushing.cancel()
            for engine in engines { await engine.close() }
        }
    }

    /// alice publishes (camera pushing from the start), bob subscribes at once and waits for the first frame.
    static func call(_ name: String, janus: JanusHarness, iceServers: [ICEServer], policy: ICETransportPolicy = .all) async throws -> Call {
        let engines = [MediaEngine(), MediaEngine()]
        let alice = try await engines[0].joinJanusRoom(url: janus.url, room: 1234, participantId: "alice-\(name)", iceServers: iceServers,
                                                       iceTransportPolicy: policy, autoConsume: false)
        let bob = try await engines[1].joinJanusRoom(url: janus.url, room: 1234, participantId: "bob-\(name)", iceServers: iceServers,
                                                     iceTransportPolicy: policy, autoConsume: false)
        let events = JanusReconnectTests.TimedEventLog(alice), bobEvents = JanusReconnectTests.TimedEventLog(bob)
        let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
        let capture = Capture(camera, width: 640, height: 360)
        let pushing = Task { try await capture.run(seconds: 60) }
        let started = ContinuousClock.now
        try await alice.publish(camera)
        let published = ContinuousClock.now
        let feedId = try #require(try await events.publication()?.feedId)
        let track = try await bob.subscribe(to: feedId)
        let sizes = SizeLog(track)
        #expect(await JanusRoomModelTests.wait(seconds: 8) { sizes.count >= 1 })
        let firstFrame = ContinuousClock.now
        return Call(engines: engines, alice: alice, bob: bob, aliceEvents: events, bobEvents: bobEvents, camera: camera, track: track, sizes: sizes, pushing: pushing,
                    publish: published - started, firstFrame: firstFrame - started)
    }

    /// Both connections' trickle state, once end-of-candidates went out on both (or `seconds` passed).
    static func trickleEnded(_ call: Call, within seconds: Double = 6) async throws -> (publishing: JanusTrickleState?, receiving: JanusTrickleState?) {
        var states = (publishing: try await call.alice.janusTrickle().publishing, receiving: try await call.bob.janusTrickle().receiving)
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1_000))
        while ContinuousClock.now < deadline, states.publishing?.ended != true || states.receiving?.ended != true {
            try await Task.sleep(for: .milliseconds(50))
            states = (try await call.alice.janusTrickle().publishing, try await call.bob.janusTrickle().receiving)
        }
        return states
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    @Test func candidatesTrickleSoMediaStartsAtOnceAndARelayOnlyCallRestartsOnFreshRelays() async throws {
        try PrivateNamespace.require(for: "JanusTrickleTests")
        let coturn = try Coturn(port: Self.turnPort)
        defer { coturn.stop() }
        let janus = try JanusHarness.start()
        defer { janus.stop() }
        defer { ClientLink.restore() }

        // 1. No servers, then a silent STUN server: first media as fast.
        let plain = try await Self.call("plain", janus: janus, iceServers: [])
        let plainStates = (try await plain.alice.janusTrickle().publishing, try await plain.bob.janusTrickle().receiving)
        await plain.close()
        let silent = try await Self.call("silent", janus: janus, iceServers: [Self.silentSTUN])
        let silentStates = try await Self.trickleEnded(silent)
        let silentStats = try await silent.track.stats()
        await silent.close()
        print("time to first media: no ICE servers \(Self.milliseconds(plain.firstFrame)) ms (publish \(Self.milliseconds(plain.publish)) ms); "
            + "a silent STUN server \(Self.milliseconds(silent.firstFrame)) ms (publish \(Self.milliseconds(silent.publish)) ms); "
            + "trickled publishing \(String(describing: silentStates.publishing)), receiving \(String(describing: silentStates.receiving))")
        // Without servers nothing trickles (the descriptions carry every candidate).
        #expect(plainStates.0?.ended == false && plainStates.0?.trickled == [])
        #expect(plainStates.1?.ended == false && plainStates.1?.trickled == [])
        #expect(silent.publish < .milliseconds(1_500))
        #expect(silent.firstFrame < .milliseconds(1_500))
        #expect(silentStates.publishing?.ended == true && silentStates.publishing?.trickled == [])
        #expect(silentStates.receiving?.ended == true && silentStates.receiving?.trickled == [])
        #expect(silentStats.decoderErrors == 0)

        // 2. Relay only: the relayed candidates trickle, and both connections run on them.
        let relayed = try await Self.call("relay", janus: janus, iceServers: [Self.turn], policy: .relay)
        let relayStates = try await Self.trickleEnded(relayed)
        #expect(await JanusRoomModelTests.wait(seconds: 8) { relayed.sizes.count >= 30 })
        print("relay only: first media \(Self.milliseconds(relayed.firstFrame)) ms (publish \(Self.milliseconds(relayed.publish)) ms); "
            + "publishing \(String(describing: relayStates.publishing)), receiving \(String(describing: relayStates.receiving))")
        for state in [relayStates.publishing, relayStates.receiving] {
            #expect(state?.ended == true)
            #expect(state?.trickled.count == 1 && state?.trickled.first?.hasPrefix("relayed 10.99.0.2:") == true)
            #expect(state?.selectedLocal == state?.trickled.first)
        }

        // 3. The client host's address moves: coturn drops what comes from the new 5-tuple, the paths
        //    die, and an ICE restart gathers fresh allocations (trickled) that media comes back on.
        let aliceEvents = relayed.aliceEvents, bobEvents = relayed.bobEvents
        let beforeMove = try await relayed.track.stats()
        let framesBeforeMove = relayed.sizes.count
        let moved = ContinuousClock.now
        try ClientLink.moveAddress(from: PrivateNamespace.localAddress, to: ClientLink.movedAddress)
        var lastCount = framesBeforeMove, lastChange = moved, resumed: Duration?
        while ContinuousClock.now < moved + .seconds(25), resumed == nil {
            let count = relayed.sizes.count
            if count != lastCount {
                // Frames again after at least a second without any: back after the outage.
                if ContinuousClock.now - lastChange >= .seconds(1) { resumed = ContinuousClock.now - moved }
                lastCount = count
                lastChange = ContinuousClock.now
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(await JanusRoomModelTests.wait(seconds: 6) { relayed.sizes.count >= lastCount + 30 })
        let restarted = try await Self.trickleEnded(relayed)
        let aliceReconnected = await JanusReconnectTests.firstEvent(in: aliceEvents, since: moved, within: 1, JanusReconnectTests.isReconnected)
        let bobReconnected = await JanusReconnectTests.firstEvent(in: bobEvents, since: moved, within: 1, JanusReconnectTests.isReconnected)
        let afterMove = try await relayed.track.stats()
        print("relay only, address moved: alice reconnected after \(JanusReconnectTests.milliseconds(aliceReconnected)), "
            + "bob after \(JanusReconnectTests.milliseconds(bobReconnected)); bob decoding again after \(resumed.map { "\(Self.milliseconds($0)) ms" } ?? "never"); "
            + "bob decoded \(beforeMove.framesDecoded) → \(afterMove.framesDecoded), \(afterMove.decoderErrors) decoder errors; "
            + "publishing \(String(describing: restarted.publishing)), receiving \(String(describing: restarted.receiving)); "
            + "alice \(aliceEvents.timed.map { "\(Self.milliseconds($0.at - moved)) ms \($0.event)" }), "
            + "bob \(bobEvents.timed.map { "\(Self.milliseconds($0.at - moved)) ms \($0.event)" })")
        // The paths go silent (2.5 s: reconnecting), the restart comes 3.5 s later, and its fresh
        // relays carry media within moments.
        for reconnected in [aliceReconnected, bobReconnected] { #expect(reconnected.map { $0 <= .seconds(9) } == true) }
        #expect(resumed != nil)
        #expect(afterMove.framesDecoded >= beforeMove.framesDecoded + 30)
        #expect(afterMove.decoderErrors == 0)
        for state in [restarted.publishing, restarted.receiving] {
            // The restart's fresh allocation trickled, and carries the media now.
            #expect(state?.trickled.count == 2)
            #expect(state?.trickled.last?.hasPrefix("relayed 10.99.0.2:") == true && state?.trickled.last != state?.trickled.first)
            #expect(state?.selectedLocal == state?.trickled.last)
        }
        await relayed.close()
    }

    /// Janus trickling its own candidates (`full_trickle = true`): the subscription's offer comes
    /// without any, and those Janus trickles while it starts are added as remote candidates (the
    /// camera's, after its offer, come while its answer is awaited, or later through the room's
    /// event poll); the call works and each selected pair's remote end is Janus's host candidate,
    /// not only a peer-reflexive one learnt from its checks.
    @Test func janusTrickledCandidatesJoinTheCamerasConnection() async throws {
        try PrivateNamespace.require(for: "JanusTrickleTests")
        let janus = try JanusHarness.start(["--full-trickle"])
        defer { janus.stop() }
        let call = try await Self.call("full-trickle", janus: janus, iceServers: [])
        #expect(await JanusRoomModelTests.wait(seconds: 8) { call.sizes.count >= 30 })
        var publishing = try await call.alice.janusTrickle().publishing
        for _ in 0..<100 where publishing?.selectedRemote?.hasPrefix("host 10.99.0.2:") != true {
            try await Task.sleep(for: .milliseconds(50))
            publishing = try await call.alice.janusTrickle().publishing
        }
        let receiving = try await call.bob.janusTrickle().receiving
        let stats = try await call.track.stats()
        print("Janus with full trickle: first media \(Self.milliseconds(call.firstFrame)) ms; publishing \(String(describing: publishing)), "
            + "receiving \(String(describing: receiving)); bob decoded \(stats.framesDecoded), \(stats.decoderErrors) decoder errors")
        for state in [publishing, receiving] {
            #expect(state?.remote.contains { $0.hasPrefix("host 10.99.0.2:") } == true)
            #expect(state?.selectedRemote?.hasPrefix("host 10.99.0.2:") == true)
        }
        #expect(stats.decoderErrors == 0)
        await call.close()
    }
}
