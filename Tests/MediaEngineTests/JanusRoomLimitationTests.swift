import Foundation
import MediaEngine
import Testing

/// What a Janus room cannot do is a typed error naming it (`EngineError.unsupportedInJanusRoom`),
/// checked before anything goes to Janus: these run against a Janus URL nobody answers (the
/// presence's failure to reach it arrives as an event and changes nothing here). The checks
/// that need a connected publisher or subscription run in `JanusRoomModelTests`.
@Suite struct JanusRoomLimitationTests {
    /// A Janus room at a loopback port where nothing listens.
    static func join(_ engine: MediaEngine) async throws -> LocalParticipant {
        try await engine.joinJanusRoom(url: URL(string: "http://127.0.0.1:9/janus")!, room: 1234, participantId: "alice",
                                       localAddress: "127.0.0.1")
    }

    /// A screen share waits for the camera's peer connection (its second video m-line) and,
    /// until then, can go alone (and come back); a second one is already published.
    @Test func aScreenShareNotYetConnectedWaitsForTheCameraAndUnpublishesAlone() async throws {
        let engine = MediaEngine()
        let alice = try await Self.join(engine)
        let screen = try alice.createScreenShareVideoTrack()
        try await alice.publish(screen)
        await #expect(throws: EngineError.alreadyPublished("screen share")) { try await alice.publish(try alice.createScreenShareVideoTrack()) }
        try await alice.unpublish(screen)
        await #expect(throws: EngineError.notPublished(participant: "alice", track: "screen share \(screen.id)")) {
            try await alice.unpublish(screen)
        }
        try await alice.publish(screen)
        await engine.close()
    }

    /// A microphone waiting for the camera's peer connection can go alone (and come back).
    @Test func aMicrophoneNotYetConnectedUnpublishesAlone() async throws {
        let engine = MediaEngine()
        let alice = try await Self.join(engine)
        let microphone = alice.createMicrophoneAudioTrack()
        try await alice.publish(microphone)
        try await alice.unpublish(microphone)
        await #expect(throws: EngineError.notPublished(participant: "alice", track: "microphone \(microphone.id)")) {
            try await alice.unpublish(microphone)
        }
        try await alice.publish(microphone)
        await engine.close()
    }

    @Test func everyLimitationReadsAsASentenceNamingJanus() {
        for limitation in JanusRoomLimitation.allCases {
            let text = EngineError.unsupportedInJanusRoom(limitation).description
            #expect(text.hasPrefix("not supported in a Janus room: ") && text.count > 50, "\(text)")
        }
    }
}
