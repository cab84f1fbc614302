import CommandLineSupport
import EngineCore
import Foundation
import MediaCodecs
import SessionCore
import Simulcast

/// `simulcast publish --janus URL`: joins a Janus VideoRoom as a WebRTC publisher (ICE,
/// DTLS-SRTP, simulcast by RID) and sends the built-in scene (or a Y4M file) and a test tone.
enum PublishCommand {
    static let usage = """
    usage: simulcast publish --janus URL --bind IPV4 [--room N] [--size WxH] [--max-layer 2|3]
                             [--seconds S] [--input FILE.y4m] [--display NAME] [--no-audio]
      --janus URL        Janus's HTTP API, e.g. http://127.0.0.1:8088/janus (VideoRoom plugin)
      --bind IPV4        the local address for ICE (one Janus can reach; Janus ignores loopback)
      --room N           the VideoRoom room (default 1234)
      --size WxH         camera encoder size (default 1280x720: three layers, RIDs f h q)
      --max-layer 2|3    2 drops the middle layer (default 3)
      --seconds S        how long to publish (default 20)
      --display NAME     the publisher's display name (default "simulcast")
    Prints one JSON line once connected (publisher id, accepted RIDs, Janus's streams, ICE + DTLS
    time), then a summary. SIGTERM/SIGINT stop early.
    """

    static func run(_ arguments: ArraySlice<String>) throws {
        let options = try CommandLineArguments(arguments, valueOptions: ["janus", "bind", "room", "size", "max-layer", "seconds",
                                                                         "input", "display"],
                                               flagOptions: ["no-audio"])
        guard let janus = options.string("janus"), let url = URL(string: janus), url.scheme?.hasPrefix("http") == true else {
            throw CommandError("--janus URL is required (http://HOST:PORT/janus)")
        }
        guard let bindText = options.string("bind"), let bind = try? NetworkEndpoint(parsing: bindText + ":9") else {
            throw CommandError("--bind IPV4 is required: the local address Janus reaches for ICE")
        }
        let room = try options.int("room", default: 1234, range: 1...Int(Int32.max))
        let size = try options.size("size", default: (1280, 720))
        let maxLayer = try options.int("max-layer", default: 3, range: 2...3)
        let seconds = try options.int("seconds", default: 20, range: 1...86_400)
        let camera = try LayerPlan(width: size.width, height: size.height, maxLayer: maxLayer == 2 ? .two : .three)
        let top = camera.top
        let source = try options.string("input").map { try VideoSource(y4mPath: $0, width: top.width, height: top.height) }
            ?? VideoSource(testSceneWidth: top.width, height: top.height)
        let audio = !options.flag("no-audio")

        let session = try JanusVideoRoomPublisher(options: .init(
            url: url, room: room, display: options.string("display") ?? "simulcast", camera: camera, audio: audio,
            localAddress: bind.address))
        defer { session.leave() }
        let streams = (session.configured["streams"] as? [[String: Any]]) ?? []
        let connected: [String: Any] = [
            "publisher_id": session.publisherID, "room": room, "rids": session.negotiated.video?.rids ?? [],
            "connect_ms": session.connectMilliseconds, "janus_streams": streams,
        ]
        // Unbuffered, so a script reading our output sees the line at once.
        FileHandle.standardOutput.write(try JSONSerialization.data(withJSONObject: connected, options: [.sortedKeys]) + Data("\n".utf8))

        let stop = StopSignals.install()
        defer { stop.restore() }
        let signalSource = TestSignal(frequencyHz: 440, amplitude: 0.3, talkFrames: 50, pauseFrames: 25)
        let clock = MediaClock.system
        var lastKeepAlive: Int64 = 0
        let start = clock.monotonicMicroseconds()
        let tone: ((Int) -> AudioFrame)? = audio ? { signalSource.frame($0) } : nil
        let sent = try RealTimeMediaPump(clock: clock).run(
            session.publisher, seconds: Double(seconds), video: { try source.nextFrame() }, audio: tone,
            shouldStop: { stop.requested },
            between: { (elapsed: Int64) throws -> Void in
                if elapsed - lastKeepAlive > 25_000_000 {  // Janus drops sessions silent for 60 s
                    try session.keepAlive()
                    lastKeepAlive = elapsed
                }
            })
        let (videoSent, audioSent, publisher) = (sent.videoFrames, sent.audioFrames, session.publisher)
        print("publish: \(videoSent) video frames, \(audioSent) audio frames in \(Double(clock.monotonicMicroseconds() - start) / 1e6) s; "
              + "key frames requested \(publisher.keyFramesRequested)")
    }
}
