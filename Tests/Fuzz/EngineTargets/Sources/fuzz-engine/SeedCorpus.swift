import Glibc
import MediaCodecs
import EngineCore
import SessionCore
import RTPWire
import Simulcast
import SRTP

/// Writes the seed corpora (small, valid examples) of every target into `<directory>/<target>/`.
/// Run by `scripts/fuzz-engine.sh seeds`; the output is committed under Tests/Fuzz/Corpus/.
/// Everything here is deterministic, so regenerating gives the same files.
enum SeedCorpus {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func write(into directory: String) throws {
        let seeds: [(EngineFuzzTarget, [(String, [UInt8])])] = [
            (.y4m, y4m()), (.ivf, try ivf()), (.wav, wav()), (.pcapfile, try pcapFile()), (.srtp, try srtp()),
            (.publisher, try publisher()), (.subscriber, try subscriber()), (.node, try node()),
            (.ice, ice()), (.dtls, dtls()), (.janus, janus()), (.turn, turn()),
            (.bundle, try bundle()),
        ]
        for (target, files) in seeds {
            let folder = "\(directory)/\(target.rawValue)"
            mkdir(directory, 0o755)
            mkdir(folder, 0o755)
            for (name, bytes) in files {
                if let violation = target.violation(in: bytes) {
                    throw Failure(description: "seed \(target.rawValue)/\(name) violates its own check: \(violation)")
                }
                ScratchFiles.write(bytes, to: "\(folder)/\(name)")
            }
            print("\(target.rawValue): \(files.count) seeds")
        }
    }

    // MARK: Files

