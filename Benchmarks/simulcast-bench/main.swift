import CommandLineSupport
import Foundation
import MediaCodecs
import Simulcast

/// `simulcast-bench encode`: per-frame encode cost of MAX_LAYER_2 vs MAX_LAYER_3 (and the
/// rest), side by side in one run. `simulcast-bench wire`: ns and heap allocations per op of the
/// RTP/VP8 wire hot paths (WireBenchmark.swift). `simulcast-bench forward`: CPU ns and heap
/// allocations per packet the ForwardingNode forwards to 1/8/64 subscribers (ForwardBenchmark.swift).
let usage = """
usage: simulcast-bench encode [--input FILE.y4m] [--frames N] [--size WxH] [--repeat R]
                              [--json PATH] [--markdown PATH] [--svg PATH] [--only NAME,...]
       simulcast-bench wire [--iterations N] [--runs R] [--json PATH]
       simulcast-bench srtp [--packets N] [--repeat R] [--size BYTES] [--json PATH]
       simulcast-bench allocations
       simulcast-bench forward [--subscribers 1,8,64] [--frames N] [--size WxH] [--rounds R] [--json PATH] [--quick]
       simulcast-bench cc-eval [--cases 5.1,5.2,loss5|smoke] [--out DIR] [--size WxH] [--require CHECK,...|all]
"""

let configurationOrder = ["single", "max_layer_2", "max_layer_3", "max_layer_2_independent",
                          "max_layer_3_independent", "c_reference_max_layer_3"]

func runEncode(_ arguments: ArraySlice<String>) throws {
    let options = try CommandLineArguments(arguments, valueOptions: ["input", "frames", "size", "repeat", "json",
                                                                     "markdown", "svg", "only"])
    let frameCount = try options.int("frames", default: 300, range: 1...100_000)
    let repeats = try options.int("repeat", default: 5, range: 1...1000)
    let size = try options.size("size", default: (1280, 720))
    let three = try LayerPlan(width: size.width, height: size.height)
    let two = try LayerPlan(width: size.width, height: size.height, maxLayer: .two)
    let single = try LayerPlan(width: size.width, height: size.height, multiStream: false)
    let top = three.top

    let source = try options.string("input").map { try VideoSource(y4mPath: $0, width: top.width, height: top.height) }
        ?? VideoSource(testSceneWidth: top.width, height: top.height)
    var frames: [VideoFrame] = []
    while frames.count < frameCount, let frame = try source.nextFrame() { frames.append(frame) }
    guard !frames.isEmpty else { throw ValidationError(message: "\(source.name) holds no frames") }
    let inputName = source.name

    let allConfigurations: [EncodeBenchmark.Configuration] = [
        .init(name: "single", plan: single, make: MultiResolutionPipeline.init, measurePacketizeProtect: true),
        .init(name: "max_layer_2", plan: two, make: MultiResolutionPipeline.init, measurePacketizeProtect: true),
        .init(name: "max_layer_3", plan: three, make: MultiResolutionPipeline.init, measurePacketizeProtect: true),
        .init(name: "max_layer_2_independent", plan: two, make: IndependentEncodersPipeline.init),
        .init(name: "max_layer_3_independent", plan: three, make: IndependentEncodersPipeline.init),
        .init(name: "c_reference_max_layer_3", plan: three, make: CReferencePipeline.init),
    ]
    // `--only a,b` runs a subset (e.g. one configuration under callgrind); ratios need both sides.
    let only = options.string("only").map { Set($0.split(separator: ",").map(String.init)) }
    if let only, let unknown = only.subtracting(configurationOrder).first {
        throw ValidationError(message: "--only \(unknown): expected names from \(configurationOrder.joined(separator: ","))")
    }
    let configurations = allConfigurations.filter { only?.contains($0.name) ?? true }
    let benchmark = EncodeBenchmark(frames: frames, repeats: repeats)
    var progress = ProgressBar(total: configurations.count * repeats)
    let results = try benchmark.run(configurations, progress: &progress)
    let report = benchmark.report(results, input: inputName, size: "\(top.width)x\(top.height)")

    print(MarkdownTable.render(report, order: configurationOrder))
    if let path = options.string("json") {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try write(try encoder.encode(report), to: path)
    }
    if let path = options.string("markdown") {
        try write(Data(MarkdownTable.render(report, order: configurationOrder).utf8), to: path)
    }
    if let path = options.string("svg") {
        try write(Data(BarChart.render(report, order: configurationOrder).utf8), to: path)
    }
}

struct ValidationError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

func write(_ data: Data, to path: String) throws {
    let url = URL(fileURLWithPath: path)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try data.write(to: url)
}

let arguments = CommandLine.arguments.dropFirst()
do {
    switch arguments.first {
    case "encode": try runEncode(arguments.dropFirst())
    case "wire": try runWire(arguments.dropFirst())
    case "srtp": try runSRTP(arguments.dropFirst())
    case "allocations": try AllocationCount.run(arguments.dropFirst())
    case "forward": try runForward(arguments.dropFirst())
    case "cc-eval": try runCongestionEvaluation(arguments.dropFirst())
    default:
        writeToStandardError(usage + "\n")
        exit(2)
    }
} catch {
    writeToStandardError("simulcast-bench: \(error)\n")
    exit(1)
}
