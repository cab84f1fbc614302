import MediaEngine
import Testing

/// End-to-end encryption through the public API (`RoomOptions.e2ee`, `E2EEKeyProvider`): a
/// hosted room whose node never holds a key, a subscriber switching layers, a key ratchet in
/// the middle of the call, and typed errors for keys that cannot work. Real time, loopback, SRTP
/// on every hop underneath.
@Suite(.serialized) struct E2EERoomTests {
    @Test func anEncryptedCallDecodesEveryLayerAndKeepsDecodingThroughARatchet() async throws {
        let provider = try E2EEKeyProvider(sharedKey: Array(1...16))
        let call = try await AliceToBobCall.start(options: RoomOptions(e2ee: E2EEOptions(keyProvider: provider)))
        let capture = Capture(call.camera, width: 640, height: 360)
        let small = VideoSize(width: 320, height: 180), large = VideoSize(width: 640, height: 360)
        #expect(try await capture.run(until: { call.sizes.last == large }, within: 5))
        try await call.remote.setQuality(.low)
        #expect(try await capture.run(until: { call.sizes.last == small }, within: 5))
        // Rotation mid-call: everyone ratchets to key id 1 (RFC 9605 §5.1); frames under key 0
        // still in flight open during the grace period.
        #expect(try provider.ratchet() == 1)
        try await call.remote.setQuality(.high)
        #expect(try await capture.run(until: { call.sizes.last == large }, within: 5))
        try await capture.run(seconds: 1)
        let stats = try await call.remote.stats()
        print("e2ee call: \(stats.framesDecoded) frames decoded, \(stats.decoderErrors) decoder errors, "
              + "\(stats.framesUndecryptable) undecryptable")
        #expect(stats.framesDecoded > 30 && stats.decoderErrors == 0 && stats.framesUndecryptable == 0)
        #expect(!call.bobEvents.all.contains { event in
            if case let .e2eeStateChanged(_, state) = event { return state != .ok }
            return false
        })
        await call.engine.close()
    }

    /// Each participant holds its own keys (`join(participantId:keyProvider:)`): carol has a
    /// wrong key for alice, dave none. Both are told (`e2eeStateChanged`), count every frame
    /// they refused, and decode nothing; bob, with the right key, decodes throughout.
    @Test func aWrongKeyAndAMissingKeyAreToldAndCountedAndNothingReachesTheirDecoders() async throws {
        let aliceKey: [UInt8] = Array(1...16)
        let engine = MediaEngine()
        let room = try await engine.hostRoom(options: RoomOptions(e2ee: E2EEOptions(keyProvider: try E2EEKeyProvider(sharedKey: aliceKey))))
        let alice = try await room.join(participantId: "alice")
        let bob = try await room.join(participantId: "bob")
        let carol = try await room.join(participantId: "carol", keyProvider: try E2EEKeyProvider(sharedKey: Array(repeating: 7, count: 16)))
        let daveKeys = try E2EEKeyProvider()
        let dave = try await room.join(participantId: "dave", keyProvider: daveKeys)
        let (carolEvents, daveEvents) = (EventLog(carol), EventLog(dave))
        let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
        try await alice.publish(camera)
        let (toBob, toCarol, toDave) = (try await bob.subscribe(to: "alice"), try await carol.subscribe(to: "alice"),
                                        try await dave.subscribe(to: "alice"))
        let bobSizes = SizeLog(toBob)
        let capture = Capture(camera, width: 640, height: 360)
        #expect(try await capture.run(until: { bobSizes.last == VideoSize(width: 640, height: 360) }, within: 5))
        try await capture.run(seconds: 1)
        let (good, wrong, missing) = (try await toBob.stats(), try await toCarol.stats(), try await toDave.stats())
        print("e2ee keys: bob decoded \(good.framesDecoded); carol (wrong key) refused \(wrong.framesUndecryptable), decoded "
              + "\(wrong.framesDecoded); dave (no key) refused \(missing.framesUndecryptable), decoded \(missing.framesDecoded)")
        #expect(good.framesDecoded > 20 && good.framesUndecryptable == 0 && good.decoderErrors == 0)
        for stats in [wrong, missing] {
            #expect(stats.framesDecoded == 0 && stats.decoderErrors == 0 && stats.framesUndecryptable > 0)
        }
        #expect(carolEvents.all.contains(.e2eeStateChanged(publisherId: "alice", state: .decryptionFailed)))
        #expect(daveEvents.all.contains(.e2eeStateChanged(publisherId: "alice", state: .missingKey)))
        // Dave gets alice's key: he is told frames open again, and decodes.
        try daveKeys.setKey(aliceKey, keyId: 0)
        _ = try await capture.run(until: { daveEvents.all.contains(.e2eeStateChanged(publisherId: "alice", state: .ok)) }, within: 5)
        try await capture.run(seconds: 1)
        #expect(try await toDave.stats().framesDecoded > 0)
        await engine.close()
    }

    @Test func keysThatCannotWorkAreTypedErrors() async throws {
        #expect(throws: EngineError.invalidConfiguration("an E2EE key must be 16 to 64 bytes; got 3")) {
            try E2EEKeyProvider(sharedKey: [1, 2, 3])
        }
        let provider = try E2EEKeyProvider()
        #expect(throws: EngineError.notAllowed("ratchet a key that was never set")) { try provider.ratchet() }
        #expect(throws: EngineError.self) { try provider.setKey(Array(repeating: 0, count: 65), keyId: 1) }
        let engine = MediaEngine()
        let room = try await engine.hostRoom(options: RoomOptions(e2ee: E2EEOptions(keyProvider: provider)))
        let alice = try await room.join(participantId: "alice")
        await #expect(throws: EngineError.notAllowed("the room encrypts end to end and no key is set for 'alice' (nor a shared one)")) {
            try await alice.publish(try alice.createCameraVideoTrack(encoderConfig: .h360p))
        }
        // A key for alice alone is enough for her to publish.
        try provider.setKey(Array(repeating: 9, count: 32), keyId: 4, participant: "alice")
        try await alice.publish(try alice.createCameraVideoTrack(encoderConfig: .h360p))
        await engine.close()
    }
}
