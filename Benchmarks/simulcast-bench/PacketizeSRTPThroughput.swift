import CommandLineSupport
import CReference
import Foundation
import SRTP

/// `simulcast-bench srtp`: SRTP protect throughput of `SRTPSession` against libsrtp's
/// `srtp_protect` called directly from C (Benchmarks/CReference/srtp_reference.c), for the same
/// packet, suite and per-packet copy, measured in alternating batches in one run.
struct SRTPThroughputReport: Codable, Sendable {
    struct Side: Codable, Sendable {
        /// Thread CPU ns per protected packet (over the batches).
        var nsPerPacket: Distribution
        var packetsPerSecond: Double
        var gigabitsPerSecond: Double
    }

    var packetBytes: Int
    var packetsPerBatch: Int
    var batches: Int
    var suite: String
    var machine: MachineInfo
    var schedule: String
    var swift: Side
    var c: Side
    /// Swift ns / C ns per batch pair (1.0 = same speed; >1 = Swift slower).
    var swiftOverC: Distribution
    /// Every suite the installed libsrtp supports, `SRTPSession` protect of the same packet,
    /// batches interleaved round-robin in the same run.
    var suites: [String: Side]
}

let srtpUsage = """
usage: simulcast-bench srtp [--packets N] [--repeat R] [--size BYTES] [--json PATH]
  SRTP protect CPU time per packet: SRTPSession next to a direct libsrtp C loop, batches interleaved,
  then every suite the installed libsrtp supports side by side on the same packet.
  --packets N    packets per batch (default 5000)
  --repeat R     batches per side (default 20)
  --size BYTES   RTP packet size, 12...1400 (default 1200)
  --json PATH    the distributions as JSON
"""

