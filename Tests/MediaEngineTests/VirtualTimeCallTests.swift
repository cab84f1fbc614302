import MediaEngine
import MediaEngineTesting
import Testing

/// A hosted-room call on virtual time (`VirtualTimeEngine`): the call of `EngineCallTests`
/// (which keeps one on real sockets in real time), end-to-end encryption through the public API
/// (`RoomOptions.e2ee`, `E2EEKeyProvider`: a node that never holds a key, a ratchet mid-call,
/// per-participant keys, typed errors), and a replay. The same public API, real VP8, SRTP and
/// SFrame, a manual clock and an in-memory network: each check is about the room's behaviour
/// and replays identically.
@Suite struct VirtualTimeCallTests {
    static let small = VideoSize(width: 320, height: 180), large = VideoSize(width: 640, height: 360)

    @Test func publishSubscribeChooseLayersAndShutDown() async throws {
        let call = try await VirtualCall.start()
        let (virtual, camera, remote) = (call.virtual, call.camera, call.remote)
        #expect(camera.layerSizes == [Self.small, Self.large])
        #expect(try await call.advance(untilSize: Self.large, within: .seconds(5)))
        try await remote.setQuality(.low)
        #expect(try await call.advance(untilSize: Self.small, within: .seconds(5)))
        try await remote.setViewPort(width: 640, height: 360)
        #expect(try await call.advance(untilSize: Self.large, within: .seconds(5)))
        // The publisher's cap reaches the subscriber in band.
        try await camera.setWebcamQuality(.low)
        #expect(try await call.advance(untilSize: Self.small, within: .seconds(5)))
        virtual.advance(by: .milliseconds(500))
        let stats = try await remote.stats()
        #expect(stats.currentSpatialLayer == 0 && stats.codec == "VP8" && stats.frameSize == Self.small)
        #expect(stats.framesDecoded >= 15 && stats.decoderErrors == 0)
        let switches = virtual.events(of: call.bob).compactMap { event -> LayerSwitch? in
            if case let .layerSwitched(change) = event { return change }
            return nil
        }
        #expect(switches.contains { $0.reason == .client && $0.to?.spatial == 0 })
        #expect(virtual.events(of: call.bob).contains(.trackSubscribed(publisherId: "alice", trackId: camera.id)))
        await virtual.close()
        await virtual.close()  // twice: nothing happens
        #expect(virtual.events(of: call.bob).last == .connectionStateChanged(.disconnected))
        await #expect(throws: EngineError.self) { try await remote.stats() }
    }

