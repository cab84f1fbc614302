import CommandLineSupport
import Foundation
import MediaCodecs
import Simulcast

/// `simulcast-bench encode`: per-frame encode cost of MAX_LAYER_2 vs MAX_LAYER_3 (and the
/// rest), side by side in one run. `simulcast-bench wire`: ns and heap allocations per op of the
/// RTP/VP8 wire hot paths (WireBenchmark.swift). `simulcast-bench forward`: CPU ns and heap
/// allocations per packet the ForwardingNode forwards to 1/8/64 subscribers (ForwardBenchmark.swift).
/// `simulcast-bench screen`: the screen-share track next to the camera pipeline (ScreenShareBenchmark.swift).
/// `simulcast-bench charts`: the SVGs again from committed JSON results (Charts.swift).
// Globals in main.swift are set in order: this one is used by the usage below.
let configurationOrder = ["single", "max_layer_2", "max_layer_3", "max_layer_2_independent",
                          "max_layer_3_independent", "c_reference_max_layer_3"]

let usage = """
usage: simulcast-bench <command> [options]
  encode       CPU time and callgrind instructions per frame of every encoder configuration, two clips
  wire         ns and heap allocations per op of RTP parse/build, VP8 packetize/assemble, RTCP
  srtp         SRTP protect throughput of SRTPSession next to a direct libsrtp C loop, then every suite
  allocations  heap allocations per packet on the send path (packetize, RTP, SRTP) over libsrtp's own
  forward      CPU ns and heap allocations per packet ForwardingNode forwards to 1/8/64 subscribers
  receive      CPU ns and heap allocations per packet a Subscriber receives (SRTP GCM, 720p three layers) next to one unprotect
  cc-eval      congestion control on a simulated bottleneck (RFC 8867 cases, RFC 8868 metrics), JSON + SVG
  screen       the screen-share track on the generated screen next to the camera pipeline
  charts       redraw the SVG charts from the JSON results of encode and cc-eval (no measuring)
  idle         wake-ups a second and CPU % of an idle engine (room, camera, no frames) next to a sleeping process
  call         CPU of a 1:1 720p call (3 layers, Opus both ways) split into libvpx/libopus/libyuv/libsrtp, kernel and the rest
  relay        CPU ns and heap allocations per packet sent through a TURN relay (ChannelData) next to a direct send
run `simulcast-bench <command> --help` for its options
"""

let encodeUsage = """
usage: simulcast-bench encode [--input FILE.y4m | --clips scene,noisy-pan] [--frames N] [--size WxH] [--repeat R]
                              [--seed N] [--instructions callgrind|off] [--instruction-frames N]
                              [--json PATH] [--markdown PATH] [--svg PATH] [--only NAME,...]
  --input FILE.y4m        measure this clip instead of the generated ones
  --clips NAMES           generated clips: scene (the built-in test scene), noisy-pan (camera-like); default both
  --frames N              frames per timed run (default 300; `make bench` uses 150)
  --size WxH              top layer size (default 1280x720)
  --repeat R              timed repeats, the configurations in a seeded random order each time (default 5)
  --seed N                the order's seed (default 1)
  --instructions callgrind|off  also count instructions per frame under valgrind's callgrind (default off)
  --instruction-frames N  frames per callgrind run, the key frame not counted (default 30)
  --json PATH, --markdown PATH, --svg PATH  write the report, its tables, its chart
  --only NAME,...         run only these configurations: \(configurationOrder.joined(separator: ","))
"""

/// The configurations `encode` compares, for one top size.
func encodeConfigurations(size: (width: Int, height: Int)) throws -> [EncodeBenchmark.Configuration] {
    let three = try LayerPlan(width: size.width, height: size.height)
    let two = try LayerPlan(width: size.width, height: size.height, maxLayer: .two)
    let single = try LayerPlan(width: size.width, height: size.height, multiStream: false)
    return [
        .init(name: "single", plan: single, make: MultiResolutionPipeline.init, measurePacketizeProtect: true),
        .init(name: "max_layer_2", plan: two, make: MultiResolutionPipeline.init, measurePacketizeProtect: true),
        .init(name: "max_layer_3", plan: three, make: MultiResolutionPipeline.init, measurePacketizeProtect: true),
        .init(name: "max_layer_2_independent", plan: two, make: IndependentEncodersPipeline.init),
        .init(name: "max_layer_3_independent", plan: three, make: IndependentEncodersPipeline.init),
        .init(name: "c_reference_max_layer_3", plan: three, make: CReferencePipeline.init),
    ]
}

