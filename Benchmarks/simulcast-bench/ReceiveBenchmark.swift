import AllocationCounter
import CommandLineSupport
import EngineCore
import Foundation
import SRTP

let receiveUsage = """
usage: simulcast-bench receive [--frames N] [--size WxH] [--rounds R] [--json PATH] [--quick]
  One publisher (a real SimulcastEncoder + Opus stream, N frames recorded once, default 60 = 2 s,
  three layers of a WxH publication, default 1280x720) SRTP-protected with AEAD_AES_128_GCM, one
  layer + the audio fed through a Subscriber per layer (Subscriber.handle(datagram:from:): the copy
  into a receive buffer, SRTP unprotect in place, RTPPacketView, jitter buffers, VP8 frame assembler;
  frames assembled, not decoded: VideoReceiver.Configuration.decodes = false; audio played out, its
  decoding in the playout steps between the timed windows).
  Per packet: thread CPU ns and heap allocations of the subscriber, next to one GCM unprotect of the
  same packets (a second session, same run). R timed rounds (default 10) after 3 warm-up rounds.
  --quick: --frames 24 --rounds 2 (the `make test` smoke).
"""

/// `simulcast-bench receive`: what the subscriber path costs per received packet beyond its SRTP
/// unprotect (issue 30: at most 50 % of one GCM unprotect, 0 allocations per packet).
struct ReceiveBenchmark {
    var recording: ForwardRecording
    var rounds: Int
    /// Untimed rounds first: every buffer reaches the size the recording needs (the largest key frame).
    static let warmUpRounds = 3

    /// One layer's measurement.
    struct Result {
        var layer: Int
        var size: String
        var packetsPerRound: Int
        var videoPacketsPerRound: Int
        var rounds: Int
        /// Thread CPU ns per packet through the subscriber, one sample per timed round.
        var subscriberNanoseconds: Distribution
        /// Thread CPU ns per packet of one GCM unprotect of the same datagrams, one sample per round.
        var unprotectNanoseconds: Distribution
        var subscriberAllocations: Int64
        var unprotectAllocations: Int64
        var packets: Int
        var framesAssembled: Int64
        var bufferExhaustions: Int64

        var allocationsPerPacket: Double { Double(subscriberAllocations) / Double(max(1, packets)) }
        var libSRTPAllocationsPerPacket: Double { Double(unprotectAllocations) / Double(max(1, packets)) }
        var engineAllocationsPerPacket: Double { allocationsPerPacket - libSRTPAllocationsPerPacket }
        var notSRTPNanoseconds: Double { subscriberNanoseconds.median - unprotectNanoseconds.median }
        var notSRTPPercent: Double { notSRTPNanoseconds / max(1, unprotectNanoseconds.median) * 100 }
        var passes: Bool { engineAllocationsPerPacket <= 0 && notSRTPPercent <= 50 }
    }

    static func keys(seed: UInt8) throws -> SRTPKeyingMaterial {
        let suite = SRTPSuite.aeadAes128Gcm
        return try SRTPKeyingMaterial(suite: suite, keyAndSalt: (0..<suite.keyingMaterialLength).map {
            UInt8(truncatingIfNeeded: $0 &* 11 &+ Int(seed) &* 29 &+ 5)
        })
    }

