import CommandLineSupport
import Foundation
import MediaEngine
import MediaEngineTesting

/// `simulcast soak`: a long loopback call through the public API (one publisher, a hosted room,
/// N subscribers with different viewports) that samples the process's resident memory, so a
/// leak or a log that grows with the call shows as a rising curve. Argument parsing and API
/// calls only: the engine runs the call.
enum SoakCommand {
    static let usage = """
    usage: simulcast soak [--seconds N] [--subscribers N] [--size WxH] [--sample-every S] [--json PATH]
      --seconds N        call length in seconds, at least one frame (1/30 s; default 600)
      --subscribers N    viewers, 1...16 (default 4; viewports cycle 320x180, 640x360, 1280x720)
      --size WxH         the camera's encoder size (default 1280x720)
      --sample-every S   seconds between RSS samples, at least one frame (1/30 s; default 5)
      --json PATH        the samples as JSON: [{"atSeconds", "rssKiB"}], frames per viewer
    """

    struct Sample: Codable {
        var atSeconds: Double
        var rssKiB: Int
    }

    struct Report: Codable {
        var seconds: Double
        var size: String
        var subscribers: Int
        var samples: [Sample]
        var framesEncoded: Int
        var framesDecoded: [String: Int]
    }

    static func run(_ arguments: ArraySlice<String>) async throws {
        let options = try CommandLineArguments(arguments, valueOptions: ["seconds", "subscribers", "size", "sample-every", "json"])
        let size = try options.size("size", default: (1280, 720))
        let config = CameraEncoderConfig(width: size.width, height: size.height)
        let seconds = try options.duration("seconds", atLeastOneFrameAt: config.frameRate) ?? 600
        let viewers = try options.int("subscribers", default: 4, range: 1...16)
        let sampleEvery = try options.duration("sample-every", atLeastOneFrameAt: config.frameRate) ?? 5
        // Opened before the call starts: a path that cannot be written is refused now.
        let json = try options.string("json").map { path throws(CommandError) in try OutputFiles.openForWriting(path) }

        let engine = MediaEngine()
        let room = try await engine.hostRoom()
        let publisher = try await room.join(participantId: "publisher")
        let camera = try publisher.createCameraVideoTrack(encoderConfig: config)
        try await publisher.publish(camera)
        let viewports = [(320, 180), (640, 360), (1280, 720)]
        let decoded = FrameCounts()
        var drains: [Task<Void, Never>] = []
        for index in 0..<viewers {
            let id = "viewer\(index + 1)"
            let viewer = try await room.join(participantId: id)
            let remote = try await viewer.subscribe(to: "publisher")
            let viewport = viewports[index % viewports.count]
            try await remote.setViewPort(width: viewport.0, height: viewport.1)
            drains.append(Task { for await _ in remote.frames { decoded.add(id) } })
            drains.append(Task { for await _ in viewer.events {} })
        }
        drains.append(Task { for await _ in publisher.events {} })

        // The capture: the built-in scene, which the engine plays at 30 fps; this loop only samples.
        let playing = Task { try await camera.play(from: TestSceneSource(width: size.width, height: size.height)) }
        var samples: [Sample] = []
        let clock = ContinuousClock()
        let start = clock.now
        for index in 0... {
            let at = min(Double(index) * sampleEvery, seconds)
            try await clock.sleep(until: start + .milliseconds(Int64(at * 1000)))
            samples.append(Sample(atSeconds: (at * 10).rounded() / 10, rssKiB: residentKiB()))
            print(String(format: "%7.1f s  RSS %6d KiB  frames %@", at, samples.last!.rssKiB, decoded.summary))
            if at >= seconds { break }
        }
        let pushed = try await camera.stats().framesEncoded
        playing.cancel()
        await engine.close()
        for drain in drains { await drain.value }
        let report = Report(seconds: seconds, size: "\(size.width)x\(size.height)", subscribers: viewers, samples: samples,
                            framesEncoded: pushed, framesDecoded: decoded.all)
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try json.write(String(decoding: try encoder.encode(report), as: UTF8.self))
            try json.close()
        }
    }

    /// VmRSS of this process, KiB (0 if /proc is not there).
    static func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}

/// Frames decoded per viewer, counted from the viewers' frame streams.
final class FrameCounts: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    func add(_ id: String) { lock.withLock { counts[id, default: 0] += 1 } }
    var all: [String: Int] { lock.withLock { counts } }
    var summary: String { all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
}
