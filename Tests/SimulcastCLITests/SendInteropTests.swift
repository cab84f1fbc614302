import Foundation
import Testing
import EngineCore
import RTPWire
import MediaEngine
import SRTP
import SFrame
@testable import SimulcastCLI

/// `simulcast send` against GStreamer, a receiver nobody here wrote: every frame sent must come
/// out of `srtpdec ! rtpvp8depay ! vp8dec` (or the Opus / plain-RTP pipelines) on loopback.
@Suite(.serialized) struct SendInteropTests {
    static let frames = 30

    /// Every suite GStreamer's srtpdec runs, AEAD-GCM (RFC 7714) included.
    @Test(arguments: [SRTPSuite.aesCm128HmacSha1_80, .aeadAes128Gcm, .aeadAes256Gcm])
    func srtpSimulcastDecodesEveryFrameOnEveryLayerPort(suite: SRTPSuite) async throws {
        let key = fixedKeyAndSalt(for: suite)
        let keyHex = key.map { String(format: "%02x", $0) }.joined()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let sizes = [(320, 180), (640, 360), (1280, 720)]
        let ports = try sizes.map { _ in try freePortPair() }
        let ssrc: UInt32 = 40_000
        var pipelines: [GStreamer.Pipeline] = []
        for (index, port) in ports.enumerated() {
            pipelines.append(try GStreamer.Pipeline([
                "udpsrc", "port=\(port)", "buffer-size=8388608",
                GStreamer.srtpCaps(media: "video", clockRate: 90000, encoding: "VP8", payload: 96,
                                   ssrc: ssrc + UInt32(index), keyHex: keyHex, suite: suite),
                "!", "srtpdec", "!", "rtpvp8depay", "!", "vp8dec", "!", "video/x-raw,format=I420",
                "!", "filesink", "location=\(directory.appendingPathComponent("layer\(index).yuv").path)",
            ], log: directory.appendingPathComponent("gst\(index).log")))
        }
        for pipeline in pipelines { try pipeline.waitUntilPlaying() }
        let summary = try await SendCommand.run(["--to", "127.0.0.1:" + ports.map(String.init).joined(separator: ","),
                                           "--ssrc", "\(ssrc)", "--key", Data(key).base64EncodedString(), "--srtp-suite", suite.rawValue,
                                           "--frames", "\(Self.frames)",
                                           "--fast", "--rtcp-interval", "200"], output: { _ in })
        usleep(500_000)
        for pipeline in pipelines { try pipeline.stop() }
        #expect(summary.videoFrames == Self.frames)
        #expect(summary.streams.map(\.name) == ["q", "h", "f"])
        for (index, (width, height)) in sizes.enumerated() {
            let bytes = fileSize(directory.appendingPathComponent("layer\(index).yuv"))
            let decoded = Double(bytes) / Double(width * height * 3 / 2)
            #expect(decoded == Double(Self.frames), "layer \(index) \(width)x\(height): \(decoded) frames; gst log:\n\(pipelines[index].logText)")
        }
    }

