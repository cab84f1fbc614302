import AllocationCounter
import CommandLineSupport
import CReference
import Foundation
import EngineCore
import MediaCodecs
import RTPWire
import SRTP

/// `simulcast-bench allocations`: heap allocations on the send hot path in steady state, per
/// packet, counted by the interposed allocator (Benchmarks/AllocationCounter; CONVENTIONS "count
/// allocations on hot paths"). Debian builds libsrtp2 on NSS, whose HMAC allocates inside every
/// `srtp_protect`, so a plain C loop calling `srtp_protect` is measured too: the engine's own
/// allocations are what the Swift path adds on top of that baseline.
enum AllocationCount {
    struct Window: Codable {
        var packets: Int
        /// Every allocation counted while sending those packets.
        var allocations: Int64
    }

    struct Report: Codable {
        /// `RTPStreamSender.send` of 1100-byte payloads (header, extensions, history, SRTP).
        var rtpSend: Window
        /// `VP8Packetizer.packetize` + `RTPStreamSender.send` of 9000-byte frames.
        var vp8Frame: Window
        /// `AudioReceiver.receive` of Opus packets while the stream plays out through the jitter
        /// buffer (issue 28 remote audio), one 20 ms playout step between packets (not counted).
        var audioReceive: Window
        /// libsrtp's `srtp_protect` called directly from C on 1200-byte packets.
        var cSRTPProtect: Window
        /// Allocations per packet the engine adds over the C baseline (0 is the goal).
        var engineAllocationsPerPacket: Double
        /// A fresh `[Int](repeating:count:)` counted this many allocations: proves the counter is live.
        var counterSelfCheck: Int64
    }

    static let usage = """
    usage: simulcast-bench allocations
      Heap allocations per packet on the send path in steady state (RTPStreamSender.send of 1100-byte
      payloads; VP8Packetizer + send of 9000-byte frames), next to a C loop calling srtp_protect: what
      the engine adds over libsrtp's own. Takes no options.
    """

