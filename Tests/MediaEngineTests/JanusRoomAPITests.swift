import EngineCore
import Foundation
import MediaEngine
import Testing

/// The public API into a Janus VideoRoom: `joinJanusRoom`, a camera track pushed from a capture
/// loop, `publish`; Janus lists the participant as a publisher. Runs inside scripts/netns-run.sh's
/// namespace (Janus gathers ICE candidates on its veth only), like the other Janus tests.
@Suite(.serialized) struct JanusRoomAPITests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Problem: Error, CustomStringConvertible { var description: String }

    /// Starts the harness in VideoRoom mode with `options` (it prints one JSON line and leaves Janus running).
    static func startJanus(_ options: [String] = []) throws -> (url: URL, directory: String) {
        try NamespaceFirewall.requirePrivateNamespace("JanusRoomAPITests")
        let harness = Process()
        harness.executableURL = root.appendingPathComponent("scripts/janus-harness.sh")
        harness.arguments = ["start", "--videoroom"] + options
        let output = Pipe()
        harness.standardOutput = output
        try harness.run()
        let line = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard let info = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let url = (info["http"] as? String).flatMap(URL.init(string:)), let directory = info["dir"] as? String else {
            throw Problem(description: "janus-harness start --videoroom \(options.joined(separator: " ")) failed: \(line)")
        }
        return (url, directory)
    }

    static func stopJanus(_ directory: String) {
        let stop = Process()
        stop.executableURL = root.appendingPathComponent("scripts/janus-harness.sh")
        stop.arguments = ["stop", directory]
        let done = Pipe()
        stop.standardOutput = done
        if (try? stop.run()) != nil { _ = done.fileHandleForReading.readDataToEndOfFile() }
    }

    /// Whether Janus, asked through a session of its own, lists `display` once in room 1234, as a
    /// publisher (an attempt that failed on the way, e.g. over UDP before ICE-TCP, left the room).
    static func janusListsPublisher(_ display: String, url: URL) throws -> Bool {
        let janus = JanusHTTPClient(base: url)
        try janus.attach(plugin: "janus.plugin.videoroom")
        let reply = try janus.message(["request": "listparticipants", "room": 1234])
        let participants = (((reply["plugindata"] as? [String: Any])?["data"] as? [String: Any])?["participants"] as? [[String: Any]]) ?? []
        janus.close()
        print("Janus participants: \(participants)")
        let named = participants.filter { $0["display"] as? String == display }
        return named.count == 1 && named[0]["publisher"] as? Bool == true
    }

    /// A new engine's "alice" joins room 1234 at `url` (default protocol) and publishes a 640x360
    /// camera, pushed for 2 s.
    static func alicePublishes(to url: URL) async throws -> (MediaEngine, LocalParticipant, EventLog, LocalVideoTrack) {
        let engine = MediaEngine()
        let alice = try await engine.joinJanusRoom(url: url, room: 1234, participantId: "alice", localAddress: "10.99.0.1")
        let events = EventLog(alice)
        let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
        try await alice.publish(camera)
        try await Capture(camera, width: 640, height: 360).run(seconds: 2)
        return (engine, alice, events, camera)
    }

    @Test func aClientPublishesItsCameraIntoAJanusRoomThroughThePublicAPI() async throws {
        let (url, directory) = try Self.startJanus()
        defer { Self.stopJanus(directory) }

        let (engine, alice, events, camera) = try await Self.alicePublishes(to: url)
        #expect(camera.framesPushed >= 50)
        await #expect(throws: EngineError.self) { try await alice.subscribe(to: "bob") }

        #expect(try Self.janusListsPublisher("alice", url: url))
        #expect(try await camera.stats().transportProtocol == .udp)
        #expect(events.all.contains(.connectionStateChanged(.connected)))
        await alice.leave()
        await engine.close()
        #expect(events.all.last == .connectionStateChanged(.disconnected))
    }

    /// SPEC §7 with Janus (issue 18): with every UDP datagram dropped in the namespace (nftables),
    /// the default `.udpOverTCP` gives ICE over UDP 2 s, then publishes over ICE-TCP (Janus with
    /// `ice_tcp` and `ice_lite`) and says so; Janus lists the camera's publisher once (the UDP
    /// attempt left the room).
    @Test func withUDPBlockedTheCameraReachesJanusOverICETCP() async throws {
        let (url, directory) = try Self.startJanus(["--ice-tcp"])
        defer { Self.stopJanus(directory) }
        let ((), dropped) = try await NamespaceFirewall.withUDPBlocked {
            let (engine, _, events, camera) = try await Self.alicePublishes(to: url)
            let switches = events.protocolSwitches
            print("Janus with UDP blocked: \(switches.map(\.description)), \(try await camera.stats().framesEncoded) frames encoded")
            #expect(switches.count == 1)
            #expect(switches.first.map { $0.connection == .publishing && $0.to == .tcp && (2_000..<4_000).contains($0.afterMilliseconds) } == true)
            #expect(try await camera.stats().transportProtocol == .tcp)
            #expect(try Self.janusListsPublisher("alice", url: url))
            await engine.close()
        }
        #expect(dropped > 0)  // the UDP checks really were dropped
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
