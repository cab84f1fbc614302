import DTLS
import Foundation
import Glibc
import InteropTestSupport
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

    /// A throw-away Janus inside scripts/netns-run.sh's namespace (`options` for the harness).
    static func startJanus(_ options: [String] = []) throws -> JanusHarness {
        try PrivateNamespace.require(for: "JanusVideoRoomTests")
        return try JanusHarness.start(options)
    }

    /// aiortc subscribing to `feed` through the VideoRoom API with the viewer's `arguments`.
    static func startViewer(url: String, feed: Int, _ arguments: [String]) throws -> (Process, Pipe) {
        let viewer = Process()
        viewer.executableURL = root.appendingPathComponent(".venv-interop/bin/python")
        viewer.arguments = [root.appendingPathComponent("Tests/Interop/janus_viewer.py").path, "--url", url,
                            "--videoroom", "1234", "--feed", String(feed)] + arguments + ["--ice-address", PrivateNamespace.localAddress]
        let output = Pipe()
        viewer.standardOutput = output
        try viewer.run()
        return (viewer, output)
    }

    @Test func ourSimulcastPublisherJoinsAJanusVideoRoom() throws {
        let janus = try Self.startJanus()
        defer { janus.stop() }
        let url = janus.url.absoluteString
        // Our engine joins room 1234 and publishes a 640x360 camera (two RIDs) with Opus.
        let room = try JanusVideoRoomPublisher(options: .init(
            url: URL(string: url)!, room: 1234, camera: try LayerPlan(width: 640, height: 360),
            localAddress: WebRTCInteropTests.localAddress))
        defer { room.leave() }
        let publisher = room.publisher, publisherID = room.publisherID, negotiated = room.negotiated
        print("Janus: joined as \(publisherID), video rids \(negotiated.video?.rids ?? []), ICE + DTLS-SRTP connected in "
              + "\(room.connectMilliseconds) ms; configured \(room.configured)")
        #expect(room.connectMilliseconds < 1_000)
        // Janus's own event for the publisher: its video stream is simulcast.
        let streams = (room.configured["streams"] as? [[String: Any]]) ?? []
        #expect(streams.contains { $0["type"] as? String == "video" && ($0["simulcast"] as? Bool) == true })

        // A subscriber we did not write: aiortc through the VideoRoom API, asking for substream 0
        // at first, 1 three seconds later, then temporal layer 0 (the viewer measures each switch).
        let (viewer, viewerOutput) = try Self.startViewer(url: url, feed: publisherID, [
            "--seconds", "7", "--setup-timeout", "10", "--schedule", "0:0,3:1", "--temporal-schedule", "5:0",
            "--resolutions", "320x180,640x360", "--require-switches"])
        defer { if viewer.isRunning { viewer.terminate() } }

        let source = try VideoSource(testSceneWidth: 640, height: 360), signal = TestSignal()
        try RealTimeMediaPump().run(publisher, seconds: 13, video: source.nextFrame, audio: signal.frame)
        let participants = try room.participants(room: 1234)
        print("Janus participants: \(participants); key frames requested \(publisher.keyFramesRequested), throttled \(publisher.keyFrameRequestsThrottled); REMB: \(publisher.rembsReceived) "
              + "received, last \(publisher.lastREMBBitrate.map(String.init) ?? "none") bps, layers paused \(publisher.layerPausesByREMB) / "
              + "resumed \(publisher.layerResumesByREMB) by REMB; sending \(publisher.sendingLayers); streams "
              + publisher.statistics.map { "\($0.name) \($0.packets) packets, \($0.retransmissions) resent, \($0.retransmissionsRefused) refused" }
                  .joined(separator: ", "))
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
    }

    /// ICE-TCP (RFC 6544, issue 18): Janus configured with `ice_tcp = true` and `ice_lite = true`
    /// (the harness's --ice-tcp) offers passive TCP candidates; our publisher connects to one and
    /// runs ICE, DTLS-SRTP and the simulcast media over that one RFC 4571-framed connection, no
    /// UDP socket at all. aiortc, subscribing over UDP, must decode what Janus relays.
    @Test func ourPublisherReachesJanusOverICETCP() throws {
        let janus = try Self.startJanus(["--ice-tcp"])
        defer { janus.stop() }
        let url = janus.url.absoluteString
        let room = try JanusVideoRoomPublisher(options: .init(
            url: URL(string: url)!, room: 1234, camera: try LayerPlan(width: 640, height: 360),
            localAddress: WebRTCInteropTests.localAddress, iceTCP: true))
        defer { room.leave() }
        let connection = try #require(room.transport.ice.socket as? TCPFramedConnection)
        print("Janus over ICE-TCP: joined as \(room.publisherID), connected to \(connection.peer) from \(connection.localEndpoint) "
              + "(ICE + DTLS-SRTP in \(room.connectMilliseconds) ms)")
        #expect(room.connectMilliseconds < 1_000)
        #expect(room.transport.isReliableStream(to: connection.peer))
        let (viewer, viewerOutput) = try Self.startViewer(url: url, feed: room.publisherID, [
            "--seconds", "4", "--setup-timeout", "10", "--schedule", "0:0", "--resolutions", "320x180,640x360"])
        defer { if viewer.isRunning { viewer.terminate() } }
        let source = try VideoSource(testSceneWidth: 640, height: 360), signal = TestSignal()
        try RealTimeMediaPump().run(room.publisher, seconds: 8, video: source.nextFrame, audio: signal.frame)
        let viewed = String(decoding: viewerOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        print("ICE-TCP: \(connection.datagramsSent) datagrams sent and \(connection.datagramsReceived) received on the connection, "
              + "\(connection.droppedForBackPressure) dropped; aiortc through the VideoRoom: \(viewed)")
        #expect(connection.datagramsSent > 300 && connection.datagramsReceived > 0 && connection.droppedForBackPressure == 0)
        let result = try #require(try JSONSerialization.jsonObject(with: Data(viewed.utf8)) as? [String: Any])
        #expect(result["ok"] as? Bool == true)
        #expect((result["decode_errors"] as? Int) == 0)
        #expect(((result["frames_by_resolution"] as? [String: Int])?["320x180"] ?? 0) > 20)
    }
}