    static func run(_ arguments: ArraySlice<String>) throws {
        _ = try CommandLineArguments(arguments, valueOptions: [])
        let selfCheck = allocationCounterSelfCheck(count: 64)
        guard selfCheck >= 1 else { throw ValidationError(message: "allocation counter is not counting") }
        let key = (0..<30).map { UInt8(truncatingIfNeeded: $0 &* 3 &+ 1) }
        let path = try SendPath(transport: DiscardTransport(), routing: PublisherRouting(destination: .loopback(port: 9)),
                                security: .srtp(local: try SRTPKeyingMaterial(keyAndSalt: key)), clock: .system)
        let sender = try RTPStreamSender(configuration: .init(ssrc: 1, payloadType: 96, clockRate: 90_000, mid: "0",
                                                              rid: "f", initialSequenceNumber: 1), path: path)
        let payload = [UInt8](repeating: 0x42, count: 1100)
        var frame = EncodedFrame(spatialIndex: 0, width: 1280, height: 720, temporalId: 0, layerSync: false,
                                 keyFrame: false, rtpTimestamp: 0, data: [UInt8](repeating: 0x10, count: 9000))
        frame.data[0] = 0x11
        var packetizer = VP8Packetizer(initialPictureID: 1, initialTL0PicIdx: 1)
        var failure: PublisherError?
        func sendFrame() throws {
            try packetizer.packetize(frame) { piece, isLast in
                do throws(PublisherError) { try sender.send(payload: piece, timestamp: frame.rtpTimestamp, marker: isLast) }
                catch { failure = error }
            }
            if let failure { throw failure }
        }
        // Warm up: fill the 512-slot history twice, grow every reused buffer.
        for index in 0..<1024 { try sender.send(payload: payload[...], timestamp: UInt32(index), marker: true) }
        for _ in 0..<64 { try sendFrame() }

        let packets = 2000
        alloc_counter_reset()
        for index in 0..<packets { try sender.send(payload: payload[...], timestamp: UInt32(index), marker: true) }
        let sendAllocations = alloc_counter_get()

        let before = sender.packetCount
        alloc_counter_reset()
        for _ in 0..<200 { try sendFrame() }
        let frameAllocations = alloc_counter_get()
        let framePackets = Int(sender.packetCount - before)

        let audioReceive = try audioReceiveAllocations(packets: 1000)

        guard let reference = key.withUnsafeBufferPointer({ cref_srtp_create($0.baseAddress) }) else {
            throw ValidationError(message: "cref_srtp_create failed")
        }
        defer { cref_srtp_destroy(reference) }
        var packet = [UInt8](repeating: 0x33, count: 1200)
        packet[0] = 0x80; packet[1] = 96
        var scratch = [UInt8](repeating: 0, count: 1200 + SRTPSession.maxTrailerLength)
        let capacity = Int32(scratch.count)
        func cLoop(_ count: Int) -> Int32 {
            packet.withUnsafeBufferPointer { source in
                scratch.withUnsafeMutableBufferPointer { buffer in
                    cref_srtp_protect_loop(reference, source.baseAddress, 1200, buffer.baseAddress, capacity, Int32(count))
                }
            }
        }
        _ = cLoop(64)
        alloc_counter_reset()
        let status = cLoop(packets)
        let cAllocations = alloc_counter_get()
        guard status == 0 else { throw ValidationError(message: "srtp_protect failed: \(status)") }
        let baseline = Double(cAllocations) / Double(packets)
        let perSend = Double(sendAllocations) / Double(packets)
        let perFramePacket = Double(frameAllocations) / Double(max(1, framePackets))
        let report = Report(rtpSend: Window(packets: packets, allocations: sendAllocations),
                            vp8Frame: Window(packets: framePackets, allocations: frameAllocations),
                            audioReceive: audioReceive,
                            cSRTPProtect: Window(packets: packets, allocations: cAllocations),
                            engineAllocationsPerPacket: max(perSend, perFramePacket) - baseline,
                            counterSelfCheck: selfCheck)
        print("Steady-state heap allocations per packet (interposed allocator):")
        print("  RTPStreamSender.send (header + extensions, history, SRTP, transport): \(MarkdownTable.fmt(perSend, 2))")
        print("  VP8Packetizer.packetize + send, 9 KB frames: \(MarkdownTable.fmt(perFramePacket, 2))")
        print("  AudioReceiver.receive into the playout jitter buffer: "
              + MarkdownTable.fmt(Double(audioReceive.allocations) / Double(audioReceive.packets), 2))
        print("  C loop calling srtp_protect directly (libsrtp2 + NSS baseline): \(MarkdownTable.fmt(baseline, 2))")
        print("  engine allocations per packet over the baseline: \(MarkdownTable.fmt(report.engineAllocationsPerPacket, 2))")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        print(String(decoding: try encoder.encode(report), as: UTF8.self))
    }

    /// Allocations inside `AudioReceiver.receive` alone, in steady state: real Opus packets (20 ms
    /// of a tone each) arriving every 20 ms while the receiver plays out, after a warm-up that
    /// had every slot of the jitter buffer hold each payload size once.
    static func audioReceiveAllocations(packets: Int) throws -> Window {
        let encoder = try OpusEncoder()
        let signal = TestSignal()
        var output = [UInt8](repeating: 0, count: OpusEncoder.maxPacketSize)
        let payloads = try (0..<50).map { index in
            let length = try encoder.encode(signal.frame(index), into: &output)
            return Array(output[0..<length])
        }
        let receiver = try AudioReceiver()
        receiver.startPlayout()
        let warmUp = 2_048  // every slot of the buffer has held each payload size
        var allocations: Int64 = 0
        for index in 0..<(warmUp + packets) {
            let now = Int64(index) * 20_000
            let packet = RTPPacket(header: RTPHeader(payloadType: 111, sequenceNumber: UInt16(truncatingIfNeeded: index),
                                                     timestamp: UInt32(truncatingIfNeeded: index * 960), ssrc: 7),
                                   payload: payloads[index % payloads.count])
            let before = alloc_counter_get()
            receiver.receive(packet, arrivalMicroseconds: now)
            if index >= warmUp { allocations += alloc_counter_get() - before }
            _ = receiver.playOut(nowMicroseconds: now)
        }
        return Window(packets: packets, allocations: allocations)
    }
}
