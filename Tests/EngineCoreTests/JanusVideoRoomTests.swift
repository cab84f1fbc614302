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

    struct Problem: Error, CustomStringConvertible { var description: String }

    @Test func ourSimulcastPublisherJoinsAJanusVideoRoom() throws {
        try PrivateNamespace.require(for: "JanusVideoRoomTests")
        let janus = try JanusHarness.start()
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

        let source = try VideoSource(testSceneWidth: 640, height: 360), signal = TestSignal()
        try RealTimeMediaPump().run(publisher, seconds: 13, video: source.nextFrame, audio: signal.frame)
        let participants = try room.participants(room: 1234)
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
    }
}
