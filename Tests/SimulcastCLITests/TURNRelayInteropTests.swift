import Foundation
import Glibc
import InteropTestSupport
import MediaEngine
import Testing

/// Media through a TURN relay into real Janus (issue 29). The publishing clients are `simulcast
/// call` processes on the home host, behind the NAT of `HomeNetwork`, gathering on their own (no
/// address); coturn runs on the peer host beside Janus; bob, a subscriber of ours, receives on the
/// client host. With the router letting only TURN through, ICE selects the relayed candidate, the
/// camera's media reaches Janus through coturn (the router counts the bytes) and bob decodes all
/// three layers with no decoder error; with UDP blocked entirely, the same over TURN over TCP.
/// Without the firewall the same client's camera runs on its
/// server-reflexive candidate, with the `relay` policy on the relayed one, and a client on the client
/// host on its host candidate; each prints how long publishing took.
@Suite(.serialized) struct TURNRelayInteropTests {
    static let turnPort: UInt16 = 34_795
    static let stun = "stun:10.99.0.2:34795", turn = "turn:10.99.0.2:34795?transport=udp"
    static let turnOverTCP = "turn:10.99.0.2:34795?transport=tcp"
    typealias App = CallCommandInteropTests.App

    /// Starts `name` as a `simulcast call` publishing a 960x540 camera (three layers) and receiving nothing.
    static func call(_ name: String, executable: String, janus: URL, directory: String, home: HomeNetwork?, seconds: Int,
                     iceServers: [String], policy: String = "all") throws -> App {
        try App(name, executable: executable, janus: janus, directory: directory, home: home,
                ["--size", "960x540", "--seconds", String(seconds), "--auto-consume", "false",
                 "--ice-credentials", "\(Coturn.username):\(Coturn.password)", "--ice-transport-policy", policy]
                    + (iceServers.isEmpty ? [] : ["--ice-server", iceServers.joined(separator: ",")]))
    }

    /// The selected pair a call's summary reports, how long it took to publish, and of that how
    /// long ICE + DTLS took (its `.publishedToSFU` event's "connected in N ms").
    static func pairAndPublishTime(_ app: App, within seconds: Double) throws -> (pair: String, milliseconds: Int, connect: String) {
        let summary = try app.summary(within: seconds)
        let published = CallCommandInteropTests.events(summary).first { $0.hasPrefix("published to the SFU") } ?? ""
        let connect = published.range(of: "connected in ").map { String(published[$0.upperBound...]) } ?? "?"
        return (summary["selectedCandidatePair"] as? String ?? "none", summary["publishMs"] as? Int ?? -1, connect)
    }