/// `--only a,b` runs a subset (e.g. one configuration under callgrind); ratios need both sides.
func selectConfigurations(_ options: CommandLineArguments, size: (width: Int, height: Int)) throws
    -> [EncodeBenchmark.Configuration] {
    let only = options.string("only").map { Set($0.split(separator: ",").map(String.init)) }
    if let only, let unknown = only.subtracting(configurationOrder).first {
        throw ValidationError(message: "--only \(unknown): expected names from \(configurationOrder.joined(separator: ","))")
    }
    return try encodeConfigurations(size: size).filter { only?.contains($0.name) ?? true }
}

func runEncode(_ arguments: ArraySlice<String>) throws {
    let started = Date()
    let options = try CommandLineArguments(arguments, valueOptions: ["input", "clips", "frames", "size", "repeat", "json",
                                                                     "markdown", "svg", "only", "seed", "instructions",
                                                                     "instruction-frames"])
    let frameCount = try options.int("frames", default: 300, range: 1...100_000)
    let repeats = try options.int("repeat", default: 5, range: 1...1000)
    let seed = UInt64(try options.int("seed", default: 1, range: 0...Int.max))
    let instructionFrames = try options.int("instruction-frames", default: 30, range: 2...100_000)
    let countInstructions: Bool
    switch options.string("instructions") ?? "off" {
    case "off": countInstructions = false
    case "callgrind": countInstructions = true
    case let other: throw ValidationError(message: "--instructions \(other): expected callgrind or off")
    }
    let size = try options.size("size", default: (1280, 720))
    let top = try LayerPlan(width: size.width, height: size.height).top
    let inputs: [EncodeInput]
    if let path = options.string("input") {
        inputs = [.file(path)]
    } else {
        let names = options.string("clips").map { $0.split(separator: ",").map(String.init) } ?? EncodeInput.generatedNames
        if let unknown = names.first(where: { !EncodeInput.generatedNames.contains($0) }) {
            throw ValidationError(message: "--clips \(unknown): expected names from \(EncodeInput.generatedNames.joined(separator: ","))")
        }
        inputs = names.map(EncodeInput.init(argument:))
    }
    let configurations = try selectConfigurations(options, size: (top.width, top.height))

    // Every clip's timed run first, then the callgrind children of all clips at once: nothing
    // of ours runs beside the timed loops.
    var timed: [(benchmark: EncodeBenchmark, results: [String: EncodeBenchmark.Samples], name: String)] = []
    for input in inputs {
        let (frames, inputName) = try input.frames(count: frameCount, width: top.width, height: top.height)
        guard !frames.isEmpty else { throw ValidationError(message: "\(inputName) holds no frames") }
        let benchmark = EncodeBenchmark(frames: frames, repeats: repeats, seed: seed)
        var progress = ProgressBar(total: configurations.count * repeats)
        timed.append((benchmark, try benchmark.run(configurations, progress: &progress), inputName))
    }
    var instructions: [[String: Double]?] = Array(repeating: nil, count: inputs.count)
    if countInstructions {
        writeToStandardError("counting instructions under callgrind (\(instructionFrames) frames of "
            + "\(inputs.map(\.argument).joined(separator: ", ")), one valgrind per clip)...\n")
        instructions = try CallgrindCounter.count(inputs: inputs, frames: instructionFrames, size: (top.width, top.height),
                                                  names: configurations.map(\.name), seed: seed)
    }
    var reports: [EncodeReport] = []
    for (index, run) in timed.enumerated() {
        var report = run.benchmark.report(run.results, input: run.name, size: "\(top.width)x\(top.height)",
                                          instructions: instructions[index])
        if countInstructions {
            report.instructionCounter = "valgrind callgrind, instructions per frame over frames 1-\(instructionFrames - 1) "
                + "(frame 0, the key frame, not counted), a run of its own in the same seeded order"
        }
        reports.append(report)
    }
    var report = reports[0]
    if reports.count > 1 { report.otherInputs = Array(reports.dropFirst()) }

    let markdown = MarkdownTable.render(report, order: configurationOrder)
    print(markdown)
    if let path = options.string("json") { try writeJSON(report, to: path) }
    if let path = options.string("markdown") {
        try write(Data(markdown.utf8), to: path)
    }
    if let path = options.string("svg") {
        try write(Data(BarChart.render(report, order: configurationOrder).utf8), to: path)
    }
    // How long a run takes depends on the machine and its load: say it rather than promise it.
    print("simulcast-bench encode: \(inputs.count) clip(s), \(configurations.count) configurations, "
        + "\(MarkdownTable.fmt(Date().timeIntervalSince(started), 1)) s on \(report.machine.sentence)")
}

