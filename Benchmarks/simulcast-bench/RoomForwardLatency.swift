import Foundation
import MediaEngine
import MediaEngineTesting

/// `simulcast-bench forward`'s latency part (issue 27): how long a hosted room's node holds what
/// it forwards, through the engine's real loop rather than a bare `ForwardingNode`. A
/// `MediaEngine` hosts a room; alice plays a 640x360 test scene at 30 fps from her camera (encoded
/// on the same loop thread), bob subscribes; after a warm-up, the probe at alice's node
/// (`ForwardLatencyProbe`) times each forwarded send from the kernel's arrival stamp of the
/// datagram it forwards (`SO_TIMESTAMPNS`) to its `sendto`.
struct RoomForwardLatency: Sendable {
    var warmUpSeconds: Double
    var seconds: Double

    struct Result: Sendable {
        var seconds: Double
        var sends: Int
        var medianMilliseconds: Double
        var p99Milliseconds: Double
    }

    /// The goal: the median at most this.
    static let goalMedianMilliseconds = 0.2

    func measure() throws -> Result {
        let (warmUp, window) = (warmUpSeconds, seconds)
        return try runBlocking {
            let engine = MediaEngine()
            let room = try await engine.hostRoom()
            let alice = try await room.join(participantId: "alice")
            let bob = try await room.join(participantId: "bob")
            let drains = [alice, bob].map { participant in Task { for await _ in participant.events {} } }
            let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
            try await alice.publish(camera)
            let remote = try await bob.subscribe(to: "alice")
            let frames = Task { for await _ in remote.frames {} }
            let playing = Task { try? await camera.play(from: TestSceneSource(width: 640, height: 360, seed: 27)) }
            try await Task.sleep(for: .seconds(warmUp))
            try await room.startForwardLatencyProbe(publisher: "alice")
            try await Task.sleep(for: .seconds(window))
            let latency = try await room.forwardLatency(publisher: "alice")
            playing.cancel()
            await engine.close()
            _ = await playing.value
            for task in drains { await task.value }
            await frames.value
            guard let median = latency.medianMilliseconds, let p99 = latency.p99Milliseconds else {
                throw ValidationError(message: "the room forwarded nothing in \(window) s")
            }
            return Result(seconds: window, sends: latency.sends, medianMilliseconds: median, p99Milliseconds: p99)
        }
    }
}
