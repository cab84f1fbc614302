import EngineCore
import Foundation
import MediaEngine
import Testing

/// The public API into a Janus VideoRoom: `joinJanusRoom`, a microphone and a camera track pushed
/// from capture loops, `publish`; Janus lists the participant as a publisher under the feed id the
/// `.publishedToSFU` event reports, with its Opus and VP8 simulcast streams. Runs inside scripts/netns-run.sh's
/// namespace (Janus gathers ICE candidates on its veth only), like the other Janus tests.
@Suite(.serialized) struct JanusRoomAPITests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Problem: Error, CustomStringConvertible { var description: String }

    @Test func aClientPublishesItsCameraIntoAJanusRoomThroughThePublicAPI() async throws {
        let ours = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/net")
        let initial = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/1/ns/net")) ?? ""
        guard ProcessInfo.processInfo.environment["MEDIA_ENGINE_NETNS"] == "1", ours != initial else {
            throw Problem(description: "JanusRoomAPITests needs scripts/netns-run.sh's namespace (make test runs it there)")
        }
        let harness = Process()
        harness.executableURL = Self.root.appendingPathComponent("scripts/janus-harness.sh")
        harness.arguments = ["start", "--videoroom"]
        let output = Pipe()
        harness.standardOutput = output
        try harness.run()
        let line = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard let info = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let url = (info["http"] as? String).flatMap(URL.init(string:)), let directory = info["dir"] as? String else {
            throw Problem(description: "janus-harness start --videoroom failed: \(line)")
        }
        defer {
            let stop = Process()
            stop.executableURL = Self.root.appendingPathComponent("scripts/janus-harness.sh")
            stop.arguments = ["stop", directory]
            let done = Pipe()
            stop.standardOutput = done
            if (try? stop.run()) != nil { _ = done.fileHandleForReading.readDataToEndOfFile() }
        }

        let engine = MediaEngine()
        let alice = try await engine.joinJanusRoom(url: url, room: 1234, participantId: "alice", localAddress: "10.99.0.1")
        let events = EventLog(alice)
        let microphone = alice.createMicrophoneAudioTrack()
        try await alice.publish(microphone)
        let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
        try await alice.publish(camera)
        async let spoke: Void = Self.speak(into: microphone, seconds: 2)
        try await Capture(camera, width: 640, height: 360).run(seconds: 2)
        try await spoke
        #expect(camera.framesPushed >= 50)
        #expect(microphone.framesPushed >= 80)
        await #expect(throws: EngineError.self) { try await alice.subscribe(to: "bob") }
        // Both tracks ride one peer connection: a second microphone cannot join it later.
        await #expect(throws: EngineError.self) { try await alice.publish(alice.createMicrophoneAudioTrack()) }
        let publication = try #require(events.all.compactMap { if case let .publishedToSFU(p) = $0 { p } else { nil } }.first)
        print("Published: \(publication), Janus's streams \(publication.streamsJSON)")
        #expect(publication.rids.count == camera.layerSizes.count)
        #expect(publication.audio)
        #expect(publication.streamsJSON.contains("\"opus\"") && publication.streamsJSON.contains("\"vp8\""))

        // Janus, asked through a session of its own, lists alice as a publisher.
        let janus = JanusHTTPClient(base: url)
        try janus.attach(plugin: "janus.plugin.videoroom")
        let reply = try janus.message(["request": "listparticipants", "room": 1234])
        let participants = (((reply["plugindata"] as? [String: Any])?["data"] as? [String: Any])?["participants"] as? [[String: Any]]) ?? []
        janus.close()
        print("Janus participants after publishing through the API: \(participants)")
        #expect(participants.contains { $0["display"] as? String == "alice" && $0["publisher"] as? Bool == true
            && ($0["id"] as? Int).map(String.init) == publication.feedId })
        #expect(events.all.contains(.connectionStateChanged(.connected)))
        await alice.leave()
        await engine.close()
        #expect(events.all.last == .connectionStateChanged(.disconnected))
    }

    /// 20 ms frames of a tone pushed at the microphone's pace, as a capture callback would.
    static func speak(into microphone: LocalAudioTrack, seconds: Int) async throws {
        let start = ContinuousClock.now
        for index in 0..<(seconds * 50) {
            let samples = (0..<960).map { Int16(8_000 * sin(Double(index * 960 + $0) * 2 * .pi * 440 / 48_000)) }
            try microphone.push(pcm: samples, channels: 1)
            try await Task.sleep(until: start + .milliseconds(20 * (index + 1)), clock: .continuous)
        }
    }

    @Test func badJanusAddressesAreTypedErrors() async throws {
        let engine = MediaEngine()
        await #expect(throws: EngineError.invalidConfiguration("'nowhere' is not an IPv4 address")) {
            try await engine.joinJanusRoom(url: URL(string: "http://127.0.0.1:1/janus")!, room: 1, participantId: "a", localAddress: "nowhere")
        }
        // Nothing listens there: publishing fails with a typed error, never a trap or a hang.
        let alice = try await engine.joinJanusRoom(url: URL(string: "http://127.0.0.1:1/janus")!, room: 1, participantId: "a",
                                                   localAddress: "127.0.0.1")
        let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
        await #expect(throws: EngineError.self) { try await alice.publish(camera) }
        await engine.close()
    }
}