func runSRTP(_ arguments: ArraySlice<String>) throws {
    let options = try CommandLineArguments(arguments, valueOptions: ["packets", "repeat", "size", "json"])
    let packets = try options.int("packets", default: 5000, range: 1...10_000_000)
    let repeats = try options.int("repeat", default: 20, range: 1...10_000)
    let size = try options.int("size", default: 1200, range: 12...1400)

    let key = (0..<30).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 5) }
    let session = try SRTPSession(direction: .outbound, keyingMaterial: SRTPKeyingMaterial(keyAndSalt: key))
    guard let reference = key.withUnsafeBufferPointer({ cref_srtp_create($0.baseAddress) }) else {
        throw ValidationError(message: "cref_srtp_create failed")
    }
    defer { cref_srtp_destroy(reference) }

    // A 1200-byte RTP packet: V=2, PT 96, SSRC 0x01020304, patterned payload.
    var packet = [UInt8](repeating: 0, count: size)
    packet[0] = 0x80; packet[1] = 96
    packet[8] = 1; packet[9] = 2; packet[10] = 3; packet[11] = 4
    for index in 12..<size { packet[index] = UInt8(truncatingIfNeeded: index &* 7) }
    var output = [UInt8](repeating: 0, count: size + SRTPSession.maxTrailerLength)
    var scratch = [UInt8](repeating: 0, count: size + SRTPSession.maxTrailerLength)
    var sequence: UInt16 = 0

    /// Thread CPU ns per packet of one batch through `session`, the sequence number counting on.
    func protectBatch(_ session: SRTPSession) throws -> Double {
        let start = threadCPUNanoseconds()
        for _ in 0..<packets {
            packet[2] = UInt8(truncatingIfNeeded: sequence >> 8)
            packet[3] = UInt8(truncatingIfNeeded: sequence)
            sequence &+= 1
            _ = try session.protectRTP(packet, into: &output)
        }
        return Double(threadCPUNanoseconds() - start) / Double(packets)
    }

    func swiftBatch() throws -> Double { try protectBatch(session) }

    func cBatch() throws -> Double {
        let capacity = Int32(scratch.count)
        let start = threadCPUNanoseconds()
        let status = packet.withUnsafeBufferPointer { source in
            scratch.withUnsafeMutableBufferPointer { buffer in
                cref_srtp_protect_loop(reference, source.baseAddress, Int32(size), buffer.baseAddress, capacity, Int32(packets))
            }
        }
        let elapsed = threadCPUNanoseconds() - start
        guard status == 0 else { throw ValidationError(message: "srtp_protect failed with status \(status)") }
        return Double(elapsed) / Double(packets)
    }

    _ = try swiftBatch(); _ = try cBatch()  // warm up caches and key schedules
    var swiftSamples: [Double] = [], cSamples: [Double] = [], ratios: [Double] = []
    for r in 0..<repeats {
        // Alternate which side goes first so neither always runs on a warmer core.
        let s: Double, c: Double
        if r % 2 == 0 {
            s = try swiftBatch()
            c = try cBatch()
        } else {
            c = try cBatch()
            s = try swiftBatch()
        }
        swiftSamples.append(s)
        cSamples.append(c)
        ratios.append(s / c)
    }
    func side(_ samples: [Double]) -> SRTPThroughputReport.Side {
        let distribution = Distribution(samples)
        let pps = 1e9 / distribution.median
        return .init(nsPerPacket: distribution, packetsPerSecond: pps, gigabitsPerSecond: pps * Double(size) * 8 / 1e9)
    }
    // Every supported suite side by side: one session each, batches round-robin.
    var suiteSamples: [SRTPSuite: [Double]] = [:]
    var sessions: [(SRTPSuite, SRTPSession)] = []
    for suite in SRTPSuite.supported {
        let material = try SRTPKeyingMaterial(suite: suite, keyAndSalt: (0..<suite.keyingMaterialLength).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) })
        sessions.append((suite, try SRTPSession(direction: .outbound, keyingMaterial: material)))
    }
    for r in 0..<repeats {
        for index in sessions.indices {
            let (suite, suiteSession) = sessions[(index + r) % sessions.count]
            suiteSamples[suite, default: []].append(try protectBatch(suiteSession))
        }
    }
    var suites: [String: SRTPThroughputReport.Side] = [:]
    for (suite, samples) in suiteSamples { suites[suite.rawValue] = side(samples) }
    let report = SRTPThroughputReport(
        packetBytes: size, packetsPerBatch: packets, batches: repeats, suite: SRTPSuite.default.rawValue,
        machine: .current(),
        schedule: "Swift and C batches alternate (order flipped every repeat); ratio per batch pair; thread CPU time.",
        swift: side(swiftSamples), c: side(cSamples), swiftOverC: Distribution(ratios), suites: suites)

    func f(_ value: Double, _ decimals: Int) -> String { MarkdownTable.fmt(value, decimals) }
    print("SRTP protect, \(size)-byte RTP packets, \(SRTPSuite.default), \(repeats) × \(packets) packets per side, "
        + "\(report.machine.cpus) CPUs (\(report.machine.cpuModel))")
    print("")
    print("| side | ns/packet median | p95 | min | packets/s | Gbit/s |")
    print("|---|---:|---:|---:|---:|---:|")
    for (name, s) in [("Swift SRTPSession", report.swift), ("C srtp_protect loop", report.c)] {
        print("| \(name) | \(f(s.nsPerPacket.median, 0)) | \(f(s.nsPerPacket.p95, 0)) | \(f(s.nsPerPacket.min, 0)) | "
            + "\(f(s.packetsPerSecond, 0)) | \(f(s.gigabitsPerSecond, 2)) |")
    }
    print("")
    print("Swift / C time per packet: median \(f(report.swiftOverC.median, 3)), "
        + "min \(f(report.swiftOverC.min, 3)), p95 \(f(report.swiftOverC.p95, 3)), max \(f(report.swiftOverC.max, 3))")
    print("")
    print("Every suite (SRTPSession protect, batches round-robin):")
    print("")
    print("| suite | ns/packet median | p95 | Gbit/s |")
    print("|---|---:|---:|---:|")
    for suite in SRTPSuite.supported {
        guard let s = report.suites[suite.rawValue] else { continue }
        print("| \(suite) | \(f(s.nsPerPacket.median, 0)) | \(f(s.nsPerPacket.p95, 0)) | \(f(s.gigabitsPerSecond, 2)) |")
    }
    // The figure the README and `send --help` quote, from this run (it moves between runs).
    if let cm = report.suites[SRTPSuite.aesCm128HmacSha1_80.rawValue], let gcm = report.suites[SRTPSuite.aeadAes128Gcm.rawValue] {
        print("")
        print("AEAD_AES_128_GCM protects a \(size)-byte packet \(f(cm.nsPerPacket.median / gcm.nsPerPacket.median, 1))x faster "
            + "than AES_CM_128_HMAC_SHA1_80 in this run (medians; \(MachineInfo.current().sentence))")
    }
    if let path = options.string("json") { try writeJSON(report, to: path) }
}
