import CommandLineSupport
import Foundation
import MediaCodecs
import EngineCore
import RTPWire
import Simulcast
import SRTP
import SessionCore
import Synchronization

/// `simulcast send`: publishes the built-in scene (or a Y4M file) as simulcast VP8 and, with
/// `--audio-to`, Opus from a test tone (or a WAV file), SRTP-protected over UDP.
enum SendCommand {
    static let usage = """
    usage: simulcast send --to HOST:PORT[,P2,P3] [--ssrc N] [--pt 96] [--key BASE64 | --insecure]
                          [--frames N] [--input FILE.y4m] [--size WxH] [--max-layer 2|3]
                          [--audio-to HOST:PORT] [--audio-ssrc N] [--audio-pt 111] [--audio-input FILE.wav]
                          [--pcap FILE] [--fast] [--rtcp-interval MS] [--rtcp-mux] [--cname NAME]
                          [--seconds S] [--rtcp-to HOST:PORT --rtcp-plain] [--key-frames every|named]
                          [--remb limit|ignore]
      --to HOST:PORT         every layer to one port (told apart by SSRC and RID q/h/f)
      --to HOST:P1,P2,P3     one port per layer, lowest layer first (Janus streaming plugin style)
      --ssrc N               layer i uses SSRC N+i (default: random)
      --pt N                 VP8 payload type (default 96)
      --key BASE64           30-byte key||salt for AES_CM_128_HMAC_SHA1_80 (default: generated and printed)
      --insecure             send plain RTP/RTCP instead of SRTP (explicit opt-in)
      --frames N             video frames to send (default 150); audio runs for the same duration
      --seconds S            instead of --frames: send for S seconds of media (S x 30 frames)
      --size WxH             encoder config size (default 1280x720); layers follow SPEC §1, and with L
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
        var streams: [Publisher.StreamStatistics]
        var videoFrames: Int
        var audioFrames: Int
        var keyHex: String?
    }

    @discardableResult
    static func run(_ arguments: ArraySlice<String>, output: (String) -> Void = { print($0) }) throws -> Summary {
        let options = try CommandLineArguments(
            arguments,
            valueOptions: ["to", "ssrc", "pt", "key", "frames", "input", "size", "max-layer", "audio-to", "audio-ssrc",
                           "audio-pt", "audio-input", "pcap", "rtcp-interval", "cname", "seconds", "rtcp-to",
                           "key-frames", "remb"],
            flagOptions: ["insecure", "fast", "dtx", "rtcp-mux", "rtcp-plain"])
        var random = SystemRandomNumberGenerator()
        let videoDestinations = try options.string("to").map { try NetworkEndpoint.parseList($0) }
        let audioDestination = try options.string("audio-to").map { try NetworkEndpoint(parsing: $0) }
        guard videoDestinations != nil || audioDestination != nil else {
            throw CommandError("send needs --to HOST:PORT (video) and/or --audio-to HOST:PORT")
        }
        guard options.string("frames") == nil || options.string("seconds") == nil else {
            throw CommandError("give --frames or --seconds, not both")
        }
        let frameCount = options.string("seconds") != nil
            ? try options.int("seconds", default: 5, range: 1...300_000) * 30
            : try options.int("frames", default: 150, range: 1...10_000_000)
        let rtcpDestination = try options.string("rtcp-to").map { try NetworkEndpoint(parsing: $0) }
        let plainRTCP = options.flag("rtcp-plain")
        let keyFrameScope: KeyFrameRequestScope
        switch options.string("key-frames") ?? "every" {
        case "every": keyFrameScope = .everyLayer
        case "named": keyFrameScope = .namedLayer
        case let other: throw CommandError("--key-frames \(other): expected every or named")
        }
        let rembPolicy: REMBPolicy
        switch options.string("remb") ?? "limit" {
        case "limit": rembPolicy = .limitLayers()
        case "ignore": rembPolicy = .ignore
        case let other: throw CommandError("--remb \(other): expected limit or ignore")
        }
        let payloadType = try options.int("pt", default: 96, range: 0...127)
        let audioPayloadType = try options.int("audio-pt", default: 111, range: 0...127)
        let firstSSRC = try ssrc(options, "ssrc", &random)
        let audioSSRC = try ssrc(options, "audio-ssrc", &random)
        let intervalMilliseconds = try options.int("rtcp-interval", default: 1000, range: 0...3_600_000)
        let fast = options.flag("fast")

        // Security: SRTP unless --insecure; a key given or generated.
        let security: PublisherSecurity
        var keyHex: String?
        if options.flag("insecure") {
            guard options.string("key") == nil else { throw CommandError("--key and --insecure contradict each other") }
            security = .insecure
            output("WARNING: --insecure: sending plain RTP/RTCP")
            if plainRTCP { output("(--rtcp-plain is implied by --insecure)") }
        } else {
            var keyAndSalt: [UInt8]
            if let text = options.string("key") {
                guard let data = Data(base64Encoded: text) else {
                    throw CommandError("--key \(text) is not valid base64: expected the \(SRTPSuite.default.keyingMaterialLength)-byte "
                        + "key||salt of \(SRTPSuite.default) as \((SRTPSuite.default.keyingMaterialLength + 2) / 3 * 4) base64 "
                        + "characters (omit --key to have one generated)")
                }
                keyAndSalt = [UInt8](data)
            } else {
                keyAndSalt = (0..<SRTPSuite.default.keyingMaterialLength).map { _ in UInt8.random(in: 0...255, using: &random) }
                output("SRTP key (\(SRTPSuite.default), base64): \(Data(keyAndSalt).base64EncodedString())")
                output("a=crypto:1 \(SRTPSuite.default) inline:\(Data(keyAndSalt).base64EncodedString())")
            }
            keyHex = keyAndSalt.map { String(format: "%02x", $0) }.joined()
            // A key of the wrong length is the SRTPError itself, whose description says the length needed.
            defer { for index in keyAndSalt.indices { keyAndSalt[index] = 0 } }
            let material = try SRTPKeyingMaterial(keyAndSalt: keyAndSalt)
            if plainRTCP {
                security = .srtpPlainRTCP(local: material)
                output("WARNING: --rtcp-plain: RTP is SRTP, RTCP (reports and feedback) is plain")
            } else {
                security = .srtp(local: material)
                if rtcpDestination != nil {
                    output("note: --rtcp-to without --rtcp-plain sends SRTCP; a Janus mountpoint reads only plain RTCP")
                }
            }
        }

        // Tracks.
        var video: VideoTrackConfiguration?
        var source: VideoSource?
        if let videoDestinations {
            let size = try options.size("size", default: (1280, 720))
            let maxLayer = try options.int("max-layer", default: 3, range: 2...3)
            let plan = try LayerPlan(width: size.width, height: size.height, maxLayer: maxLayer == 2 ? .two : .three)
            if let note = sizeNotice(requestedWidth: size.width, height: size.height, plan: plan) {
                writeToStandardError(note + "\n")
            }
            guard videoDestinations.count == 1 || videoDestinations.count == plan.layers.count else {
                throw CommandError("--to lists \(videoDestinations.count) ports for \(plan.layers.count) layer(s): "
                    + "give one port or one per layer, lowest first")
            }
            video = VideoTrackConfiguration(plan: plan, firstSSRC: firstSSRC, payloadType: UInt8(payloadType))
            let top = plan.top
            source = try options.string("input").map { try VideoSource(y4mPath: $0, width: top.width, height: top.height) }
                ?? VideoSource(testSceneWidth: top.width, height: top.height)
        }
        var audio: AudioTrackConfiguration?
        var wav: WAVReader?
        if audioDestination != nil {
            var opus = OpusEncoder.Configuration(dtx: options.flag("dtx"))
            if let path = options.string("audio-input") {
                let reader = try WAVReader(path: path)
                opus.channels = reader.channels
                wav = reader
            }
            audio = AudioTrackConfiguration(ssrc: audioSSRC, payloadType: UInt8(audioPayloadType), opus: opus)
        }

        // Transport: one socket; per-layer and audio routes.
        let defaultDestination = videoDestinations?.first ?? audioDestination ?? .loopback(port: 9)
        let transport = try UDPTransport(destination: defaultDestination, rtcpMux: options.flag("rtcp-mux"),
                                         rtcpDestination: rtcpDestination)
        if let video, let videoDestinations, videoDestinations.count > 1 {
            for (ssrc, destination) in zip(video.ssrcs, videoDestinations) { try transport.route(ssrc: ssrc, to: destination) }
        }
        if let audio, let audioDestination { try transport.route(ssrc: audio.ssrc, to: audioDestination) }
        if let path = options.string("pcap") { try transport.recordPcap(to: path) }

        let configuration = PublisherConfiguration(
            video: video, audio: audio, security: security, cname: options.string("cname") ?? "simulcast-send",
            reportIntervalMicroseconds: Int64(intervalMilliseconds) * 1000,
            keyFrameRequestScope: keyFrameScope, rembPolicy: rembPolicy)
        let publisher = try Publisher(configuration: configuration, transport: transport, clock: .system, using: &random)

        // Interleave by media time: video every 1/30 s, audio every 20 ms, over the same duration.
        let audioFrameCount = audio == nil ? 0 : max(1, frameCount * 50 / 30)
        let videoFrameCount = video == nil ? 0 : frameCount
        let testSignal = TestSignal(frequencyHz: 440, amplitude: 0.3, talkFrames: 50, pauseFrames: 25,
                                    channels: audio?.opus.channels ?? .mono)
        let clock = MediaClock.system
        let start = clock.monotonicMicroseconds()
        let stop = StopSignals.install()
        defer { stop.restore() }
        // Feedback: handled between frames and while waiting for the next one; what it changed is
        // reported as it happens (milliseconds since the start).
        var stopped = false
        @discardableResult
        func pollFeedback(timeoutMilliseconds: Int32) throws -> Bool {
            guard let outcome = try publisher.pollIncoming(timeoutMilliseconds: timeoutMilliseconds) else { return false }
            let at = (clock.monotonicMicroseconds() - start) / 1000
            if outcome.layersPaused > 0 || outcome.layersResumed > 0 {
                output("t=\(at) ms REMB \(outcome.rembBitrate ?? 0) bps: \(publisher.rembActiveLayerCount) layer(s) active "
                    + "(paused \(outcome.layersPaused), resumed \(outcome.layersResumed))")
            }
            if outcome.keyFramesRequested > 0 {
                output("t=\(at) ms key-frame request honoured (\(publisher.keyFramesRequested) so far)")
            }
            return true
        }
        var videoSent = 0, audioSent = 0
        var videoDone = videoFrameCount == 0, audioDone = audioFrameCount == 0
        while !videoDone || !audioDone {
            if stop.requested {
                stopped = true
                break
            }
            let videoTime = Int64(videoSent) * 1_000_000 / 30
            let audioTime = Int64(audioSent) * 20_000
            let sendVideo = !videoDone && (audioDone || videoTime <= audioTime)
            if !fast {
                let due = start + (sendVideo ? videoTime : audioTime)
                let now = clock.monotonicMicroseconds()
                if due > now {
                    // Wait for the frame's time while answering feedback at once.
                    var now = now
                    while due > now {
                        try pollFeedback(timeoutMilliseconds: Int32(max(1, min((due - now) / 1000, 1000))))
                        now = clock.monotonicMicroseconds()
                    }
                }
            }
            if sendVideo {
                if let source, let frame = try source.nextFrame() {
                    try publisher.send(video: frame)
                    videoSent += 1
                    if fast { usleep(1000) }
                } else {
                    videoDone = true
                }
                if videoSent >= videoFrameCount { videoDone = true }
            } else {
                let frame: AudioFrame?
                if let wav { frame = wav.frame(audioSent) } else { frame = testSignal.frame(audioSent) }
                if let frame {
                    try publisher.send(audio: frame)
                    audioSent += 1
                    if fast { usleep(200) }
                } else {
                    audioDone = true
                }
                if audioSent >= audioFrameCount { audioDone = true }
            }
            var drained = 0
            while drained < 64, try pollFeedback(timeoutMilliseconds: 0) { drained += 1 }
        }
        if intervalMilliseconds > 0 { try publisher.sendGoodbye(reason: "simulcast send finished") }
        try transport.finishPcap()

        let elapsed = Double(clock.monotonicMicroseconds() - start) / 1e6
        output("Sent \(videoSent) video frame(s) and \(audioSent) audio frame(s) in \(String(format: "%.2f", elapsed)) s "
            + "(\(publisher.path.isSecure ? "SRTP \(SRTPSuite.default)" : "plain RTP")"
            + "\(publisher.path.isSecure && publisher.path.rtcpIsPlain ? ", plain RTCP" : ""), "
            + "\(publisher.reportsSent) RTCP report(s), \(publisher.keyFramesRequested) key-frame request(s) honoured, "
            + "\(publisher.keyFrameRequestsThrottled) throttled, \(publisher.rembsReceived) REMB(s)"
            + "\(publisher.lastREMBBitrate.map { ", last \($0) bps" } ?? ""), "
            + "\(publisher.layerPausesByREMB) layer pause(s) / \(publisher.layerResumesByREMB) resume(s) by REMB, "
            + "\(publisher.feedbackErrors) bad feedback datagram(s)\(stopped ? ", stopped by signal" : ""))")
        output("")
        output("| ssrc | stream | destination | packets | payload bytes | wire bytes | retransmissions |")
        output("|---:|---|---|---:|---:|---:|---:|")
        for stream in publisher.statistics {
            output("| \(stream.ssrc) | \(stream.name) | \(transport.destination(for: stream.ssrc)) | \(stream.packets) | "
                + "\(stream.payloadOctets) | \(stream.wireBytes) | \(stream.retransmissions) |")
        }
        if let path = options.string("pcap") { output("\npcap: \(path)") }
        return Summary(streams: publisher.statistics, videoFrames: videoSent, audioFrames: audioSent, keyHex: keyHex)
    }

    private static func ssrc(_ options: CommandLineArguments, _ name: String,
                             _ random: inout SystemRandomNumberGenerator) throws -> UInt32 {
        guard let text = options.string(name) else { return UInt32.random(in: 1...0xFFFF_0000, using: &random) }
        guard let value = UInt32(text) else {
            throw CommandError("--\(name) \(text): expected an integer in 0...\(UInt32.max)")
        }
        return value
    }
}
