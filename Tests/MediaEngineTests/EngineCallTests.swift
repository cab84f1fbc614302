import Foundation
import Glibc
import MediaEngine
import Testing

/// The public API end to end, as a client uses it (`import MediaEngine` only): a hosted room,
/// a 640x360 simulcast camera, a subscriber choosing layers, events, shutdown. Real time,
/// loopback UDP, SRTP, the engine's own thread.
@Suite(.serialized) struct EngineCallTests {
    @Test func publishSubscribeChooseLayersAndShutDown() async throws {
        let call = try await AliceToBobCall.start()
        let (engine, bobEvents, camera, remote, sizes) = (call.engine, call.bobEvents, call.camera, call.remote, call.sizes)
        #expect(camera.layerSizes == [VideoSize(width: 320, height: 180), VideoSize(width: 640, height: 360)])

        // Each step waits (pushing frames, real time) at most 5 s for the size it expects.
        let capture = Capture(camera, width: 640, height: 360)
        let small = VideoSize(width: 320, height: 180), large = VideoSize(width: 640, height: 360)
        #expect(try await capture.run(until: { sizes.last == large }, within: 5))
        try await remote.setQuality(.low)
        #expect(try await capture.run(until: { sizes.last == small }, within: 5))
        try await remote.setViewPort(width: 640, height: 360)
        #expect(try await capture.run(until: { sizes.last == large }, within: 5))
        // The publisher's cap reaches the subscriber in band.
        try await camera.setWebcamQuality(.low)
        #expect(try await capture.run(until: { sizes.last == small }, within: 5))
        try await capture.run(seconds: 0.5)
        #expect(sizes.last == small)

        let stats = try await remote.stats()
        #expect(stats.currentSpatialLayer == 0 && stats.codec == "VP8" && stats.frameSize == small)
        #expect(stats.framesDecoded >= 15)
        let switches = bobEvents.all.compactMap { event -> LayerSwitch? in
            if case let .layerSwitched(change) = event { return change }
            return nil
        }
        #expect(switches.contains { $0.reason == .client && $0.to?.spatial == 0 })
        #expect(bobEvents.all.contains(.trackSubscribed(publisherId: "alice", trackId: camera.id)))
        await engine.close()
        await engine.close()  // twice: nothing happens
        #expect(bobEvents.all.last == .connectionStateChanged(.disconnected))
    }

    @Test func anEngineLetGoOfWithoutCloseEndsItsThreadAndItsRoomAnswersClosed() async throws {
        // An engine another test closed just now may still be leaving its thread: count once
        // that settled.
        let before = try await settledEngineLoopThreads()
        var engine: MediaEngine? = MediaEngine()
        let room = try await engine!.hostRoom()
        let alice = try await room.join(participantId: "alice")
        #expect(engineLoopThreads() == before + 1)
        engine = nil
        let deadline = ContinuousClock.now + .seconds(5)
        while engineLoopThreads() > before, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        try #require(engineLoopThreads() == before)
        var ended = false
        for await event in alice.events where event == .connectionStateChanged(.disconnected) { ended = true }
        #expect(ended)  // the stream said so, then finished
        await #expect(throws: EngineError.self) { try await room.join(participantId: "bob") }
    }

    @Test func badInputIsATypedErrorNeverATrap() async throws {
        let engine = MediaEngine()
        let room = try await engine.hostRoom()
        let alice = try await room.join(participantId: "alice")
        await #expect(throws: EngineError.duplicateParticipant("alice")) { try await room.join(participantId: "alice") }
        await #expect(throws: EngineError.unknownParticipant("nobody")) { try await alice.subscribe(to: "nobody") }
        let bob = try await room.join(participantId: "bob")
        await #expect(throws: EngineError.notPublished(participant: "bob", track: "camera")) { try await alice.subscribe(to: "bob") }
        #expect(throws: EngineError.self) { try alice.createCameraVideoTrack(encoderConfig: CameraEncoderConfig(width: 8, height: 8)) }
        let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
        await #expect(throws: EngineError.self) { try await camera.setWebcamQuality(.low) }  // not published
        #expect(throws: EngineError.self) { try camera.push(bgra: [0, 0, 0], width: 640, height: 360, stride: 2560) }
        #expect(throws: EngineError.self) { try camera.push(i420: [], width: 0, height: 0) }
        try await alice.publish(camera)
        await #expect(throws: EngineError.alreadyPublished("camera")) { try await alice.publish(camera) }
        await #expect(throws: EngineError.self) { try await bob.publish(camera) }
        // A frame of another size is scaled; odd sizes and formats are the frame type's to refuse.
        try camera.push(try capturedFrame(width: 320, height: 240, index: 0))
        camera.close()
        camera.close()
        #expect(throws: EngineError.closed("camera track \(camera.id)")) { try camera.push(try capturedFrame(width: 64, height: 64, index: 1)) }
        await engine.close()
        await #expect(throws: EngineError.self) { try await engine.hostRoom() }
        await #expect(throws: EngineError.self) { try await room.join(participantId: "carol") }
    }
}

/// The size of each decoded frame of a remote track, collected in the background.
final class SizeLog: @unchecked Sendable {
    private var sizes: [VideoSize] = []
    private let lock = NSLockLike()

    init(_ track: RemoteVideoTrack) {
        Task { [self] in
            for await frame in track.frames { lock.run { sizes.append(VideoSize(width: frame.width, height: frame.height)) } }
        }
    }

    var last: VideoSize? { lock.run { sizes.last } }
    var count: Int { lock.run { sizes.count } }
}

/// Engine loop threads once the count has held for 100 ms (a closed engine's thread ends a moment
/// after `close()` returns).
func settledEngineLoopThreads() async throws -> Int {
    var count = engineLoopThreads(), held = 0
    while held < 5 {
        try await Task.sleep(for: .milliseconds(20))
        let now = engineLoopThreads()
        held = now == count ? held + 1 : 0
        count = now
    }
    return count
}

/// Threads of this process named as the engine names its loop thread.
func engineLoopThreads() -> Int {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.filter { task in
        let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
        return name == "MediaEngine\n"
    }.count
}
