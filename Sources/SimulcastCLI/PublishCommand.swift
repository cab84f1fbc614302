import CommandLineSupport
import Foundation
import MediaEngine
import MediaEngineTesting
import Simulcast

/// `simulcast publish --janus URL`: joins a Janus VideoRoom through the public API
/// (`MediaEngine.joinJanusRoom`) as a WebRTC publisher (ICE, DTLS-SRTP, simulcast by RID) and
/// plays the built-in scene (or a Y4M file) into the camera and a test tone into the microphone.
enum PublishCommand {
    static let usage = """
    usage: simulcast publish --janus URL --bind IPV4 [--room N] [--size WxH] [--max-layer 2|3]
                             [--seconds S] [--input FILE.y4m] [--display NAME] [--no-audio] [--e2ee-key B64]
      --janus URL        Janus's HTTP API, e.g. http://127.0.0.1:8088/janus (VideoRoom plugin)
      --bind IPV4        the local address for ICE (one Janus can reach; Janus ignores loopback)
      --room N           the VideoRoom room (default 1234)
      --size WxH         camera encoder size (default 1280x720: three layers, RIDs f h q)
      --max-layer 2|3    2 drops the middle layer (default 3)
      --seconds S        how long to publish (default 20)
      --input FILE.y4m   play this clip (looped) instead of the built-in scene
      --display NAME     the publisher's display name (default "simulcast")
      --no-audio         publish the camera only
      --e2ee-key B64     encrypt every frame end to end (SFrame, RFC 9605, AES_128_GCM_SHA256_128, key id 0,
                         16 to 64 bytes as base64): Janus forwards what it cannot read
    Prints one JSON line once connected (publisher id, accepted RIDs, Janus's streams, ICE + DTLS
    time), then a summary. SIGTERM/SIGINT stop early.
    """

    static func run(_ arguments: ArraySlice<String>) async throws {
        let options = try CommandLineArguments(arguments, valueOptions: ["janus", "bind", "room", "size", "max-layer", "seconds",
                                                                         "input", "display", "e2ee-key"],
                                               flagOptions: ["no-audio"])
        guard let janus = options.string("janus"), let url = URL(string: janus), url.scheme?.hasPrefix("http") == true else {
            throw CommandError("--janus URL is required (http://HOST:PORT/janus)")
        }
        guard let bind = options.string("bind") else {
            throw CommandError("--bind IPV4 is required: the local address Janus reaches for ICE")
        }
        let room = try options.int("room", default: 1234, range: 1...Int(Int32.max))
        let size = try options.size("size", default: (1280, 720))
        let maxLayer: MaxLayer = try options.int("max-layer", default: 3, range: 2...3) == 2 ? .two : .three
        let seconds = try options.int("seconds", default: 20, range: 1...86_400)
        let e2ee = try E2EEKeyArgument.options(options.string("e2ee-key"))
        let config = CameraEncoderConfig(width: size.width, height: size.height)
        let top = try LayerPlan(width: size.width, height: size.height, maxLayer: maxLayer).top
        let frames = seconds * config.frameRate
        let scene: any VideoFrameSource = try options.string("input").map {
            try Y4MFileSource(path: $0, width: top.width, height: top.height, loops: true).prefix(frames)
        } ?? TestSceneSource(width: top.width, height: top.height, frames: frames)
        let sound: (any AudioFrameSource)? = options.flag("no-audio")
            ? nil : ToneSource(frequencyHz: 440, amplitude: 0.3, talkFrames: 50, pauseFrames: 25, frames: seconds * 50)

        let engine = MediaEngine()
        do {
            try await publish(url: url, room: room, bind: bind, display: options.string("display") ?? "simulcast", e2ee: e2ee,
                              camera: (config, maxLayer), scene: scene, sound: sound, engine: engine)
            await engine.close()
        } catch {
            await engine.close()
            throw error
        }
    }

    /// Joins, publishes the microphone (it rides in the camera's peer connection, so it goes
    /// first) and the camera, prints what Janus accepted, plays the sources until they end (or a
    /// signal), then the summary.
    private static func publish(url: URL, room: Int, bind: String, display: String, e2ee: E2EEOptions?,
                                camera: (config: CameraEncoderConfig, maxLayer: MaxLayer),
                                scene: sending any VideoFrameSource, sound: sending (any AudioFrameSource)?,
                                engine: MediaEngine) async throws {
        let participant = try await engine.joinJanusRoom(url: url, room: room, participantId: display, localAddress: bind, e2ee: e2ee)
        var microphone: LocalAudioTrack?
        if sound != nil {
            let track = participant.createMicrophoneAudioTrack()
            try await participant.publish(track)
            microphone = track
        }
        let cameraTrack = try participant.createCameraVideoTrack(encoderConfig: camera.config, maxLayer: camera.maxLayer)
        try await participant.publish(cameraTrack)

        let start = ContinuousClock.now
        var keyFrameRequests = 0
        let stopped = try await SourcePlayback.run(participant, playing: scene, into: cameraTrack, sound, into: microphone) { event in
            switch event {
            case let .publishedToSFU(publication):
                let streams = (try? JSONSerialization.jsonObject(with: Data(publication.streamsJSON.utf8))) ?? []
                let connected: [String: Any] = [
                    "publisher_id": Int(publication.feedId) ?? publication.feedId, "room": room, "rids": publication.rids,
                    "audio": publication.audio, "connect_ms": publication.connectMilliseconds, "janus_streams": streams,
                    "e2ee": e2ee != nil,
                ]
                // Unbuffered, so a script reading our output sees the line at once.
                FileHandle.standardOutput.write(try JSONSerialization.data(withJSONObject: connected, options: [.sortedKeys])
                    + Data("\n".utf8))
            case .keyFrameRequested:
                keyFrameRequests += 1
            default:
                break
            }
        }
        let elapsed = Double((ContinuousClock.now - start) / .microseconds(1)) / 1e6
        print("publish: \(cameraTrack.framesPlayed) video frames, \(microphone?.framesPlayed ?? 0) audio frames in "
            + "\(String(format: "%.2f", elapsed)) s; key frames requested \(keyFrameRequests)\(stopped ? "; stopped by signal" : "")")
    }
}