/// `encode-instructions`: the child `CallgrindCounter` runs under valgrind.
func runEncodeInstructions(_ arguments: ArraySlice<String>) throws {
    let options = try CommandLineArguments(arguments, valueOptions: ["input", "frames", "size", "only", "seed"])
    let frameCount = try options.int("frames", default: 30, range: 2...100_000)
    let seed = UInt64(try options.int("seed", default: 1, range: 0...Int.max))
    let size = try options.size("size", default: (1280, 720))
    let input = EncodeInput(argument: options.string("input") ?? "scene")
    let (frames, name) = try input.frames(count: frameCount, width: size.width, height: size.height)
    // The parent divides by frameCount - 1: a clip that ends sooner would make the counts wrong.
    guard frames.count == frameCount else {
        throw ValidationError(message: "\(name) holds \(frames.count) frames, --instruction-frames asks for \(frameCount)")
    }
    let configurations = try selectConfigurations(options, size: size)
    let order = EncodeBenchmark(frames: frames, repeats: 1, seed: seed).schedule(configurations)[0]
    try CallgrindCounter.measure(order, frames: frames)
}

struct ValidationError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// `value` as sorted, pretty-printed JSON at `path` (directories made as needed).
func writeJSON(_ value: some Encodable, to path: String) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try write(try encoder.encode(value), to: path)
}

func write(_ data: Data, to path: String) throws {
    let url = URL(fileURLWithPath: path)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try data.write(to: url)
}

let subcommands: [BenchSubcommand] = [
    BenchSubcommand(name: "encode", usage: encodeUsage, run: runEncode),
    BenchSubcommand(name: "wire", usage: wireUsage, run: runWire),
    BenchSubcommand(name: "srtp", usage: srtpUsage, run: runSRTP),
    BenchSubcommand(name: "allocations", usage: AllocationCount.usage, run: AllocationCount.run),
    BenchSubcommand(name: "forward", usage: forwardUsage, run: runForward),
    BenchSubcommand(name: "receive", usage: receiveUsage, run: runReceive),
    BenchSubcommand(name: "cc-eval", usage: congestionEvaluationUsage, run: runCongestionEvaluation),
    BenchSubcommand(name: "screen", usage: screenShareUsage, run: runScreenShare),
    BenchSubcommand(name: "charts", usage: chartsUsage, run: runCharts),
    BenchSubcommand(name: "idle", usage: idleUsage, run: runIdle),
    BenchSubcommand(name: "call", usage: callUsage, run: runCall),
    BenchSubcommand(name: "relay", usage: RelaySendCost.usage, run: RelaySendCost.run),
    // The child `CallgrindCounter` starts under valgrind; not for people.
    BenchSubcommand(name: CallgrindCounter.subcommand, usage: "internal: run by `encode --instructions callgrind`",
                    run: runEncodeInstructions),
]

let arguments = CommandLine.arguments.dropFirst()
do {
    if let name = arguments.first, let subcommand = subcommands.first(where: { $0.name == name }) {
        if try !subcommand(arguments.dropFirst()) { print(subcommand.usage) }
    } else if let first = arguments.first, CommandLineArguments.helpSpellings.contains(first) || first == "help" {
        print(usage)
    } else {
        writeToStandardError(usage + "\n")
        exit(2)
    }
} catch {
    writeToStandardError("simulcast-bench: \(error)\n")
    exit(1)
}