    @Test func srtpOpusDecodesEveryPacketAlongsideVideo() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let audioPort = try freePortPair(), videoPort = try freePortPair()
        let output = directory.appendingPathComponent("audio.raw")
        let video = directory.appendingPathComponent("video.yuv")
        let pipelines = [
            try GStreamer.Pipeline([
                "udpsrc", "port=\(audioPort)",
                GStreamer.srtpCaps(media: "audio", clockRate: 48000, encoding: "OPUS", payload: 111, ssrc: 4242,
                                   keyHex: interopKeyHex),
                "!", "srtpdec", "!", "rtpopusdepay", "!", "opusdec", "!", "audio/x-raw,format=S16LE,channels=(int)1",
                "!", "filesink", "location=\(output.path)",
            ], log: directory.appendingPathComponent("gst-audio.log")),
            try GStreamer.Pipeline([
                "udpsrc", "port=\(videoPort)", "buffer-size=8388608",
                GStreamer.srtpCaps(media: "video", clockRate: 90000, encoding: "VP8", payload: 96, ssrc: 5000,
                                   keyHex: interopKeyHex),
                "!", "srtpdec", "!", "rtpvp8depay", "!", "vp8dec", "!", "video/x-raw,format=I420",
                "!", "filesink", "location=\(video.path)",
            ], log: directory.appendingPathComponent("gst-video.log")),
        ]
        for pipeline in pipelines { try pipeline.waitUntilPlaying() }
        let summary = try await SendCommand.run(["--audio-to", "127.0.0.1:\(audioPort)", "--audio-ssrc", "4242",
                                           "--to", "127.0.0.1:\(videoPort)", "--ssrc", "5000", "--size", "320x180",
                                           "--key", interopKeyBase64, "--frames", "\(Self.frames)", "--fast"], output: { _ in })
        usleep(500_000)
        for pipeline in pipelines { try pipeline.stop() }
        let samples = fileSize(output) / 2
        #expect(summary.audioFrames == 50 && summary.videoFrames == Self.frames)
        #expect(samples == summary.audioFrames * 960, "decoded \(samples) samples; gst log:\n\(pipelines[0].logText)")
        #expect(fileSize(video) == Self.frames * 320 * 180 * 3 / 2, "gst log:\n\(pipelines[1].logText)")
    }

    @Test func insecurePlainRTPDecodesWithRtpvp8depay() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let sizes = [(320, 180), (640, 360)]
        let ports = try sizes.map { _ in try freePortPair() }
        var pipelines: [GStreamer.Pipeline] = []
        for (index, port) in ports.enumerated() {
            pipelines.append(try GStreamer.Pipeline([
                "udpsrc", "port=\(port)", "buffer-size=8388608",
                "caps=application/x-rtp,media=(string)video,clock-rate=(int)90000,encoding-name=(string)VP8,payload=(int)96",
                "!", "rtpvp8depay", "!", "vp8dec", "!", "video/x-raw,format=I420",
                "!", "filesink", "location=\(directory.appendingPathComponent("layer\(index).yuv").path)",
            ], log: directory.appendingPathComponent("gst\(index).log")))
        }
        for pipeline in pipelines { try pipeline.waitUntilPlaying() }
        let summary = try await SendCommand.run(["--to", "127.0.0.1:" + ports.map(String.init).joined(separator: ","),
                                           "--size", "640x360", "--insecure", "--frames", "\(Self.frames)", "--fast"],
                                          output: { _ in })
        usleep(500_000)
        for pipeline in pipelines { try pipeline.stop() }
        #expect(summary.keyHex == nil)
        for (index, (width, height)) in sizes.enumerated() {
            let decoded = Double(fileSize(directory.appendingPathComponent("layer\(index).yuv"))) / Double(width * height * 3 / 2)
            #expect(decoded == Double(Self.frames), "layer \(index): \(decoded) frames; gst log:\n\(pipelines[index].logText)")
        }
    }
}