    func measure(layer: Int) throws -> Result {
        let publisherKeys = try Self.keys(seed: 30)
        var round = try ForwardRound(recording: recording, keys: publisherKeys)
        let selected = recording.packets.indices.filter {
            recording.packets[$0].layer == nil || recording.packets[$0].layer == layer
        }
        let videoCount = selected.filter { recording.packets[$0].layer != nil }.count
        let subscriber = try Subscriber(
            configuration: SubscriberConfiguration(localSSRC: 0x5EB5_C001, security: .srtp(receiveKeys: publisherKeys,
                                                                                            sendKeys: try Self.keys(seed: 31)),
                                                   video: VideoReceiver.Configuration(localSSRC: 0x5EB5_C001, decodes: false)),
            transport: nil)
        subscriber.rtcpSink = { _ in }
        // Played out, as the engine plays a consumed microphone: packets wait in the audio
        // jitter buffer and are decoded by the 20 ms playout steps (between the timed windows).
        subscriber.audio.startPlayout()
        let floorSession = try SRTPSession(direction: .inbound, keyingMaterial: publisherKeys)
        var flat = [UInt8](repeating: 0, count: selected.count * 2048)

        var next = 0
        var result = Result(layer: layer, size: "\(recording.plan.layers[layer].width)x\(recording.plan.layers[layer].height)",
                            packetsPerRound: selected.count, videoPacketsPerRound: videoCount, rounds: rounds,
                            subscriberNanoseconds: Distribution([]), unprotectNanoseconds: Distribution([]),
                            subscriberAllocations: 0, unprotectAllocations: 0, packets: 0, framesAssembled: 0,
                            bufferExhaustions: 0)
        var subscriberSamples: [Double] = []
        var unprotectSamples: [Double] = []
        for pass in 0..<(Self.warmUpRounds + rounds) {
            try round.prepare(next, of: recording)
            next += 1
            // The floor's copy of the same datagrams, laid out before either window.
            for (slot, index) in selected.enumerated() {
                let datagram = round.datagram(index)
                flat.replaceSubrange(slot * 2048..<slot * 2048 + datagram.count, with: datagram)
            }
            let timed = pass >= Self.warmUpRounds
            alloc_counter_reset()
            let start = threadCPUNanoseconds()
            for index in selected { subscriber.handle(datagram: round.datagram(index), from: nil) }
            let cpu = threadCPUNanoseconds() - start
            let allocations = alloc_counter_get()
            subscriber.service()
            for _ in 0..<recording.frames { _ = subscriber.audio.playOut(nowMicroseconds: monotonicMicroseconds()) }

            alloc_counter_reset()
            let floorStart = threadCPUNanoseconds()
            try flat.withUnsafeMutableBytes { raw in
                for (slot, index) in selected.enumerated() {
                    let length = round.datagram(index).count
                    _ = try floorSession.unprotectRTP(inPlace: UnsafeMutableRawBufferPointer(rebasing: raw[slot * 2048..<slot * 2048 + 2048]),
                                                      packetLength: length)
                }
            }
            let floorCPU = threadCPUNanoseconds() - floorStart
            let floorAllocations = alloc_counter_get()
            guard timed else { continue }
            subscriberSamples.append(Double(cpu) / Double(selected.count))
            unprotectSamples.append(Double(floorCPU) / Double(selected.count))
            result.subscriberAllocations += allocations
            result.unprotectAllocations += floorAllocations
            result.packets += selected.count
        }
        let statistics = subscriber.statistics
        guard statistics.srtpFailures == 0, statistics.malformedDatagrams == 0, statistics.video.malformedPackets == 0,
              statistics.video.framesAssembled > 0 else {
            throw ValidationError(message: "layer \(layer): the subscriber refused packets or assembled nothing: \(statistics)")
        }
        result.subscriberNanoseconds = Distribution(subscriberSamples)
        result.unprotectNanoseconds = Distribution(unprotectSamples)
        result.framesAssembled = statistics.video.framesAssembled
        result.bufferExhaustions = subscriber.receiveBufferExhaustions
        return result
    }
}

