import Foundation
import InteropTestSupport
import Testing
@testable import MediaEngine

/// Issue 27 with Janus: a Janus room where nothing flows costs the engine's loop no more than
/// a hosted one (no 2 ms tick): it waits on the peer connections' sockets and serves the room at
/// the idle cadence (RTCP reports, ICE consent checks); Janus's HTTP runs off the loop.
extension JanusRoomAPITests {
    @Test func aJanusRoomWithNothingFlowingWakesAtMostTwentyTimesASecond() async throws {
        let harness = try Self.startJanus()
        defer { harness.stop() }
        let engine = MediaEngine()
        let alice = try await engine.joinJanusRoom(url: harness.url, room: 1234, participantId: "alice",
                                                   localAddress: PrivateNamespace.localAddress)
        let events = EventLog(alice)
        let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
        try await alice.publish(camera)
        let feedId = try #require(try await events.publication()?.feedId)
        let bob = try await engine.joinJanusRoom(url: harness.url, room: 1234, participantId: "bob",
                                                 localAddress: PrivateNamespace.localAddress)
        _ = try await bob.subscribe(to: feedId)
        try await Task.sleep(for: .milliseconds(500))  // the activity hold over
        let wakeUps = try await IdleEngineLoopTests.wakeUps(of: try #require((engine.loop as? EngineLoop)?.threadID), during: 2)
        print("idle Janus room loop: \(wakeUps) wake-up(s) in 2 s (a 2 ms tick makes about 1,000)")
        #expect(wakeUps <= 40)
        await engine.close()
    }
}
