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