    /// bob subscribes to `name`'s camera once the room model lists it, asks for each of its three
    /// layers, top first, and decodes each (while `app` runs); then 2 s more of the top one.
    static func decodesEveryLayer(of name: String, by bob: LocalParticipant, while app: App) async throws -> RemoteVideoStats {
        var track: RemoteVideoTrack?
        for _ in 0..<100 where track == nil && app.process.isRunning {
            track = try? await bob.subscribe(to: name)
            if track == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let camera = try #require(track, "\(name)'s camera never became subscribable")
        let sizes = ReceivedSizes(camera)
        for (quality, size) in [(VideoQuality.high, VideoSize(width: 960, height: 540)), (.medium, VideoSize(width: 480, height: 270)),
                                (.low, VideoSize(width: 240, height: 135))] {
            try await camera.setQuality(quality)
            var reached = false
            for _ in 0..<80 where !reached {
                try await Task.sleep(for: .milliseconds(100))
                reached = sizes.last == size
            }
            print("bob asked \(name) for \(quality): \(sizes.last.map { "\($0.width)x\($0.height)" } ?? "nothing") after \(sizes.count) frames")
            #expect(reached)
            try await Task.sleep(for: .milliseconds(500))
        }
        try await camera.setQuality(.high)
        try await Task.sleep(for: .seconds(2))
        let stats = try await camera.stats()
        // Several frames of each layer (the apps encode 960x540 in a debug build: under load, a few fps).
        #expect(stats.decoderErrors == 0 && stats.framesDecoded >= 15)
        return stats
    }

    @Test func onlyTURNGetsThroughAndTheCameraReachesJanusThroughTheRelay() async throws {
        try PrivateNamespace.require(for: "TURNRelayInteropTests")
        let executable = try SimulcastExecutable().path
        let coturn = try Coturn(port: Self.turnPort)
        defer { coturn.stop() }
        let janus = try JanusHarness.start()
        defer { janus.stop() }
        let home = try HomeNetwork()
        defer { home.tearDown() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("turn-relay-\(getpid())").path
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        let bobEngine = MediaEngine()
        let bob = try await bobEngine.joinJanusRoom(url: janus.url, room: 1234, participantId: "bob", localAddress: PrivateNamespace.localAddress)
        let firewall = try HomeRouterFirewall(turnPort: Self.turnPort)
        defer { firewall.remove() }  // removing it twice does no harm
        let alice = try Self.call("alice", executable: executable, janus: janus.url, directory: directory, home: home, seconds: 20,
                                  iceServers: [Self.stun, Self.turn])
        defer { if alice.process.isRunning { kill(alice.process.processIdentifier, SIGKILL) } }

        let aliceSeen = try await Self.decodesEveryLayer(of: "alice", by: bob, while: alice)
        let counters = try firewall.counters()
        print("bob: \(aliceSeen.framesDecoded) frames decoded (\(aliceSeen.bytesReceived) bytes), \(aliceSeen.decoderErrors) decoder errors; "
            + "router: \(counters)")
        // Everything bob received (one layer of three) went from alice through coturn: nothing else passed.
        #expect(counters.turnBytes > aliceSeen.bytesReceived && aliceSeen.bytesReceived > 20_000)
        #expect(counters.droppedPackets > 0)  // direct checks were tried and dropped
        kill(alice.process.processIdentifier, SIGINT)
        let relayed = try Self.pairAndPublishTime(alice, within: 5)
        print("alice behind a firewall letting only TURN through: published \(relayed.milliseconds) ms after joining (ICE + DTLS \(relayed.connect)), on \(relayed.pair)")
        #expect(relayed.pair.hasPrefix("relay \(PrivateNamespace.peerAddress):") && relayed.pair.contains("-> host \(PrivateNamespace.peerAddress):"))
        firewall.remove()

        // UDP blocked entirely: frank reaches coturn over TCP (RFC 8656 §3.1) and his camera goes
        // through that relay; bob decodes every layer again.
        let udpBlocked = try HomeRouterFirewall(turnPort: Self.turnPort, blockingAllUDP: true)
        defer { udpBlocked.remove() }
        let frank = try Self.call("frank", executable: executable, janus: janus.url, directory: directory, home: home, seconds: 20,
                                  iceServers: [Self.stun, Self.turnOverTCP])
        defer { if frank.process.isRunning { kill(frank.process.processIdentifier, SIGKILL) } }
        let frankSeen = try await Self.decodesEveryLayer(of: "frank", by: bob, while: frank)
        let blocked = try udpBlocked.counters()
        print("bob: \(frankSeen.framesDecoded) of frank's frames decoded, \(frankSeen.decoderErrors) decoder errors; router: \(blocked)")
        #expect(blocked.droppedPackets > 0)  // UDP was tried (host, STUN) and dropped
        kill(frank.process.processIdentifier, SIGINT)
        let overTCP = try Self.pairAndPublishTime(frank, within: 5)
        print("frank with UDP blocked, TURN over TCP: published \(overTCP.milliseconds) ms after joining (ICE + DTLS \(overTCP.connect)), on \(overTCP.pair)")
        #expect(overTCP.pair.hasPrefix("relay \(PrivateNamespace.peerAddress):"))
        udpBlocked.remove()
        await bob.leave()
        await bobEngine.close()

        // No firewall: the router's address, as STUN reported it (srflx) or, when Janus's check to it
        // reached the router first and took that port in its connection tracking, under another
        // port the masquerade picked (prflx: learnt from the check's XOR-MAPPED-ADDRESS, RFC 8445
        // §7.2.5.3.1); the relay policy: the relayed one though the direct path is open; on the client
        // host: the host candidate.
        let runs: [(name: String, home: HomeNetwork?, servers: [String], policy: String, expected: [String])] = [
            ("dave", home, [Self.stun], "all", ["srflx \(PrivateNamespace.localAddress):", "prflx \(PrivateNamespace.localAddress):"]),
            ("carol", home, [Self.stun, Self.turn], "relay", ["relay \(PrivateNamespace.peerAddress):"]),
            ("erin", nil, [], "all", ["host \(PrivateNamespace.localAddress):"]),
        ]
        for run in runs {
            let app = try Self.call(run.name, executable: executable, janus: janus.url, directory: directory, home: run.home, seconds: 2,
                                    iceServers: run.servers, policy: run.policy)
            let outcome = try Self.pairAndPublishTime(app, within: 15)
            print("\(run.name) (\(run.servers.isEmpty ? "no ICE servers" : run.servers.joined(separator: ",")), policy \(run.policy)): "
                + "published \(outcome.milliseconds) ms after joining (ICE + DTLS \(outcome.connect)), on \(outcome.pair)")
            let expected = run.expected.contains { outcome.pair.hasPrefix($0) }
            #expect(expected)
            if !expected { print((try? String(contentsOfFile: "\(directory)/\(run.name).log", encoding: .utf8)) ?? "") }
        }
    }
}

/// The sizes of the frames a remote track delivered, collected in the background.
final class ReceivedSizes: @unchecked Sendable {
    private var sizes: [VideoSize] = []
    private let lock = NSLock()

    init(_ track: RemoteVideoTrack) {
        Task { [self] in
            for await frame in track.frames { lock.withLock { sizes.append(VideoSize(width: frame.width, height: frame.height)) } }
        }
    }

    var last: VideoSize? { lock.withLock { sizes.last } }
    var count: Int { lock.withLock { sizes.count } }
}