@Suite struct SendCommandTests {
    @Test func pcapTapRecordsEverySentDatagram() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let sink = try UDPSocket()
        let pcap = directory.appendingPathComponent("send.pcap").path
        let summary = try await SendCommand.run(["--to", "\(sink.localEndpoint)", "--rtcp-mux", "--size", "320x180", "--frames", "5",
                                           "--fast", "--pcap", pcap, "--ssrc", "10"], output: { _ in })
        var reader = try PcapReader([UInt8](Data(contentsOf: URL(fileURLWithPath: pcap))))
        let records = try reader.readAll()
        let rtp = summary.streams.reduce(0) { $0 + Int($1.packets) }
        #expect(records.count == rtp + 2)  // SR + SDES after the first frame, SR + SDES + BYE at the end
        #expect(summary.streams.map(\.ssrc) == [10])
    }

    @Test func pacesInRealTimeByDefault() async throws {
        let sink = try UDPSocket()
        let start = Date()
        let summary = try await SendCommand.run(["--to", "\(sink.localEndpoint)", "--size", "320x180", "--frames", "7",
                                           "--audio-to", "\(sink.localEndpoint)"], output: { _ in })
        let elapsed = Date().timeIntervalSince(start)
        // Frame 6 is due at 200 ms and audio frame 10 at 200 ms: real time, not as fast as possible.
        #expect(elapsed >= 0.19, "took \(elapsed) s")
        #expect(summary.videoFrames == 7 && summary.audioFrames == 11)
    }

    @Test func generatedKeyIsPrintedAsBase64AndCryptoLine() async throws {
        let sink = try UDPSocket()
        var lines: [String] = []
        let summary = try await SendCommand.run(["--audio-to", "\(sink.localEndpoint)", "--frames", "3", "--fast"],
                                          output: { lines.append($0) })
        let cryptoLine = try #require(lines.first { $0.hasPrefix("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:") })
        #expect(summary.keyHex?.count == 60)
        _ = cryptoLine
    }

    /// `--sdes-offer`: the receiver offers AES-CM and AEAD-GCM; the answer takes GCM under the
    /// offer's tag with a key of ours, and every packet sent opens with that key in libsrtp.
    @Test func anSDESOfferIsAnsweredWithGCMAndTheAnswerKeyOpensWhatIsSent() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let offer = directory.appendingPathComponent("offer.sdp")
        let gcmKey = Data(fixedKeyAndSalt(for: .aeadAes128Gcm)).base64EncodedString()
        try ("v=0\r\nm=video 5004 RTP/SAVP 96\r\na=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(interopKeyBase64)\r\n"
             + "a=crypto:2 AEAD_AES_128_GCM inline:\(gcmKey)\r\n").write(to: offer, atomically: true, encoding: .utf8)
        let sink = try UDPSocket()
        try sink.setReceiveBufferSize(1 << 20)
        var lines: [String] = []
        let summary = try await SendCommand.run(["--to", "\(sink.localEndpoint)", "--size", "320x180", "--frames", "5", "--fast",
                                                 "--rtcp-mux", "--sdes-offer", offer.path], output: { lines.append($0) })
        let answer = try #require(lines.first { $0.hasPrefix("SDES answer: ") }?.dropFirst("SDES answer: ".count))
        #expect(answer.hasPrefix("a=crypto:2 AEAD_AES_128_GCM inline:"))
        let keys = try SDESCryptoAttribute(parsing: String(answer)).keyingMaterial
        let session = try SRTPSession(direction: .inbound, keyingMaterial: keys)
        var buffer = [UInt8](repeating: 0, count: 2048)
        var opened = 0
        while let got = try buffer.withUnsafeMutableBytes({ try sink.receive(into: $0, timeoutMilliseconds: 100) }) {
            guard !(192...223).contains(buffer[1]) else { continue }  // RTP, not RTCP (RFC 5761 §4)
            _ = try session.unprotect(inPlace: &buffer, packetLength: got.count, rtcp: false)
            opened += 1
        }
        #expect(opened == summary.streams.reduce(0) { $0 + Int($1.packets) })
        // An offer without a suite this engine runs is refused with the typed reason.
        try "a=crypto:1 F8_128_HMAC_SHA1_80 inline:\(interopKeyBase64)\n".write(to: offer, atomically: true, encoding: .utf8)
        try await expectRefusal(["--to", "\(sink.localEndpoint)", "--frames", "1", "--sdes-offer", offer.path],
                                saying: "\(SRTPError.noCommonSuite(offered: 1))")
    }

    /// `--e2ee-key`: every Opus frame leaves as an SFrame ciphertext (RFC 9605) that opens with
    /// the key, and not otherwise.
    @Test func anE2EEKeyEncryptsEveryFrameEndToEnd() async throws {
        let sink = try UDPSocket()
        try sink.setReceiveBufferSize(1 << 20)
        let key = (0..<16).map { UInt8($0 * 3) }
        let summary = try await SendCommand.run(["--audio-to", "\(sink.localEndpoint)", "--frames", "6", "--fast", "--insecure",
                                                 "--rtcp-interval", "0", "--e2ee-key", Data(key).base64EncodedString()],
                                                output: { _ in })
        let receiver = SFrameReceiver(suite: .aes128GcmSha256_128)
        try receiver.setKey(keyID: 0, baseKey: key, nowMilliseconds: 0)
        var buffer = [UInt8](repeating: 0, count: 2048)
        var opened = 0
        while let got = try buffer.withUnsafeMutableBytes({ try sink.receive(into: $0, timeoutMilliseconds: 100) }) {
            let packet = try RTPPacket(parsing: buffer[0..<got.count])
            let frame = try receiver.decrypt(packet.payload, nowMilliseconds: 0).plaintext
            _ = try OpusPacketInfo(parsing: frame[...])  // a real Opus frame inside
            opened += 1
        }
        #expect(opened == summary.streams.reduce(0) { $0 + Int($1.packets) } && opened > 0)
        #expect(receiver.counters.authenticationFailures == 0)
        await #expect(throws: CommandError.self) {
            try await SendCommand.run(["--audio-to", "\(sink.localEndpoint)", "--e2ee-key", "AAAA"], output: { _ in })
        }
    }

    @Test func badInputIsATypedError() async throws {
        let sink = try UDPSocket()
        let to = "\(sink.localEndpoint)"
        // What the engine refuses reads as the library's own sentence (`simulcast send: <why>`).
        try await expectRefusal(["--to", "127.0.0.1:70000"], saying: "\(NetworkError.portOutOfRange(70000))")
        try await expectRefusal(["--to", "nowhere"], saying: "\(NetworkError.invalidAddress("nowhere"))")
        var badKeyLength = ""
        do { _ = try SRTPKeyingMaterial(keyAndSalt: [0, 0, 0]) } catch { badKeyLength = "\(error)" }
        #expect(badKeyLength.contains("must be 30 bytes"))
        try await expectRefusal(["--to", to, "--key", "AAAA", "--frames", "1"], saying: badKeyLength)
        try await expectRefusal(["--to", to, "--rtcp-to", "janus"], saying: "\(NetworkError.invalidAddress("janus"))")
        await #expect(throws: CommandError.self) { try await SendCommand.run(["--to", to, "--key", "not base64!"], output: { _ in }) }
        await #expect(throws: CommandError.self) {
            try await SendCommand.run(["--to", to, "--key", interopKeyBase64, "--insecure"], output: { _ in })
        }
        await #expect(throws: CommandError.self) { try await SendCommand.run(["--to", "127.0.0.1:5000,5002"], output: { _ in }) }
        await #expect(throws: CommandError.self) { try await SendCommand.run([], output: { _ in }) }
        await #expect(throws: CommandError.self) { try await SendCommand.run(["--to", to, "--frames", "3", "--seconds", "1"], output: { _ in }) }
        await #expect(throws: CommandError.self) { try await SendCommand.run(["--to", to, "--key-frames", "some"], output: { _ in }) }
        await #expect(throws: CommandError.self) { try await SendCommand.run(["--to", to, "--remb", "maybe"], output: { _ in }) }
        await #expect(throws: CommandError.self) { try await SendCommand.run(["--to", to, "--srtp-suite", "ROT13"], output: { _ in }) }
        await #expect(throws: CommandError.self) {
            try await SendCommand.run(["--to", to, "--srtp-suite", "AEAD_AES_128_GCM", "--insecure"], output: { _ in })
        }
        // A 30-byte AES-CM key for AEAD_AES_128_GCM (28 bytes): the engine says which length it needs.
        var gcmKeyLength = ""
        do { _ = try SRTPKeyingMaterial(suite: .aeadAes128Gcm, keyAndSalt: interopKey) } catch { gcmKeyLength = "\(error)" }
        #expect(gcmKeyLength.contains("must be 28 bytes"))
        try await expectRefusal(["--to", to, "--key", interopKeyBase64, "--srtp-suite", "AEAD_AES_128_GCM", "--frames", "1"],
                                saying: gcmKeyLength)
        // A destination the socket cannot send to: the engine's typed error, from the first frame.
        await #expect(throws: EngineError.self) {
            try await SendCommand.run(["--to", "255.255.255.255:9", "--size", "320x180", "--frames", "1", "--fast"], output: { _ in })
        }
    }

    /// `send` fails with a `CommandError` whose sentence is `why`.
    private func expectRefusal(_ arguments: ArraySlice<String>, saying why: String,
                               sourceLocation: SourceLocation = #_sourceLocation) async throws {
        do {
            try await SendCommand.run(arguments, output: { _ in })
            Issue.record("simulcast send \(arguments.joined(separator: " ")) succeeded", sourceLocation: sourceLocation)
        } catch let error as CommandError {
            #expect(error.description == why, sourceLocation: sourceLocation)
        }
    }
}

