import DTLS
import Foundation
import FoundationNetworking
import Glibc
import MediaCodecs
import RTPWire
import SessionCore
import Simulcast
import SRTP
import Testing
@testable import EngineCore

/// Our engine publishes into an unmodified Janus 1.1.2 VideoRoom (Debian's package, the
/// harness's throw-away config) over its HTTP API: join as publisher, the JSEP offer with two
/// simulcast RIDs, Janus's answer, ICE + DTLS-SRTP, then VP8 simulcast and Opus; Janus must list
/// us as a publisher whose video is simulcast. Runs inside scripts/netns-run.sh's namespace
/// (Janus gathers ICE candidates on its veth only).
@Suite(.serialized) struct JanusVideoRoomTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Janus's HTTP API (https://janus.conf.meetecho.com/docs/rest.html), synchronously.
    struct Janus {
        let base: String

        func post(_ path: String, _ body: [String: Any]) throws -> [String: Any] {
            var request = URLRequest(url: URL(string: base + path)!)
            request.httpMethod = "POST"
            var body = body
            body["transaction"] = UUID().uuidString
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            return try Self.fetch(request)
        }

        /// The next event of a session (long poll, at most `seconds`).
        func event(session: Int, seconds: Int = 10) throws -> [String: Any] {
            var request = URLRequest(url: URL(string: "\(base)/\(session)?maxev=1")!)
            request.timeoutInterval = TimeInterval(seconds + 5)
            let reply = try Self.fetch(request)
            return reply
        }

        static func fetch(_ request: URLRequest) throws -> [String: Any] {
            let done = DispatchSemaphore(value: 0)
            let box = ReplyBox()
            URLSession.shared.dataTask(with: request) { data, _, error in
                box.set(data, error)
                done.signal()
            }.resume()
            guard done.wait(timeout: .now() + 40) == .success, let data = box.data,
                  let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw Problem(description: "Janus did not answer \(request.url?.absoluteString ?? ""): \(box.error.map { "\($0)" } ?? "no JSON")")
            }
            return object
        }
    }

    final class ReplyBox: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: (Data?, Error?) = (nil, nil)
        func set(_ data: Data?, _ error: Error?) { lock.withLock { stored = (data, error) } }
        var data: Data? { lock.withLock { stored.0 } }
        var error: Error? { lock.withLock { stored.1 } }
    }

    struct Problem: Error, CustomStringConvertible { var description: String }

    @Test func ourSimulcastPublisherJoinsAJanusVideoRoom() throws {
        try WebRTCInteropTests.requirePrivateNamespace()
        // The harness (VideoRoom mode) prints one JSON line and leaves Janus running.
        let harness = Process()
        harness.executableURL = Self.root.appendingPathComponent("scripts/janus-harness.sh")
        harness.arguments = ["start", "--videoroom"]
        let output = Pipe()
        harness.standardOutput = output
        try harness.run()
        let line = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard let info = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let url = info["http"] as? String, let directory = info["dir"] as? String else {
            throw Problem(description: "janus-harness start --videoroom failed: \(line)")
        }
        defer {
            // Stops Janus by the PID it recorded; reading to the end waits for the script (not
            // Process.waitUntilExit, which can miss a short-lived child's exit under the runner).
            let stop = Process()
            stop.executableURL = Self.root.appendingPathComponent("scripts/janus-harness.sh")
            stop.arguments = ["stop", directory]
            let done = Pipe()
            stop.standardOutput = done
            if (try? stop.run()) != nil { _ = done.fileHandleForReading.readDataToEndOfFile() }
        }
        let janus = Janus(base: url)
        let session = try #require((try janus.post("", ["janus": "create"])["data"] as? [String: Any])?["id"] as? Int)
        let handle = try #require((try janus.post("/\(session)", ["janus": "attach", "plugin": "janus.plugin.videoroom"])["data"]
            as? [String: Any])?["id"] as? Int)
        _ = try janus.post("/\(session)/\(handle)", ["janus": "message",
                                                     "body": ["request": "join", "ptype": "publisher", "room": 1234, "display": "engine"]])
        var joined: [String: Any]?
        for _ in 0..<5 where joined == nil {
            let event = try janus.event(session: session)
            if let data = (event["plugindata"] as? [String: Any])?["data"] as? [String: Any], data["videoroom"] as? String == "joined" {
                joined = data
            }
        }
        let publisherID = try #require(joined?["id"] as? Int)

        // Our side: certificate, ICE on veth-engine, the offer with two RIDs (f, q).
        let certificate = try DTLSCertificate()
        var random = SystemRandomNumberGenerator()
        let credentials = ICECredentials.random(using: &random)
        let socket = try UDPSocket(bindingTo: NetworkEndpoint(address: WebRTCInteropTests.localAddress, port: 0))
        try socket.setReceiveBufferSize(1 << 20)
        let agent = ICEAgent(configuration: .init(local: credentials, role: .controlling, tieBreaker: UInt64.random(in: 1...UInt64.max)),
                             seed: 7)
        let ice = ICEDatagramTransport(socket: socket, agent: agent)
        let camera = try LayerPlan(width: 640, height: 360)
        let offer = SimulcastOffer(
            sessionID: 2, ice: credentials, fingerprint: certificate.fingerprint,
            candidates: [ICECandidate(foundation: "1", priority: 2_130_706_431, address: "10.99.0.1",
                                      port: socket.localEndpoint.port, kind: .host)],
            audio: .init(ssrc: 0x0A0D_2000), video: .init(rids: NegotiatedPublishing.offeredRIDs(for: camera)), cname: "engine")
        _ = try janus.post("/\(session)/\(handle)", ["janus": "message", "body": ["request": "publish", "audio": true, "video": true],
                                                     "jsep": ["type": "offer", "sdp": offer.sessionDescription.text]])
        var answerSDP: String?
        var configured: [String: Any]?
        var trickled: [ICECandidate] = []
        for _ in 0..<8 where answerSDP == nil {
            let event = try janus.event(session: session)
            if let jsep = event["jsep"] as? [String: Any], let sdp = jsep["sdp"] as? String { answerSDP = sdp }
            if let data = (event["plugindata"] as? [String: Any])?["data"] as? [String: Any], data["configured"] != nil { configured = data }
            if let candidate = (event["candidate"] as? [String: Any])?["candidate"] as? String { trickled.append(try ICECandidate(parsing: candidate)) }
        }
        // Janus's own event for the publisher: its video stream is simulcast.
        let streams = (configured?["streams"] as? [[String: Any]]) ?? []
        #expect(streams.contains { $0["type"] as? String == "video" && ($0["simulcast"] as? Bool) == true })
        let answer = try SessionDescription(parsing: try #require(answerSDP))
        let negotiated = try NegotiatedSession(offer: offer, answer: answer)
        print("Janus answer: video rids \(negotiated.video?.rids ?? []), setup \(negotiated.remoteSetup.rawValue), "
              + "\(negotiated.remoteCandidates.count) candidates in the SDP, \(trickled.count) trickled; configured \(configured ?? [:])")
        agent.setRemoteCredentials(negotiated.remoteICE)
        for candidate in negotiated.remoteCandidates + trickled where candidate.transport == "udp" {
            guard let address = WebRTCInteropTests.ipv4(candidate.address) else { continue }
            agent.addRemoteCandidate(.ipv4(address, port: candidate.port), priority: candidate.priority)
        }
        let dtls = try DTLSAssociation(role: negotiated.remoteSetup == .active ? .server : .client, certificate: certificate,
                                       remoteFingerprint: negotiated.remoteFingerprint)
        let transport = WebRTCTransport(ice: ice, dtls: dtls)
        let clock = MediaClock.system
        let start = clock.monotonicMilliseconds()
        let state = try transport.connect(timeoutMilliseconds: 5_000)
        guard case let .connected(keys) = state, let remote = transport.remote else {
            Issue.record("ICE + DTLS did not connect to Janus: \(state)")
            return
        }
        print("Janus: ICE + DTLS-SRTP connected in \(clock.monotonicMilliseconds() - start) ms, \(keys.suite)")

        var seeded = SplitMix64(seed: 8)
        let configuration = try NegotiatedPublishing.configuration(
            camera: camera, session: negotiated, firstVideoSSRC: 0x0B1D_F000, audioSSRC: 0x0A0D_2000,
            keys: (keys.local, keys.remote), cname: "engine")
        let publisher = try Publisher(configuration: configuration, transport: try UDPTransport(socket: transport, destination: remote),
                                      using: &seeded)
        // A subscriber we did not write: aiortc through the VideoRoom API, asking for substream 0
        // at first, 1 three seconds later, then temporal layer 0 (the viewer measures each switch).
        let viewer = Process()
        viewer.executableURL = Self.root.appendingPathComponent(".venv-interop/bin/python")
        viewer.arguments = [Self.root.appendingPathComponent("Tests/Interop/janus_viewer.py").path, "--url", url,
                            "--videoroom", "1234", "--feed", String(publisherID), "--seconds", "7", "--setup-timeout", "10",
                            "--schedule", "0:0,3:1", "--temporal-schedule", "5:0", "--resolutions", "320x180,640x360", "--require-switches",
                            "--ice-address", "10.99.0.1"]
        let viewerOutput = Pipe()
        viewer.standardOutput = viewerOutput
        try viewer.run()
        defer { if viewer.isRunning { viewer.terminate() } }

        let source = try VideoSource(testSceneWidth: 640, height: 360)
        let signal = TestSignal()
        let sendStart = clock.monotonicMicroseconds()
        var videoSent = 0, audioSent = 0
        while clock.monotonicMicroseconds() - sendStart < 13_000_000 {
            let elapsed = clock.monotonicMicroseconds() - sendStart
            while Int64(audioSent) * 20_000 <= elapsed {
                try publisher.send(audio: signal.frame(audioSent))
                audioSent += 1
            }
            if Int64(videoSent) * 1_000_000 / 30 <= elapsed {
                if let frame = try source.nextFrame() { try publisher.send(video: frame) }
                videoSent += 1
            }
            while try publisher.pollIncoming(timeoutMilliseconds: 2) != nil {}
        }
        let list = try janus.post("/\(session)/\(handle)", ["janus": "message", "body": ["request": "listparticipants", "room": 1234]])
        let participants = (((list["plugindata"] as? [String: Any])?["data"] as? [String: Any])?["participants"] as? [[String: Any]]) ?? []
        print("Janus participants: \(participants); key frames requested \(publisher.keyFramesRequested)")
        let us = participants.first { $0["id"] as? Int == publisherID }
        #expect(us?["publisher"] as? Bool == true)
        let viewed = String(decoding: viewerOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        print("aiortc through the VideoRoom: \(viewed)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(viewed.utf8)) as? [String: Any])
        #expect(result["ok"] as? Bool == true)
        #expect((result["decode_errors"] as? Int) == 0)
        let frames = result["frames_by_resolution"] as? [String: Int] ?? [:]
        #expect((frames["320x180"] ?? 0) > 20 && (frames["640x360"] ?? 0) > 20)
        let fps = result["fps_by_temporal"] as? [String: Double] ?? [:]
        #expect((fps["0"] ?? 99) < 12 && (fps["default"] ?? 0) > 25)  // TL0 is a quarter of 30 fps
        #expect(negotiated.video?.rids.sorted() == ["f", "q"])
        try? publisher.sendGoodbye(reason: "done")
    }
}