    @Test func anEncryptedCallDecodesEveryLayerAndKeepsDecodingThroughARatchet() async throws {
        let provider = try E2EEKeyProvider(sharedKey: Array(1...16))
        let call = try await VirtualCall.start(options: RoomOptions(e2ee: E2EEOptions(keyProvider: provider)))
        #expect(try await call.advance(untilSize: Self.large, within: .seconds(5)))
        try await call.remote.setQuality(.low)
        #expect(try await call.advance(untilSize: Self.small, within: .seconds(5)))
        // Rotation mid-call: everyone ratchets to key id 1 (RFC 9605 §5.1); frames under key 0
        // still in flight open during the grace period.
        #expect(try provider.ratchet() == 1)
        try await call.remote.setQuality(.high)
        #expect(try await call.advance(untilSize: Self.large, within: .seconds(5)))
        call.virtual.advance(by: .seconds(1))
        let stats = try await call.remote.stats()
        #expect(stats.framesDecoded > 30 && stats.decoderErrors == 0 && stats.framesUndecryptable == 0)
        #expect(!call.virtual.events(of: call.bob).contains { event in
            if case let .e2eeStateChanged(_, state) = event { return state != .ok }
            return false
        })
        await call.virtual.close()
    }

    /// Each participant holds its own keys: carol has a wrong key for alice, dave none. Both are
    /// told (`e2eeStateChanged`), count every frame they refused and decode nothing; bob, with
    /// the right key, decodes throughout; dave decodes once he gets the key.
    @Test func aWrongKeyAndAMissingKeyAreToldAndCountedAndNothingReachesTheirDecoders() async throws {
        let aliceKey: [UInt8] = Array(1...16)
        let virtual = VirtualTimeEngine(seed: 2)
        let room = try await virtual.engine.hostRoom(options: RoomOptions(e2ee: E2EEOptions(keyProvider: try E2EEKeyProvider(sharedKey: aliceKey))))
        let alice = try await room.join(participantId: "alice")
        let bob = try await room.join(participantId: "bob")
        let carol = try await room.join(participantId: "carol", keyProvider: try E2EEKeyProvider(sharedKey: Array(repeating: 7, count: 16)))
        let daveKeys = try E2EEKeyProvider()
        let dave = try await room.join(participantId: "dave", keyProvider: daveKeys)
        let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
        try await alice.publish(camera)
        let (toBob, toCarol, toDave) = (try await bob.subscribe(to: "alice"), try await carol.subscribe(to: "alice"),
                                        try await dave.subscribe(to: "alice"))
        _ = await virtual.play(try TestSceneSource(width: 640, height: 360), on: camera)
        #expect(try await virtual.advance(until: { try await toBob.stats().frameSize == Self.large }, within: .seconds(5)))
        virtual.advance(by: .seconds(1))
        let (good, wrong, missing) = (try await toBob.stats(), try await toCarol.stats(), try await toDave.stats())
        #expect(good.framesDecoded > 20 && good.framesUndecryptable == 0 && good.decoderErrors == 0)
        for stats in [wrong, missing] {
            #expect(stats.framesDecoded == 0 && stats.decoderErrors == 0 && stats.framesUndecryptable > 0)
        }
        #expect(virtual.events(of: carol).contains(.e2eeStateChanged(publisherId: "alice", state: .decryptionFailed)))
        #expect(virtual.events(of: dave).contains(.e2eeStateChanged(publisherId: "alice", state: .missingKey)))
        try daveKeys.setKey(aliceKey, keyId: 0)
        #expect(await virtual.advance(until: { virtual.events(of: dave).contains(.e2eeStateChanged(publisherId: "alice", state: .ok)) },
                                      within: .seconds(5)))
        virtual.advance(by: .seconds(1))
        #expect(try await toDave.stats().framesDecoded > 0)
        await virtual.close()
    }

    @Test func keysThatCannotWorkAreTypedErrors() async throws {
        #expect(throws: EngineError.invalidConfiguration("an E2EE key must be 16 to 64 bytes; got 3")) {
            try E2EEKeyProvider(sharedKey: [1, 2, 3])
        }
        let provider = try E2EEKeyProvider()
        #expect(throws: EngineError.notAllowed("ratchet a key that was never set")) { try provider.ratchet() }
        #expect(throws: EngineError.self) { try provider.setKey(Array(repeating: 0, count: 65), keyId: 1) }
        let virtual = VirtualTimeEngine()
        let room = try await virtual.engine.hostRoom(options: RoomOptions(e2ee: E2EEOptions(keyProvider: provider)))
        let alice = try await room.join(participantId: "alice")
        await #expect(throws: EngineError.notAllowed("the room encrypts end to end and no key is set for 'alice' (nor a shared one)")) {
            try await alice.publish(try alice.createCameraVideoTrack(encoderConfig: .h360p))
        }
        // A key for alice alone is enough for her to publish.
        try provider.setKey(Array(repeating: 9, count: 32), keyId: 4, participant: "alice")
        try await alice.publish(try alice.createCameraVideoTrack(encoderConfig: .h360p))
        await virtual.close()
    }

    /// Bob's downlink loses 5 % of its datagrams and delays them 20 ms (`impairDownlink`): the
    /// node resends what he NACKs, he decodes on without a decoder error, and alice's own path is
    /// untouched.
    @Test func aLossyDownlinkIsRepairedByRetransmissions() async throws {
        let call = try await VirtualCall.start(seed: 5)
        call.virtual.impairDownlink(of: call.bob, with: VirtualNetworkConditions(oneWayDelay: .milliseconds(20), lossProbability: 0.05, seed: 3))
        #expect(try await call.advance(untilSize: Self.large, within: .seconds(5)))
        call.virtual.advance(by: .seconds(3))
        let stats = try await call.remote.stats()
        #expect(call.virtual.droppedByImpairedDownlink > 0)
        #expect(stats.nackCount > 0 && stats.packetsRecovered > 0)
        #expect(stats.decoderErrors == 0 && stats.framesDecoded > 60)
        await call.virtual.close()
    }

    /// One seed, one run: two engines made alike and driven alike decode the same frames and
    /// tell the same events.
    @Test func theSameSeedReplaysTheSameCall() async throws {
        func run() async throws -> (decoded: Int, bytes: Int, events: [ParticipantEvent]) {
            let call = try await VirtualCall.start(seed: 11)
            call.virtual.advance(by: .seconds(1))
            try await call.remote.setQuality(.low)
            call.virtual.advance(by: .seconds(1))
            let stats = try await call.remote.stats()
            let events = call.virtual.events(of: call.bob)
            await call.virtual.close()
            return (stats.framesDecoded, stats.bytesReceived, events)
        }
        let (first, second) = (try await run(), try await run())
        #expect(first.decoded > 30)
        #expect(first.decoded == second.decoded && first.bytes == second.bytes && first.events == second.events)
    }
}

/// Alice plays a 640x360 scene into her camera in a hosted room on virtual time; Bob receives it.
struct VirtualCall {
    let virtual: VirtualTimeEngine
    let alice: LocalParticipant
    let bob: LocalParticipant
    let camera: LocalVideoTrack
    let remote: RemoteVideoTrack

    static func start(options: RoomOptions = RoomOptions(), seed: UInt64 = 1) async throws -> VirtualCall {
        let virtual = VirtualTimeEngine(seed: seed)
        let room = try await virtual.engine.hostRoom(options: options)
        let alice = try await room.join(participantId: "alice")
        let bob = try await room.join(participantId: "bob")
        let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
        try await alice.publish(camera)
        let remote = try await bob.subscribe(to: "alice")
        _ = await virtual.play(try TestSceneSource(width: 640, height: 360), on: camera)
        return VirtualCall(virtual: virtual, alice: alice, bob: bob, camera: camera, remote: remote)
    }

    /// Advances until Bob's last decoded frame has `size`.
    func advance(untilSize size: VideoSize, within limit: Duration) async throws -> Bool {
        try await virtual.advance(until: { try await remote.stats().frameSize == size }, within: limit)
    }
}
