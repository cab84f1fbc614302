import CommandLineSupport
import Foundation
import RTPWire

let wireUsage = """
usage: simulcast-bench wire [--iterations N] [--runs R] [--json PATH] [--packet-out PATH]
  N: packets per timed run (default 100000); frame operations run ceil(N / packets per frame) frames.
  R: timed runs per operation after one untimed warm-up run (default 11); ns/op is the median over runs.
  --json PATH: every operation's numbers as JSON.
  --packet-out: also write the rtp_parse packet's bytes there (what Benchmarks/GoRTPParseComparison parses).
  Quote a release build's numbers (`swift run -c release`); a debug build only shows that every operation runs.
"""

/// `simulcast-bench wire`: ns/op and heap allocations/op of the RTP/VP8 wire hot paths.
struct WireBenchmark {
    /// Packet-level iterations per timed run.
    var iterations: Int
    var runs: Int

    /// Iterations for an operation that handles `packets` packets per iteration.
    func frameIterations(packets: Int) -> Int { max(1, (iterations + packets - 1) / packets) }

    func run(_ fixtures: WireFixtures) throws -> [WireResult] {
        var results: [WireResult] = []
        let packets = fixtures.packetsPerFrame

        let packetBytes = fixtures.packet.count
        let dataBytes = fixtures.payloads[0].count - VP8Packetizer.descriptorLength
        var parse = ParseOperation(packet: fixtures.packet, map: fixtures.map)
        results.append(try measureWire(
            &parse, name: "rtp_parse",
            detail: "\(packetBytes) B packet: RTPPacket(parsing:) + MID, RID, abs-send-time, transport-cc values + VP8 descriptor",
            unit: "packet", iterations: iterations, runs: runs))

        var view = try ViewParseOperation(packet: fixtures.packet, map: fixtures.map, allExtensions: false)
        results.append(try measureWire(
            &view, name: "rtp_view_parse",
            detail: "\(packetBytes) B packet: RTPPacketView + abs-send-time, transport-cc by id + VP8 descriptor (pion's operation)",
            unit: "packet", iterations: iterations, runs: runs))

        var viewAll = try ViewParseOperation(packet: fixtures.packet, map: fixtures.map, allExtensions: true)
        results.append(try measureWire(
            &viewAll, name: "rtp_view_parse_4ext",
            detail: "the same + MID and RID as views of the packet",
            unit: "packet", iterations: iterations, runs: runs))

        var serialize = try SerializeOperation(fixtures: fixtures)
        results.append(try measureWire(
            &serialize, name: "rtp_serialize",
            detail: "header + 4 extensions via appender + VP8 descriptor + \(dataBytes) B data into a reused buffer",
            unit: "packet", iterations: iterations, runs: runs))

        var packetize = PacketizeOperation(frame: fixtures.frame)
        let packetized = try measureWire(
            &packetize, name: "vp8_packetize_frame",
            detail: "\(fixtures.frame.data.count) B 1280x720 key frame into \(packets) payloads of ≤\(WireFixtures.payloadBudget) B",
            unit: "frame", iterations: frameIterations(packets: packets), runs: runs)
        results.append(packetized)
        results.append(packetized.divided(by: packets, name: "vp8_packetize_packet",
                                          detail: "the same, per payload", unit: "packet"))

        var assemble = AssembleOperation(fixtures: fixtures)
        let assembled = try measureWire(
            &assemble, name: "vp8_assemble_frame",
            detail: "VP8FrameAssembler fed the \(packets) packets of the key frame, returns the frame",
            unit: "frame", iterations: frameIterations(packets: packets), runs: runs)
        results.append(assembled)
        results.append(assembled.divided(by: packets, name: "vp8_assemble_packet",
                                         detail: "the same, per packet inserted", unit: "packet"))
        return results
    }
}

func runWire(_ arguments: ArraySlice<String>) throws {
    let options = try CommandLineArguments(arguments, valueOptions: ["iterations", "runs", "json", "packet-out"])
    let benchmark = WireBenchmark(iterations: try options.int("iterations", default: 100_000, range: 1...100_000_000),
                                  runs: try options.int("runs", default: 11, range: 1...1000))
    let selfCheck = allocationCounterSelfCheck(count: 64)
    guard selfCheck >= 1 else {
        throw ValidationError(message: "allocation counter is not counting ([Int](repeating:count:) showed 0 allocations)")
    }
    let fixtures = try WireFixtures()
    if let path = options.string("packet-out") { try write(Data(fixtures.packet), to: path) }
    let results = try benchmark.run(fixtures)
    let rtcp = try benchmark.measureRTCP()
    let machine = MachineInfo.current()
    let build = MachineInfo.buildConfiguration

    var lines: [String] = []
    lines.append("simulcast-bench wire (\(build) build): \(benchmark.iterations) packets per run, "
        + "\(benchmark.runs) timed runs after 1 warm-up run, \(machine.cpus) CPUs (\(machine.cpuModel)).")
    lines.append("Allocation counter self-check: [Int](repeating:count: 64) counted \(selfCheck) allocation(s).")
    lines.append("")
    lines.append("| op | per | ns/op median | ns/op min | allocs/op | frees/op | bytes/op | what |")
    lines.append("|---|---|---:|---:|---:|---:|---:|---|")
    for result in results + rtcp {
        lines.append("| \(result.name) | \(result.unit) | \(MarkdownTable.fmt(result.nsPerOp.median, 1)) | "
            + "\(MarkdownTable.fmt(result.nsPerOp.min, 1)) | \(MarkdownTable.fmt(result.allocationsPerOp, 3)) | "
            + "\(MarkdownTable.fmt(result.freesPerOp, 3)) | \(MarkdownTable.fmt(result.allocatedBytesPerOp, 0)) | "
            + "\(result.detail) |")
    }
    print(lines.joined(separator: "\n"))

    if let path = options.string("json") {
        let operations: [JSONValue] = (results + rtcp).map { result in
            .object([
                ("name", .string(result.name)),
                ("detail", .string(result.detail)),
                ("unit", .string(result.unit)),
                ("iterations", .int(result.iterations)),
                ("opsPerIteration", .int(result.opsPerIteration)),
                ("runs", .int(result.runs)),
                ("nsPerOp", .object([("median", .double(result.nsPerOp.median)),
                                     ("min", .double(result.nsPerOp.min)),
                                     ("max", .double(result.nsPerOp.max))])),
                ("cpuNsPerOp", .object([("median", .double(Distribution(result.cpuNsSamples).median)),
                                        ("min", .double(Distribution(result.cpuNsSamples).min))])),
                ("allocationsPerOp", .double(result.allocationsPerOp)),
                ("freesPerOp", .double(result.freesPerOp)),
                ("allocatedBytesPerOp", .double(result.allocatedBytesPerOp)),
            ])
        }
        let report: JSONValue = .object([
            ("benchmark", "wire"),
            ("build", .string(build)),
            ("iterations", .int(benchmark.iterations)),
            ("runs", .int(benchmark.runs)),
            ("machine", .object([("cpus", .int(machine.cpus)), ("cpuModel", .string(machine.cpuModel))])),
            ("allocationCounterSelfCheck", .int(Int(selfCheck))),
            ("operations", .array(operations)),
        ])
        try write(Data((report.serialized() + "\n").utf8), to: path)
    }
}