func runReceive(_ arguments: ArraySlice<String>) throws {
    let options = try CommandLineArguments(arguments, valueOptions: ["frames", "size", "rounds", "json"], flagOptions: ["quick"])
    let quick = options.flag("quick")
    let frames = try options.int("frames", default: quick ? 24 : 60, range: 12...3000)
    let rounds = try options.int("rounds", default: quick ? 2 : 10, range: 1...10_000)
    let size = try options.size("size", default: (1280, 720))
    guard SRTPSuite.aeadAes128Gcm.isSupported else { throw ValidationError(message: "libsrtp2 here has no AES-GCM") }
    let selfCheck = allocationCounterSelfCheck(count: 64)
    guard selfCheck >= 1 else { throw ValidationError(message: "allocation counter is not counting") }
    let recording = try ForwardRecording(width: size.width, height: size.height, frames: frames)
    let benchmark = ReceiveBenchmark(recording: recording, rounds: rounds)
    let results = try recording.plan.layers.indices.reversed().map { try benchmark.measure(layer: $0) }

    let seconds = Double(recording.durationMicroseconds) / 1_000_000
    print("simulcast-bench receive (\(MachineInfo.buildConfiguration) build): \(size.width)x\(size.height) publication, "
        + "\(recording.plan.layers.count) layers (L1T3) + Opus, \(recording.frames) frames (\(MarkdownTable.fmt(seconds, 1)) s) per round, "
        + "SRTP AEAD_AES_128_GCM; \(rounds) timed rounds; allocation counter self-check \(selfCheck).")
    print("")
    print("| layer | packets/round (video + audio) | subscriber CPU ns/pkt median | GCM unprotect ns/pkt | not SRTP ns/pkt | "
        + "not SRTP / unprotect | allocs/pkt | libsrtp's | engine's | frames assembled |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for result in results {
        print("| \(result.layer) (\(result.size)) | \(result.packetsPerRound) (\(result.videoPacketsPerRound) + "
            + "\(result.packetsPerRound - result.videoPacketsPerRound)) | \(MarkdownTable.fmt(result.subscriberNanoseconds.median, 0)) | "
            + "\(MarkdownTable.fmt(result.unprotectNanoseconds.median, 0)) | \(MarkdownTable.fmt(result.notSRTPNanoseconds, 0)) | "
            + "\(MarkdownTable.fmt(result.notSRTPPercent, 0)) % | \(MarkdownTable.fmt(result.allocationsPerPacket, 3)) | "
            + "\(MarkdownTable.fmt(result.libSRTPAllocationsPerPacket, 3)) | \(MarkdownTable.fmt(result.engineAllocationsPerPacket, 3)) | "
            + "\(result.framesAssembled) |")
    }
    print("")
    print("subscriber: thread CPU of the handle(datagram:from:) calls of a round per packet (its copy into a receive buffer "
        + "included); unprotect: srtp_unprotect of the same datagrams in place in a second session, right after. "
        + "engine's allocations: the subscriber's minus the unprotect loop's (libsrtp's own). Receive buffers reused after "
        + "all were held: \(results.map { String($0.bufferExhaustions) }.joined(separator: "/")).")
    let passes = results.allSatisfy(\.passes)
    print("acceptance (issue 30): engine allocations 0 per packet and not-SRTP <= 50 % of one unprotect on every layer: "
        + (passes ? "PASS" : "FAIL"))
    if let path = options.string("json") {
        let rows: [[String: Any]] = results.map { result in
            ["layer": result.layer, "size": result.size, "packetsPerRound": result.packetsPerRound,
             "subscriberNsPerPacket": result.subscriberNanoseconds.median, "unprotectNsPerPacket": result.unprotectNanoseconds.median,
             "notSRTPPercent": result.notSRTPPercent, "allocationsPerPacket": result.allocationsPerPacket,
             "libSRTPAllocationsPerPacket": result.libSRTPAllocationsPerPacket,
             "engineAllocationsPerPacket": result.engineAllocationsPerPacket, "framesAssembled": result.framesAssembled]
        }
        let data = try JSONSerialization.data(withJSONObject: ["rounds": rounds, "frames": recording.frames, "pass": passes,
                                                               "layers": rows], options: [.prettyPrinted, .sortedKeys])
        try write(data, to: path)
    }
}
