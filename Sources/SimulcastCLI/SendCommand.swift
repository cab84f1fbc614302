import CommandLineSupport
import Foundation
import MediaEngine
import MediaEngineTesting
import Simulcast
import SRTP

/// `simulcast send`: publishes the built-in scene (or a Y4M file) as simulcast VP8 and, with
/// `--audio-to`, Opus from a test tone (or a WAV file), SRTP-protected over UDP. Argument
/// parsing and calls of the public API (`MediaEngine.sendPlainRTP`): the engine paces, answers
/// feedback and says goodbye.
enum SendCommand {
    static let usage = """
    usage: simulcast send --to HOST:PORT[,P2,P3] [--ssrc N] [--pt 96] [--key BASE64 | --insecure] [--srtp-suite NAME]
                          [--frames N] [--input FILE.y4m] [--size WxH] [--max-layer 2|3]
                          [--audio-to HOST:PORT] [--audio-ssrc N] [--audio-pt 111] [--audio-input FILE.wav]
                          [--pcap FILE] [--fast] [--rtcp-interval MS] [--rtcp-mux] [--cname NAME]
                          [--seconds S] [--rtcp-to HOST:PORT --rtcp-plain] [--key-frames every|named]
                          [--remb limit|ignore]
      --to HOST:PORT         every layer to one port (told apart by SSRC and RID q/h/f)
      --to HOST:P1,P2,P3     one port per layer, lowest layer first (Janus streaming plugin style)
      --ssrc N               layer i uses SSRC N+i (default: random)
      --pt N                 VP8 payload type (default 96)
      --key BASE64           key||salt of the SRTP suite (30 bytes for AES_CM_128_HMAC_SHA1_80, 28 for
                             AEAD_AES_128_GCM, 44 for AEAD_AES_256_GCM; default: generated and printed)
      --srtp-suite NAME      AES_CM_128_HMAC_SHA1_80 (default: every SRTP receiver runs it), _32,
                             AEAD_AES_128_GCM or AEAD_AES_256_GCM (RFC 7714; 128-bit GCM protected a packet
                             4.6 to 5.1 times faster than the default in `simulcast-bench srtp` runs,
                             which print the ratio; README, "SRTP suites")
      --e2ee-key BASE64      also encrypt every frame end to end (SFrame, RFC 9605, AES_128_GCM_SHA256_128,
                             KID 0) with this 16-64-byte key: only a receiver holding it can decode
      --sdes-offer FILE      answer the receiver's SDES offer: its a=crypto lines (an SDP or just the
                             lines); the suite we prefer among them (AEAD-GCM first), our key printed
                             as the answer (RFC 4568 §7.1.2)
      --insecure             send plain RTP/RTCP instead of SRTP (explicit opt-in)
      --frames N             video frames to send (default 150); audio runs for the same duration
      --seconds S            instead of --frames: send for S seconds of media (S x 30 frames)
      --size WxH             encoder config size (default 1280x720); layers follow docs/layer-plan.md, and with L
                             layers the top one is cropped to a multiple of 2^(L-1): 1281x721 is sent as
                             1280x720 (a note on stderr says so)
      --max-layer 2|3        2 drops the middle layer (default 3)
      --audio-to HOST:PORT   also send Opus (20 ms frames, FEC) to this destination
      --audio-ssrc N         audio SSRC (default: random); --audio-pt N (default 111)
      --audio-input FILE     48 kHz 16-bit WAV instead of the built-in test tone
      --dtx                  let Opus stop sending during silence
      --pcap FILE            also record every sent datagram in a classic pcap file
      --fast                 do not pace in real time (still yields ~1 ms per frame)
      --rtcp-interval MS     sender report + CNAME interval per SSRC (default 1000; 0 = none)
      --rtcp-mux             send RTCP to the RTP port (RFC 5761) instead of RTP port + 1
      --rtcp-to HOST:PORT    send every stream's RTCP (SR + SDES) to this one address from the socket
                             that also receives the feedback (PLI/FIR/NACK/REMB), e.g. a Janus
                             mountpoint's videortcpport
      --rtcp-plain           RTCP out and in is PLAIN while RTP stays SRTP (Janus decrypts only RTP);
                             must be given explicitly, never implied
      --key-frames every|named  a PLI/FIR naming any layer refreshes every layer, throttled per track
                             (default, what Janus needs), or only the named layer, throttled per SSRC
      --remb limit|ignore    REMB bounds the total video bitrate by pausing top layers (default) or not
    SIGTERM/SIGINT stop sending early; the BYE and the summary still go out.
    """