@Suite struct SendRTCPDestinationTests {
    /// `--rtcp-to` + `--rtcp-plain` (a Janus mountpoint's videortcpport): every SR/SDES/BYE goes
    /// there, plain, from the socket that sends the media; the media ports get SRTP only.
    @Test func rtcpToWithRtcpPlainSendsPlainReportsToThatAddressOnly() async throws {
        let media = try UDPSocket()
        let rtcp = try UDPSocket()
        try media.setReceiveBufferSize(4 << 20)
        var lines: [String] = []
        let summary = try await SendCommand.run(["--to", "\(media.localEndpoint)", "--size", "320x180", "--ssrc", "7000",
                                           "--key", interopKeyBase64, "--frames", "3", "--fast", "--rtcp-interval", "1",
                                           "--rtcp-to", "\(rtcp.localEndpoint)", "--rtcp-plain"],
                                          output: { lines.append($0) })
        #expect(summary.videoFrames == 3)
        #expect(lines.contains { $0.contains("--rtcp-plain") && $0.contains("plain") })
        var buffer = [UInt8](repeating: 0, count: 2048)
        var mediaPackets = 0
        while let got = try buffer.withUnsafeMutableBytes({ try media.receive(into: $0, timeoutMilliseconds: 200) }) {
            // Other tests run beside this one on loopback: a datagram that names none of our
            // SSRCs (RTP: bytes 8-11, RTCP: the sender's, bytes 4-7) is theirs, not ours.
            let kind = try RTPOrRTCP.classify(buffer[0..<got.count])
            let ssrcOffset = kind == .rtp ? 8 : 4
            guard got.count >= ssrcOffset + 4 else { continue }
            let ssrc = buffer[ssrcOffset..<ssrcOffset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard ssrc == 7000 else { continue }
            #expect(kind == .rtp)
            mediaPackets += 1
        }
        #expect(mediaPackets > 0)
        var reportSSRCs: Set<UInt32> = []
        var goodbyes = 0
        var sources: Set<UInt16> = []
        while let got = try buffer.withUnsafeMutableBytes({ try rtcp.receive(into: $0, timeoutMilliseconds: 200) }) {
            // Plain: ours parses as is and is sent by SSRC 7000 (a stray from another test is not).
            guard got.count >= 8, buffer[4..<8].reduce(UInt32(0), { $0 << 8 | UInt32($1) }) == 7000 else { continue }
            let packets = try RTCPCompoundPacket(parsing: buffer[0..<got.count]).packets
            for packet in packets {
                if case let .senderReport(sr) = packet { reportSSRCs.insert(sr.ssrc) }
                if case .goodbye = packet { goodbyes += 1 }
            }
            sources.insert(got.from.port)
        }
        #expect(reportSSRCs == [7000])  // 320x180: one layer
        #expect(goodbyes == 1)
        #expect(sources.count == 1)  // one socket: where feedback comes back to
    }
}
