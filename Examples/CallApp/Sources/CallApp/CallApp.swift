import MediaEngine

/// A call: two cameras (MAX_LAYER_2 and MAX_LAYER_3) through the engine's room, one viewer with
/// a 640x360 viewport; the publisher caps one camera, the viewer lowers the other.
@main struct CallApp {
    static func main() async throws {
        let engine = MediaEngine()
        let room = try await engine.hostRoom()
        let viewer = try await room.join(participantId: "viewer")
        let events = Task { for await event in viewer.events { print("event \(event)") } }
        var cameras: [String: LocalVideoTrack] = [:], remotes: [String: RemoteVideoTrack] = [:]
        for (id, maxLayer) in [("two", MaxLayer.two), ("three", MaxLayer.three)] {
            let publisher = try await room.join(participantId: id)
            cameras[id] = try publisher.createCameraVideoTrack(encoderConfig: .h720p, maxLayer: maxLayer)
            try await publisher.publish(cameras[id]!)
            remotes[id] = try await viewer.subscribe(to: id)
            try await remotes[id]!.setViewPort(width: 640, height: 360)
            print("published \(id): \(cameras[id]!.layerSizes.map { "\($0.width)x\($0.height)" })")
        }
        let sizes = Sizes()
        for (id, remote) in remotes { Task { for await frame in remote.frames { await sizes.set(id, frame) } } }
        var index = 0
        func capture(seconds: Int) async throws {  // a 640x360 capture callback at 15 fps
            for _ in 0..<seconds * 15 {
                let luma = (0..<640 * 360).map { UInt8(truncatingIfNeeded: $0 % 640 / 3 + index * 4) }
                for camera in cameras.values {
                    try camera.push(i420: luma + [UInt8](repeating: 128, count: 640 * 180), width: 640, height: 360)
                }
                index += 1
                try await Task.sleep(nanoseconds: 66_000_000)
            }
            print("sizes \(await sizes.text)")
        }
        try await capture(seconds: 3)
        try await cameras["three"]!.setWebcamQuality(.low)
        print("three: setWebcamQuality(.low)")
        try await capture(seconds: 2)
        try await remotes["two"]!.setQuality(.low)
        print("two: setQuality(.low)")
        try await capture(seconds: 2)
        for (id, remote) in remotes.sorted(by: { $0.key < $1.key }) {
            let stats = try await remote.stats()
            print("stats \(id): layer \(stats.currentSpatialLayer ?? -1), frames \(stats.framesDecoded)")
        }
        await engine.close()
        await events.value
        print("closed")
    }
}

actor Sizes {
    private var last: [String: String] = [:]
    func set(_ id: String, _ frame: VideoFrame) { last[id] = "\(frame.width)x\(frame.height)" }
    var text: String { last.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
}