    /// What was sent, per SSRC.
    struct Summary {
        var streams: [PlainRTPStatistics.Stream]
        var videoFrames: Int
        var audioFrames: Int
        var keyHex: String?
    }

    @discardableResult
    static func run(_ arguments: ArraySlice<String>, output: (String) -> Void = { print($0) }) async throws -> Summary {
        let options = try CommandLineArguments(
            arguments,
            valueOptions: ["to", "ssrc", "pt", "key", "frames", "input", "size", "max-layer", "audio-to", "audio-ssrc",
                           "audio-pt", "audio-input", "pcap", "rtcp-interval", "cname", "seconds", "rtcp-to",
                           "key-frames", "remb", "srtp-suite", "sdes-offer", "e2ee-key"],
            flagOptions: ["insecure", "fast", "dtx", "rtcp-mux", "rtcp-plain"])
        var plain = PlainRTPOptions(videoDestination: options.string("to"), audioDestination: options.string("audio-to"),
                                    rtcpMux: options.flag("rtcp-mux"), rtcpDestination: options.string("rtcp-to"),
                                    cname: options.string("cname") ?? "simulcast-send", pcapPath: options.string("pcap"),
                                    pacing: options.flag("fast") ? .unpaced : .realTime, opusDTX: options.flag("dtx"))
        guard plain.videoDestination != nil || plain.audioDestination != nil else {
            throw CommandError("send needs --to HOST:PORT (video) and/or --audio-to HOST:PORT")
        }
        guard options.string("frames") == nil || options.string("seconds") == nil else {
            throw CommandError("give --frames or --seconds, not both")
        }
        let frameCount = options.string("seconds") != nil
            ? try options.int("seconds", default: 5, range: 1...300_000) * 30
            : try options.int("frames", default: 150, range: 1...10_000_000)
        let plainRTCP = options.flag("rtcp-plain")
        switch options.string("key-frames") ?? "every" {
        case "every": plain.keyFrameRequestScope = .everyLayer
        case "named": plain.keyFrameRequestScope = .namedLayer
        case let other: throw CommandError("--key-frames \(other): expected every or named")
        }
        switch options.string("remb") ?? "limit" {
        case "limit": plain.rembResponse = .limitLayers
        case "ignore": plain.rembResponse = .ignore
        case let other: throw CommandError("--remb \(other): expected limit or ignore")
        }
        plain.e2ee = try E2EEKeyArgument.options(options.string("e2ee-key"))
        plain.videoPayloadType = try options.int("pt", default: 96, range: 0...127)
        plain.audioPayloadType = try options.int("audio-pt", default: 111, range: 0...127)
        plain.firstVideoSSRC = try ssrc(options, "ssrc")
        plain.audioSSRC = try ssrc(options, "audio-ssrc")
        plain.reportIntervalMilliseconds = try options.int("rtcp-interval", default: 1000, range: 0...3_600_000)

        // Security: SRTP unless --insecure; a key given or generated (by the engine).
        if options.flag("insecure") {
            guard options.string("key") == nil else { throw CommandError("--key and --insecure contradict each other") }
            plain.security = .insecure
            output("WARNING: --insecure: sending plain RTP/RTCP")
            if plainRTCP { output("(--rtcp-plain is implied by --insecure)") }
            guard options.string("srtp-suite") == nil else { throw CommandError("--srtp-suite and --insecure contradict each other") }
        } else if let path = options.string("sdes-offer") {
            guard options.string("key") == nil, options.string("srtp-suite") == nil else {
                throw CommandError("--sdes-offer chooses the suite and the key: leave out --key and --srtp-suite")
            }
            guard !plainRTCP else { throw CommandError("--sdes-offer answers with SRTP and SRTCP: leave out --rtcp-plain") }
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw CommandError("--sdes-offer \(path): cannot read the file")
            }
            let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { $0.hasPrefix("a=crypto:") }
            guard !lines.isEmpty else { throw CommandError("--sdes-offer \(path): no a=crypto line in it") }
            plain.security = .srtpAnswering(offeredCryptoLines: lines)
        } else {
            if let name = options.string("srtp-suite") {
                guard let suite = SRTPSuite(rawValue: name) else {
                    throw CommandError("--srtp-suite \(name): expected one of \(SRTPSuite.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                plain.srtpSuite = suite
            }
            let suite = plain.srtpSuite
            var keyAndSalt: [UInt8]?
            if let text = options.string("key") {
                guard let data = Data(base64Encoded: text) else {
                    throw CommandError("--key \(text) is not valid base64: expected the \(suite.keyingMaterialLength)-byte "
                        + "key||salt of \(suite) as \((suite.keyingMaterialLength + 2) / 3 * 4) base64 "
                        + "characters (omit --key to have one generated)")
                }
                keyAndSalt = [UInt8](data)
            }
            plain.security = plainRTCP ? .srtpWithPlainRTCP(keyAndSalt: keyAndSalt) : .srtp(keyAndSalt: keyAndSalt)
        }

        // The camera's layers (a note when the size is cropped) and the sources played into the tracks.
        var camera: (config: CameraEncoderConfig, maxLayer: MaxLayer)?
        var scene: (any VideoFrameSource)?
        if plain.videoDestination != nil {
            let size = try options.size("size", default: (1280, 720))
            let maxLayer: MaxLayer = try options.int("max-layer", default: 3, range: 2...3) == 2 ? .two : .three
            let plan = try LayerPlan(width: size.width, height: size.height, maxLayer: maxLayer)
            if let note = sizeNotice(requestedWidth: size.width, height: size.height, plan: plan) {
                writeToStandardError(note + "\n")
            }
            let top = plan.top
            scene = try options.string("input").map {
                try Y4MFileSource(path: $0, width: top.width, height: top.height).prefix(frameCount)
            } ?? TestSceneSource(width: top.width, height: top.height, frames: frameCount)
            camera = (CameraEncoderConfig(width: size.width, height: size.height), maxLayer)
        }
        var sound: (any AudioFrameSource)?
        if plain.audioDestination != nil {
            // Audio runs for the video's duration: 50 frames of 20 ms per 30 video frames.
            let audioFrameCount = max(1, frameCount * 50 / 30)
            if let path = options.string("audio-input") {
                let wav = try WAVFileSource(path: path)
                plain.audioChannels = wav.channels
                sound = wav.prefix(audioFrameCount)
            } else {
                sound = ToneSource(frequencyHz: 440, amplitude: 0.3, talkFrames: 50, pauseFrames: 25, frames: audioFrameCount)
            }
        }

        // The engine writes the pcap; a path it could not write is refused here, before it starts.
        if let path = plain.pcapPath { try OutputFiles.openForWriting(path).close() }
        let engine = MediaEngine()
        do {
            let summary = try await send(plain, camera: camera, scene: scene, sound: sound, engine: engine, output: output)
            await engine.close()
            return summary
        } catch {
            await engine.close()
            throw error
        }
    }

    /// Opens the output, publishes, plays the sources until they end (or SIGTERM/SIGINT), prints
    /// what the events report as it happens, then the summary and the per-SSRC table.
    private static func send(_ plain: PlainRTPOptions, camera: (config: CameraEncoderConfig, maxLayer: MaxLayer)?,
                             scene: sending (any VideoFrameSource)?, sound: sending (any AudioFrameSource)?, engine: MediaEngine,
                             output: (String) -> Void) async throws -> Summary {
        let sender = try await refusal { () async throws(EngineError) in try await engine.sendPlainRTP(plain, participantId: "simulcast-send") }
        let participant = sender.participant
        switch (plain.security, sender.srtpKeyAndSalt) {
        case let (.srtp(nil), key?), let (.srtpWithPlainRTCP(nil), key?):
            // Generated: the receiver needs it.
            output("SRTP key (\(plain.srtpSuite), base64): \(Data(key).base64EncodedString())")
            if let line = sender.sdesCryptoAttribute { output(line) }
        case (.srtpAnswering, _):
            // The answer to the receiver's offer: its suite, tag and our key.
            if let line = sender.sdesCryptoAttribute { output("SDES answer: \(line)") }
        default:
            break
        }
        if case .srtpWithPlainRTCP = plain.security {
            output("WARNING: --rtcp-plain: RTP is SRTP, RTCP (reports and feedback) is plain")
        } else if case .srtp = plain.security, plain.rtcpDestination != nil {
            output("note: --rtcp-to without --rtcp-plain sends SRTCP; a Janus mountpoint reads only plain RTCP")
        }

        // Tracks: the camera first (its publisher carries the microphone too).
        var cameraTrack: LocalVideoTrack?
        if let camera {
            let track = try await refusal { () async throws(EngineError) -> LocalVideoTrack in
                let track = try participant.createCameraVideoTrack(encoderConfig: camera.config, maxLayer: camera.maxLayer)
                try await participant.publish(track)
                return track
            }
            cameraTrack = track
        }
        var microphone: LocalAudioTrack?
        if plain.audioDestination != nil {
            let track = participant.createMicrophoneAudioTrack()
            try await refusal { () async throws(EngineError) in try await participant.publish(track) }
            microphone = track
        }

        // What feedback changed, as it happens (milliseconds since the start); ends at the goodbye.
        let start = ContinuousClock.now
        var keyFramesHonoured = 0
        let stopped = try await SourcePlayback.run(participant, playing: scene, into: cameraTrack, sound, into: microphone) { event in
            let at = (ContinuousClock.now - start) / .milliseconds(1)
            switch event {
            case let .publishedLayersChanged(change):
                output("t=\(Int(at)) ms REMB \(change.rembBitsPerSecond ?? 0) bps: \(change.wanted.count) layer(s) active "
                    + "(paused \(change.paused.count), resumed \(change.resumed.count))")
            case .keyFrameRequested:
                keyFramesHonoured += 1
                output("t=\(Int(at)) ms key-frame request honoured (\(keyFramesHonoured) so far)")
            default:
                break
            }
        }
        let statistics = try await sender.statistics()

        let elapsed = Double((ContinuousClock.now - start) / .microseconds(1)) / 1e6
        let security: String
        switch plain.security {
        case .srtp: security = "SRTP \(plain.srtpSuite)"
        case .srtpWithPlainRTCP: security = "SRTP \(plain.srtpSuite), plain RTCP"
        case .srtpAnswering: security = "SRTP answering an SDES offer"
        case .insecure: security = "plain RTP"
        }
        output("Sent \(statistics.videoFramesSent) video frame(s) and \(statistics.audioFramesSent) audio frame(s) in "
            + "\(String(format: "%.2f", elapsed)) s (\(security), "
            + "\(statistics.reportsSent) RTCP report(s), \(statistics.keyFramesRequested) key-frame request(s) honoured, "
            + "\(statistics.keyFrameRequestsThrottled) throttled, \(statistics.rembsReceived) REMB(s)"
            + "\(statistics.lastREMBBitsPerSecond.map { ", last \($0) bps" } ?? ""), "
            + "\(statistics.layerPausesByREMB) layer pause(s) / \(statistics.layerResumesByREMB) resume(s) by REMB, "
            + "\(statistics.badFeedbackDatagrams) bad feedback datagram(s)\(stopped ? ", stopped by signal" : ""))")
        output("")
        output("| ssrc | stream | destination | packets | payload bytes | wire bytes | retransmissions |")
        output("|---:|---|---|---:|---:|---:|---:|")
        for stream in statistics.streams {
            output("| \(stream.ssrc) | \(stream.name) | \(stream.destination) | \(stream.packets) | "
                + "\(stream.payloadBytes) | \(stream.wireBytes) | \(stream.retransmissions) |")
        }
        if let path = plain.pcapPath { output("\npcap: \(path)") }
        return Summary(streams: statistics.streams, videoFrames: statistics.videoFramesSent,
                       audioFrames: statistics.audioFramesSent,
                       keyHex: sender.srtpKeyAndSalt.map { $0.map { String(format: "%02x", $0) }.joined() })
    }

    /// Runs `body`; a value the engine refuses (`.invalidConfiguration`) becomes the sentence the
    /// user reads after `simulcast send:` (e.g. "port 70000 is out of range: use 1 to 65535").
    private static func refusal<T>(_ body: () async throws(EngineError) -> T) async throws -> T {
        do {
            return try await body()
        } catch let .invalidConfiguration(why) {
            throw CommandError(why)
        }
    }

    /// `--ssrc N` / `--audio-ssrc N`; nil when not given (the engine picks one at random).
    private static func ssrc(_ options: CommandLineArguments, _ name: String) throws -> UInt32? {
        guard let text = options.string(name) else { return nil }
        guard let value = UInt32(text) else {
            throw CommandError("--\(name) \(text): expected an integer in 0...\(UInt32.max)")
        }
        return value
    }
}