    static func y4m() -> [(String, [UInt8])] {
        func pixels(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37) } }
        return [
            ("two-frames-4x4.y4m", Array("YUV4MPEG2 W4 H4 F30:1 Ip A1:1 C420jpeg\n".utf8)
                + Array("FRAME\n".utf8) + pixels(24) + Array("FRAME\n".utf8) + pixels(24)),
            ("odd-3x5-frame-params.y4m", Array("YUV4MPEG2 W3 H5 XYSCSS=420JPEG\nFRAME Ixy\n".utf8) + pixels(27)),
            ("scaled-32x18.y4m", Array("YUV4MPEG2 W32 H18 F25:1 C420\nFRAME\n".utf8) + pixels(864)),
            ("truncated-8x8.y4m", Array("YUV4MPEG2 W8 H8\nFRAME\n".utf8) + pixels(10)),
        ]
    }

    /// Three real VP8 frames (key frame first) of a 64x64 picture.
    static func vp8Frames(count: Int) throws -> [EncodedFrame] {
        let plan = try LayerPlan(width: 64, height: 64, multiStream: false)
        let encoder = try SimulcastEncoder(plan: plan)
        let source = try VideoSource(testSceneWidth: 64, height: 64)
        var frames: [EncodedFrame] = []
        while frames.count < count, let picture = try source.nextFrame() { frames += try encoder.encode(picture) }
        return Array(frames.prefix(count))
    }

    static func ivf() throws -> [(String, [UInt8])] {
        var real = IVFWriter(width: 64, height: 64)
        for (index, frame) in try vp8Frames(count: 3).enumerated() { real.append(frame: frame.data, timestamp: UInt64(index)) }
        var odd = IVFWriter(width: 7, height: 3, timebaseNumerator: 1, timebaseDenominator: 90_000)
        odd.append(frame: [0x10, 0x02, 0x00, 0x9D], timestamp: 1 << 33)
        odd.append(frame: [], timestamp: 0)
        var long = odd.bytes
        long[6] = 40  // header size 40: eight extra header bytes
        long.insert(contentsOf: [UInt8](repeating: 0xEE, count: 8), at: 32)
        return [("vp8-64x64-3-frames.ivf", real.bytes), ("odd-frames.ivf", odd.bytes), ("header-40.ivf", long)]
    }

    static func wavFile(channels: Int, rate: Int, bits: Int = 16, extensible: Bool = false, samples: [Int16],
                        chunkBeforeFormat: [UInt8]? = nil) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { u16(v & 0xFFFF) + u16(v >> 16 & 0xFFFF) }
        var format = u16(extensible ? 0xFFFE : 1) + u16(channels) + u32(rate) + u32(rate * channels * bits / 8)
            + u16(channels * bits / 8) + u16(bits)
        if extensible { format += u16(22) + u16(bits) + u32(channels == 1 ? 4 : 3) + u16(1) + [UInt8](repeating: 0x11, count: 14) }
        var body = Array("WAVE".utf8)
        if let extra = chunkBeforeFormat { body += Array("LIST".utf8) + u32(extra.count) + extra + (extra.count % 2 == 1 ? [0] : []) }
        body += Array("fmt ".utf8) + u32(format.count) + format
        let data = samples.flatMap { u16(Int(UInt16(bitPattern: $0))) }
        body += Array("data".utf8) + u32(data.count) + data
        return Array("RIFF".utf8) + u32(body.count) + body
    }

    static func wav() -> [(String, [UInt8])] {
        let tone = TestSignal(frequencyHz: 440, amplitude: 0.3, talkFrames: 100, channels: .mono)
        let stereo = TestSignal(frequencyHz: 300, amplitude: 0.2, talkFrames: 100, channels: .stereo)
        return [
            ("mono-2-frames.wav", wavFile(channels: 1, rate: 48_000, samples: tone.frame(0).samples + tone.frame(1).samples)),
            ("stereo-list-chunk.wav", wavFile(channels: 2, rate: 48_000, samples: stereo.frame(0).samples,
                                              chunkBeforeFormat: Array("INFOabc".utf8))),
            ("extensible-mono.wav", wavFile(channels: 1, rate: 48_000, extensible: true, samples: tone.frame(2).samples)),
            ("44100-unsupported.wav", wavFile(channels: 1, rate: 44_100, samples: [1, 2, 3, 4])),
        ]
    }

    static func pcapFile() throws -> [(String, [UInt8])] {
        let path = ScratchFiles.output
        let file = try PcapFile(path: path)
        let a = NetworkEndpoint(address: 0xC000_0201, port: 5004), b = NetworkEndpoint.loopback(port: 6000)
        var rtp: [UInt8] = []
        try RTPHeader(marker: true, payloadType: 96, sequenceNumber: 7, timestamp: 9000, ssrc: 0x1234).serialize(into: &rtp)
        rtp += [0x90, 0x80, 0x05, 0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A]
        let rtcp = try RTCPCompoundPacket(packets: [
            .receiverReport(ReceiverReport(ssrc: 1, reportBlocks: [ReportBlock(ssrc: 0x1234)])),
            .pictureLossIndication(PictureLossIndication(senderSSRC: 1, mediaSSRC: 0x1234)),
        ]).serialized()
        for (index, payload) in [rtp, rtcp, [0x00, 0x01, 0x02]].enumerated() {
            try payload.withUnsafeBytes {
                try file.record($0, from: index % 2 == 0 ? a : b, to: index % 2 == 0 ? b : a,
                                unixMicroseconds: 1_700_000_000_000_000 + UInt64(index) * 20_000)
            }
        }
        try file.close()
        return [("rtp-rtcp-junk.pcap", ScratchFiles.read(path))]
    }

    // MARK: SRTP

    static func rtpPlaintext(sequence: UInt16, ssrc: UInt32 = 0xCAFE_0001, payload: Int = 20) throws -> [UInt8] {
        var packet: [UInt8] = []
        let extensions = try RTPHeaderExtensions(elements: [RTPHeaderExtensionElement(id: 1, data: [0x85])], form: .oneByte)
        try RTPHeader(marker: false, payloadType: 111, sequenceNumber: sequence, timestamp: UInt32(sequence) * 960,
                      ssrc: ssrc, extensions: extensions).serialize(into: &packet)
        return packet + (0..<payload).map { UInt8(truncatingIfNeeded: $0 &+ Int(sequence)) }
    }

    static func rtcpPlaintexts() throws -> [[UInt8]] {
        [
            try RTCPCompoundPacket(packets: [.receiverReport(ReceiverReport(ssrc: 5, reportBlocks: [ReportBlock(ssrc: 0xCAFE_0001)])),
                                             .sourceDescription(SourceDescription(chunks: [.cname(ssrc: 5, "seed")]))]).serialized(),
            try RTCPCompoundPacket(packets: [.receiverReport(ReceiverReport(ssrc: 5)),
                                             .pictureLossIndication(PictureLossIndication(senderSSRC: 5, mediaSSRC: 0xCAFE_0001))]).serialized(),
            try RTCPCompoundPacket(packets: [.receiverReport(ReceiverReport(ssrc: 5)),
                                             .genericNACK(GenericNACK(senderSSRC: 5, mediaSSRC: 0xCAFE_0001, lostSequenceNumbers: [3, 4, 9]))]).serialized(),
        ]
    }

    static func srtp() throws -> [(String, [UInt8])] {
        var seeds: [(String, [UInt8])] = []
        for (suiteIndex, suite) in FuzzKeys.suites.enumerated() {
            for rtcp in [false, true] {
                let plaintexts = rtcp ? try rtcpPlaintexts() : try [1, 2, 70].map { try rtpPlaintext(sequence: $0) }
                let name = "\(suite.rawValue.lowercased())-\(rtcp ? "srtcp" : "srtp")"
                let mode = UInt8(rtcp ? 1 : 0) | UInt8(suiteIndex) << 1 | 1 << 4  // window 128
                // Protect mode: fresh, then one mutated in its tag.
                var protect = [mode | 8]
                for plaintext in plaintexts { protect += [UInt8(plaintext.count), 0, 0] + plaintext }
                protect += [UInt8(plaintexts[0].count), 255, 0x01] + plaintexts[0]
                seeds.append(("\(name)-protect.bin", protect))
                // Raw mode: packets protected here, the second one replayed.
                let outbound = try SRTPSession(direction: .outbound, keyingMaterial: FuzzKeys.material(1, suite: suite))
                var raw = [mode]
                var protected: [[UInt8]] = []
                for plaintext in plaintexts {
                    var output = [UInt8](repeating: 0, count: plaintext.count + SRTPSession.maxTrailerLength)
                    let length = rtcp ? try outbound.protectRTCP(plaintext, into: &output) : try outbound.protectRTP(plaintext, into: &output)
                    protected.append(Array(output[0..<length]))
                }
                for packet in protected + [protected[1]] { raw += [UInt8(packet.count)] + packet }
                seeds.append(("\(name)-raw.bin", raw))
            }
        }
        return seeds
    }

    // MARK: Endpoints

    typealias Record = DatagramScript.Record
    static func record(_ datagram: [UInt8], source: Int = 0, protect: Bool = false, service: Bool = false,
                       action: Bool = false, advanceMilliseconds: Int64 = 0) -> Record {
        var control = UInt8(source & 7)
        if protect { control |= 0x08 }
        if service { control |= 0x10 }
        if action { control |= 0x40 }
        return Record(control: control, advanceMicroseconds: advanceMilliseconds * 1000, datagram: datagram)
    }

    static func compound(_ packets: [RTCPPacket], from ssrc: UInt32) throws -> [UInt8] {
        try RTCPCompoundPacket(packets: [.receiverReport(ReceiverReport(ssrc: ssrc))] + packets).serialized()
    }

    /// The same records with `protect` set (the harness protects them with the expected keys).
    static func protected(_ records: [Record]) -> [Record] {
        records.map { var record = $0; if !record.isAction { record.control |= 0x08 }; return record }
    }

    static func publisher() throws -> [(String, [UInt8])] {
        // What the publisher sent in setup: the sequence numbers NACKs can name.
        let transport = CountingTransport()
        transport.kept = []
        _ = PublisherCheck.makePublisher(variant: 0, transport: transport, clock: SimulatedClock())
        var sent: [UInt32: [UInt16]] = [:]
        for datagram in transport.kept ?? [] {
            if let packet = try? RTPPacket(parsing: datagram.bytes) { sent[packet.header.ssrc, default: []].append(packet.header.sequenceNumber) }
        }
        let video = PublisherCheck.videoSSRCs, sfu = PublisherCheck.feedbackSSRC
        let nack = try compound([.genericNACK(GenericNACK(senderSSRC: sfu, mediaSSRC: video[0], lostSequenceNumbers: sent[video[0]] ?? []))], from: sfu)
        let nackTwoLayers = try compound([
            .genericNACK(GenericNACK(senderSSRC: sfu, mediaSSRC: video[1], lostSequenceNumbers: (sent[video[1]] ?? []) + [0, 1])),
            .genericNACK(GenericNACK(senderSSRC: sfu, mediaSSRC: PublisherCheck.audioSSRC, lostSequenceNumbers: sent[PublisherCheck.audioSSRC] ?? [])),
        ], from: sfu)
        let report = try RTCPCompoundPacket(packets: [
            .receiverReport(ReceiverReport(ssrc: sfu, reportBlocks: [
                ReportBlock(ssrc: video[0], fractionLost: 12, cumulativeLost: 3, extendedHighestSequenceNumber: 70_000,
                            interarrivalJitter: 90, lastSenderReport: 0x1234_5678, delaySinceLastSenderReport: 655),
                ReportBlock(ssrc: PublisherCheck.audioSSRC),
            ])),
            .sourceDescription(SourceDescription(chunks: [.cname(ssrc: sfu, "sfu")])),
        ]).serialized()
        // The same packets asked for again and again (a budget must bound the answer).
        let repeatedItems = GenericNACK(senderSSRC: sfu, mediaSSRC: video[0], lostSequenceNumbers: sent[video[0]] ?? []).items
        let nackRepeated = try compound([.genericNACK(GenericNACK(senderSSRC: sfu, mediaSSRC: video[0],
                                                                  items: Array(repeating: repeatedItems, count: 16).flatMap { $0 }))], from: sfu)
        let pli = try compound([.pictureLossIndication(PictureLossIndication(senderSSRC: sfu, mediaSSRC: video[1]))], from: sfu)
        let fir = try compound([.fullIntraRequest(FullIntraRequest(senderSSRC: sfu, entries: [FIREntry(ssrc: video[2], sequenceNumber: 1)]))], from: sfu)
        let rembLow = try compound([.receiverEstimatedMaxBitrate(ReceiverEstimatedMaxBitrate(senderSSRC: sfu, bitrate: 150_000, ssrcs: video))], from: sfu)
        let rembHigh = try compound([.receiverEstimatedMaxBitrate(ReceiverEstimatedMaxBitrate(senderSSRC: sfu, bitrate: 5_000_000, ssrcs: []))], from: sfu)
        let others = try compound([
            .goodbye(Goodbye(ssrcs: [sfu], reason: "bye")),
            .applicationDefined(ApplicationDefined(subtype: 1, ssrc: sfu, name: 0x5445_5354, data: [1, 2, 3, 4])),
        ], from: sfu)
        let senderReport = try RTCPCompoundPacket(packets: [.senderReport(SenderReport(
            ssrc: sfu, ntpTimestamp: 0xE000_0000_8000_0000, rtpTimestamp: 1, packetCount: 2, octetCount: 3,
            reportBlocks: [ReportBlock(ssrc: video[2])]))]).serialized()
        let rtp = try rtpPlaintext(sequence: 5)

        let feedback = [
            record(report, advanceMilliseconds: 5), record(pli, advanceMilliseconds: 10), record(fir, advanceMilliseconds: 400),
            record(nack, service: true, advanceMilliseconds: 20), record(nackTwoLayers), record(senderReport), record(rtp),
            record([], action: true, advanceMilliseconds: 33), record(rembLow, advanceMilliseconds: 100),
            record(others, service: true, advanceMilliseconds: 1000), record(rembHigh, advanceMilliseconds: 1000),
            record(rembHigh, service: true, advanceMilliseconds: 1000), record(pli, advanceMilliseconds: 1000),
        ]
        // The SRTP variant's datagrams protected here (as the SFU would), for raw mutation.
        let sfuOutbound = try SRTPSession(direction: .outbound, keyingMaterial: FuzzKeys.material(PublisherCheck.remoteKeys))
        let preprotected = feedback.map { record -> Record in
            var copy = record
            var preparer = DatagramPreparer()
            if !record.isAction { copy.datagram = preparer.prepare(self.protected([record])[0], with: sfuOutbound) }
            return copy
        }
        return [
            ("plain-feedback.bin", DatagramScript.encode(variant: 0, feedback)),
            ("plain-named-layer-no-audio.bin", DatagramScript.encode(variant: 0x14, feedback)),
            ("plain-rtcp-srtp-media.bin", DatagramScript.encode(variant: 2, feedback)),
            ("srtp-protected-by-harness.bin", DatagramScript.encode(variant: 1, protected(feedback))),
            ("srtp-preprotected.bin", DatagramScript.encode(variant: 1, preprotected)),
            ("srtp-remb-ignored.bin", DatagramScript.encode(variant: 9, protected(feedback))),
            ("plain-nack-repeated-items.bin", DatagramScript.encode(variant: 0, [record(nackRepeated, advanceMilliseconds: 5)])),
        ]
    }

    /// A real call's datagrams: VP8 (64x64, decodable) and Opus media with sender reports.
    static func callDatagrams() throws -> [(destination: NetworkEndpoint, bytes: [UInt8])] {
        let transport = CountingTransport()
        transport.kept = []
        let clock = SimulatedClock()
        var random = SplitMix64(seed: 7)
        let plan = try LayerPlan(width: 64, height: 64, multiStream: false)
        let publisher = try Publisher(
            configuration: PublisherConfiguration(video: VideoTrackConfiguration(plan: plan, ssrcs: [0x0400_0001]),
                                                  audio: AudioTrackConfiguration(ssrc: 0x0400_00A0), security: .insecure,
                                                  reportIntervalMicroseconds: 100_000),
            transport: transport, routing: PublisherRouting(destination: CountingTransport.peer), clock: clock.mediaClock,
            using: &random)
        let source = try VideoSource(testSceneWidth: 64, height: 64)
        let tone = TestSignal()
        for index in 0..<6 {
            if let picture = try source.nextFrame() { try publisher.send(video: picture) }
            try publisher.send(audio: tone.frame(index))
            clock.advance(33_000)
        }
        return transport.kept ?? []
    }

    static func subscriber() throws -> [(String, [UInt8])] {
        let datagrams = try callDatagrams()
        var inOrder: [Record] = []
        for (index, datagram) in datagrams.enumerated() {
            inOrder.append(record(datagram.bytes, source: 1, service: index % 3 == 2, advanceMilliseconds: index % 3 == 0 ? 11 : 0))
        }
        // Loss and reordering: drop the second datagram, swap two later ones, wait for NACKs and reports.
        var lossy = inOrder
        lossy.remove(at: 1)
        if lossy.count > 6 { lossy.swapAt(4, 5) }
        lossy += [record([], action: true, advanceMilliseconds: 30), record([], action: true, advanceMilliseconds: 600)]
        // Pre-protected SRTP, as the sender's session would protect them.
        let senderOutbound = try SRTPSession(direction: .outbound, keyingMaterial: FuzzKeys.material(SubscriberCheck.senderKeys))
        var preparer = DatagramPreparer()
        let preprotected = inOrder.map { record -> Record in
            var copy = record
            copy.datagram = preparer.prepare(protected([record])[0], with: senderOutbound)
            return copy
        }
        return [
            ("plain-call.bin", DatagramScript.encode(variant: 2, inOrder)),
            ("plain-lossy-call.bin", DatagramScript.encode(variant: 4, lossy)),
            ("srtp-call-protected-by-harness.bin", DatagramScript.encode(variant: 1, protected(lossy))),
            ("srtp-call-preprotected.bin", DatagramScript.encode(variant: 3, preprotected)),
        ]
    }

    static func node() throws -> [(String, [UInt8])] {
        // The publisher's media: real 64x64 VP8 frames on all three layers' SSRCs, and Opus.
        let transport = CountingTransport()
        transport.kept = []
        let clock = SimulatedClock()
        var random = SplitMix64(seed: 11)
        let publisher = try Publisher(
            configuration: PublisherConfiguration(video: VideoTrackConfiguration(plan: NodeCheck.plan, ssrcs: NodeCheck.layerSSRCs),
                                                  audio: AudioTrackConfiguration(ssrc: NodeCheck.audioSSRC), security: .insecure,
                                                  reportIntervalMicroseconds: 0),
            transport: transport, routing: PublisherRouting(destination: CountingTransport.peer), clock: clock.mediaClock,
            using: &random)
        let temporal: [UInt8] = [0, 2, 1, 2]
        for (index, frame) in try vp8Frames(count: 5).enumerated() {
            for layer in NodeCheck.plan.layers.indices {
                try publisher.send(EncodedFrame(spatialIndex: layer, width: frame.width, height: frame.height,
                                                temporalId: temporal[index % 4], layerSync: index % 4 != 0,
                                                keyFrame: index == 0, rtpTimestamp: UInt32(index) * 3000, data: frame.data))
            }
            try publisher.send(audio: TestSignal().frame(index))
        }
        var media: [Record] = []
        for (index, datagram) in (transport.kept ?? []).enumerated() {
            media.append(record(datagram.bytes, source: 0, service: index % 4 == 3, advanceMilliseconds: index % 4 == 0 ? 8 : 0))
        }
        media.remove(at: 2)  // a gap the node NACKs upstream

        // What subscriber A got, to NACK real sequence numbers.
        let variant: UInt8 = 0x04 | 0x20
        let (node, links) = NodeCheck.makeNode(variant: variant, clock: clock)
        links[0].kept = []
        for record in media { node.handle(datagram: record.datagram, from: NodeCheck.sockets.peers[0].localEndpoint) }
        _ = NodeCheck.drainPeers()
        let forwarded = (links[0].kept ?? []).compactMap { try? RTPPacket(parsing: $0) }
            .filter { $0.header.ssrc == NodeCheck.outputSSRCs[0] }.map(\.header.sequenceNumber)

        let a = NodeCheck.outputSSRCs[0], b = NodeCheck.outputSSRCs[1]
        let feedback: [Record] = [
            record(try compound([.genericNACK(GenericNACK(senderSSRC: 0xA, mediaSSRC: a, lostSequenceNumbers: Array(forwarded.prefix(6)) + [1]))], from: 0xA),
                   source: 2, advanceMilliseconds: 15),
            record(try compound([.pictureLossIndication(PictureLossIndication(senderSSRC: 0xA, mediaSSRC: a))], from: 0xA), source: 2),
            record(try compound([.receiverEstimatedMaxBitrate(ReceiverEstimatedMaxBitrate(senderSSRC: 0xA, bitrate: 120_000, ssrcs: [a]))], from: 0xA),
                   source: 2, service: true, advanceMilliseconds: 300),
            record(try RTCPCompoundPacket(packets: [.receiverReport(ReceiverReport(ssrc: 0xA, reportBlocks: [
                ReportBlock(ssrc: a, fractionLost: 30, cumulativeLost: 2, extendedHighestSequenceNumber: 100, interarrivalJitter: 40,
                            lastSenderReport: 0, delaySinceLastSenderReport: 0)]))]).serialized(), source: 6, advanceMilliseconds: 1000),
            record(try compound([.fullIntraRequest(FullIntraRequest(senderSSRC: 0xB, entries: [FIREntry(ssrc: b, sequenceNumber: 3)]))], from: 0xB),
                   source: 3, service: true, advanceMilliseconds: 400),
            record(try rtpPlaintext(sequence: 9, ssrc: 0x0300_0002), source: 4, advanceMilliseconds: 1),
            record([0, 0x01], action: true), record([1, 1], action: true, advanceMilliseconds: 50),
            record([2, 0x80], action: true), record([3, 0x00], action: true), record([4, 0x80], action: true),
            record([5, 0x80], action: true, advanceMilliseconds: 10),
        ]
        let script = media + feedback
        let repeatedItems = GenericNACK(senderSSRC: 0xA, mediaSSRC: a, lostSequenceNumbers: Array(forwarded.prefix(4))).items
        let nackRepeated = record(try compound([.genericNACK(GenericNACK(senderSSRC: 0xA, mediaSSRC: a,
                                                                          items: Array(repeating: repeatedItems, count: 16).flatMap { $0 }))], from: 0xA),
                                  source: 2, advanceMilliseconds: 5)
        return [
            ("plain-nack-repeated-items.bin", DatagramScript.encode(variant: variant, media + [nackRepeated])),
            ("plain-two-subscribers.bin", DatagramScript.encode(variant: variant, script)),
            ("plain-configured-publisher-low.bin", DatagramScript.encode(variant: 0x10 | 0x40 | 0x20, script)),
            ("srtp-everywhere-protected-by-harness.bin", DatagramScript.encode(variant: 0x2F, protected(script))),
            ("srtp-publisher-only.bin", DatagramScript.encode(variant: 0x25, protected(Array(media)) + feedback)),
        ]
    }

    // MARK: ICE and DTLS

    /// A controlled and a controlling agent: a signed request with USERNAME, then a success
    /// response to the agent's check and the timers; a raw garbage datagram in between.
    static func ice() -> [(String, [UInt8])] {
        let username: [UInt8] = [0x00, 0x06, 0x00, 0x09] + Array("AGNT:PEER".utf8) + [0, 0, 0]
        func record(_ control: UInt8, _ advance: UInt8, _ body: [UInt8]) -> [UInt8] {
            [control, advance, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
        }
        let exchange = record(0x12, 5, username) + record(0x00, 1, [0x00, 0x01, 0x00, 0x00, 1, 2, 3])
            + record(0x14, 5, []) + record(0x10, 200, []) + record(0x16, 50, [0x00, 0x09, 0x00, 0x04, 0, 0, 4, 87])
        return [("controlled-exchange", [0] + exchange), ("controlling-exchange", [1] + exchange)]
    }

    /// An allocation (401, then a signed success), a channel bound and confirmed, ChannelData on it
    /// and on an unbound channel, a Data indication-shaped datagram, garbage, the timers; over UDP
    /// and over a stream.
    static func turn() -> [(String, [UInt8])] {
        func record(_ control: UInt8, _ advance: UInt8, _ body: [UInt8]) -> [UInt8] {
            [control, advance, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
        }
        let dataIndication: [UInt8] = [0x00, 0x17, 0x00, 0x00, 0x21, 0x12, 0xA4, 0x42] + [UInt8](repeating: 7, count: 12)
        let exchange = record(0x02, 5, []) + record(0x03, 5, [0x00, 0x0D, 0x00, 0x04, 0, 0, 2, 88])
            + record(0x06, 1, [9]) + record(0x03, 5, []) + record(0x04, 1, [0x40, 0x00, 1, 2, 3, 4, 5])
            + record(0x04, 1, [0x4F, 0xFF, 9, 9]) + record(0x00, 1, dataIndication) + record(0x00, 1, [0xFF, 0x00, 0x12])
            + record(0x10, 200, [])
        return [("udp-allocation", [0] + exchange), ("stream-allocation", [1] + exchange)]
    }

    /// A ClientHello-shaped record and a short garbage one.
    static func dtls() -> [(String, [UInt8])] {
        let hello: [UInt8] = [22, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 12, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        return [("hello", [UInt8((hello.count + 3) / 4)] + hello + [0, 0, 0]), ("garbage", [2, 20, 21, 22, 23, 24, 25, 26, 27])]
    }

    // MARK: Janus

    /// One of each VideoRoom and core event the room model reads, in Janus 1.1's documented shapes.
    static func janus() -> [(String, [UInt8])] {
        func event(_ data: String, jsep: String = "") -> String {
            #"{"janus": "event", "session_id": 11, "sender": 22, "plugindata": {"plugin": "janus.plugin.videoroom", "data": \#(data)}\#(jsep)}"#
        }
        let texts: [(String, String)] = [
            ("joined", event(#"{"videoroom": "joined", "room": 1234, "id": 5, "private_id": 6, "publishers": [{"id": 7, "display": "alice|a1", "streams": [{"type": "audio", "mindex": 0, "mid": "0", "codec": "opus"}, {"type": "video", "mindex": 1, "mid": "1", "codec": "vp8", "simulcast": true}, {"type": "video", "mindex": 2, "mid": "2", "codec": "vp8", "description": "screen"}]}], "attendees": [{"id": 8, "display": "dave|d4"}]}"#)),
            ("publishers", event(#"{"videoroom": "event", "room": 1234, "publishers": [{"id": 9, "display": "aiortc", "streams": [{"type": "video", "mindex": "0", "mid": "0", "disabled": true}], "talking": false}]}"#)),
            ("unpublished", event(#"{"videoroom": "event", "room": 1234, "unpublished": 9}"#)),
            ("leaving", event(#"{"videoroom": "event", "room": 1234, "leaving": 9, "reason": "kicked"}"#)),
            ("talking", event(#"{"videoroom": "talking", "room": 1234, "id": 7, "audio-level-dBov-avg": 31.5}"#)),
            ("attached", event(#"{"videoroom": "attached", "room": 1234, "streams": [{"mindex": 0, "mid": "0", "type": "audio", "feed_id": 7, "feed_mid": "0", "feed_display": "alice|a1", "send": true}]}"#, jsep: #", "jsep": {"type": "offer", "sdp": "v=0\\r\\n"}"#)),
            ("error", event(#"{"videoroom": "event", "error_code": 428, "error": "No such feed"}"#)),
            ("trickle", #"{"janus": "trickle", "sender": 22, "candidate": {"candidate": "candidate:1 1 udp 1 10.0.0.1 5000 typ host", "sdpMid": "0"}}"#),
            ("media", #"{"janus": "media", "sender": 22, "type": "video", "mid": "1", "receiving": true}"#),
            ("keepalive", #"{"janus": "keepalive"}"#),
        ]
        return texts.map { ($0.0, Array($0.1.utf8)) }
    }
}

// MARK: Bundle

extension SeedCorpus {
    /// A bundled connection's traffic (`BundleCheck`): Opus and VP8 on the announced SSRCs, an
    /// unannounced SSRC naming mid "2" in its MID extension (then without it), RTCP of an announced
    /// SSRC, a short datagram; routes moved, removed and an SSRC announced by actions.
    static func bundle() throws -> [(String, [UInt8])] {
        func rtp(ssrc: UInt32, payloadType: UInt8, sequence: UInt16, mid: String? = nil) throws -> [UInt8] {
            let extensions = try mid.map { try RTPHeaderExtensions(elements: [RTPHeaderExtensionElement(id: 4, data: Array($0.utf8)[...])]) }
            return try RTPPacket(header: RTPHeader(payloadType: payloadType, sequenceNumber: sequence, timestamp: UInt32(sequence) * 960,
                                                   ssrc: ssrc, extensions: extensions),
                                 payload: [0xF8, 0xFF, 0xFE]).serialized()
        }
        let report = try RTCPCompoundPacket(packets: [.senderReport(SenderReport(ssrc: BundleCheck.audioSSRC, ntpTimestamp: 1 << 32,
                                                                                 rtpTimestamp: 960, packetCount: 2, octetCount: 6))]).serialized()
        func action(_ parameters: [UInt8]) -> Record { record(parameters, action: true) }
        let traffic: [Record] = [
            record(try rtp(ssrc: BundleCheck.audioSSRC, payloadType: 111, sequence: 1), advanceMilliseconds: 20),
            record(try rtp(ssrc: BundleCheck.videoSSRC, payloadType: 96, sequence: 1), service: true),
            record(try rtp(ssrc: 0x3333_0000, payloadType: 111, sequence: 1, mid: "2"), advanceMilliseconds: 20),
            record(try rtp(ssrc: 0x3333_0000, payloadType: 111, sequence: 2)),
            record(report, service: true, advanceMilliseconds: 500),
            record([0x80, 0x6F, 0x00]),
        ]
        let rerouted = [action([0, 2, 2])] + traffic + [action([1, 0, 0])] + traffic
            + [action([2, 3, 0, 0x44, 0x44, 0, 0]), action([0, 3, 1]),
               record(try rtp(ssrc: 0x4444_0000, payloadType: 96, sequence: 9), service: true, advanceMilliseconds: 600)]
        return [
            ("plain-mid-4.bin", DatagramScript.encode(variant: 1 | 4 << 1, traffic)),
            ("plain-routes-moved.bin", DatagramScript.encode(variant: 1 | 4 << 1, rerouted)),
            ("no-mid-extension.bin", DatagramScript.encode(variant: 0, traffic)),
            ("srtp-endpoints.bin", DatagramScript.encode(variant: 1 | 4 << 1 | 0x20, rerouted)),
        ]
    }
}
