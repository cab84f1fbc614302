import MediaCodecs
import RTPWire
import Simulcast

/// Runs every configuration over the same frames, interleaved per repeat in an order shuffled by
/// a seeded generator (C A B … B C A …) so machine drift hits all alike and no configuration
/// always follows the same one, and turns the samples into a report.
struct EncodeBenchmark {
    struct Configuration {
        var name: String
        var plan: LayerPlan
        var make: (LayerPlan) throws -> EncodePipeline
        /// Also run the encoded layers through packetize + SRTP protect (`PacketizeProtectStage`)
        /// and SFrame seal + open (`E2EEFrameStage`), each timed separately from the encode.
        var measurePacketizeProtect = false
    }

    struct Samples {
        var cpu: [Double] = []
        var wall: [Double] = []
        var scaling: Double = 0
        var total: Double = 0
        /// Median CPU ns per frame of each repeat (for the ratios).
        var perRepeatMedian: [Double] = []
        var layers: [LayerQualityMeter.LayerSummary] = []
        /// Packetize + protect CPU ns per frame: all layers, and per layer (lightest first).
        var packetizeProtect: [Double] = []
        var packetizeProtectByLayer: [[Double]] = []
        /// SFrame seal + open CPU ns per frame, all layers.
        var e2ee: [Double] = []
    }

    let frames: [VideoFrame]
    let repeats: Int
    /// Seeds the order of the configurations in each repeat (`schedule`).
    let seed: UInt64
    let frameRate = 30

    /// The configurations of each repeat in the order they run: a seeded shuffle per repeat.
    func schedule(_ configurations: [Configuration]) -> [[Configuration]] {
        var generator = SplitMix64(seed: seed)
        return (0..<repeats).map { _ in configurations.shuffled(using: &generator) }
    }

    func run(_ configurations: [Configuration], progress: inout ProgressBar) throws -> [String: Samples] {
        var results: [String: Samples] = [:]
        for (r, order) in schedule(configurations).enumerated() {
            for configuration in order {
                let pipeline = try configuration.make(configuration.plan)
                let stage = configuration.measurePacketizeProtect
                    ? try PacketizeProtectStage(layerCount: configuration.plan.layers.count) : nil
                let e2eeStage = configuration.measurePacketizeProtect ? try E2EEFrameStage() : nil
                var samples = results[configuration.name] ?? Samples()
                var repeatCPU: [Double] = []
                var encodedPerFrame: [[EncodedFrame]] = []
                for frame in frames {
                    let wallStart = wallNanoseconds()
                    let cost = try pipeline.encode(frame)
                    let wall = wallNanoseconds() - wallStart
                    repeatCPU.append(Double(cost.totalNanoseconds))
                    samples.wall.append(Double(wall))
                    samples.scaling += Double(cost.scalingNanoseconds)
                    samples.total += Double(cost.totalNanoseconds)
                    encodedPerFrame.append(cost.encoded)
                }
                // Packetize + protect in a pass of its own, so it does not disturb the caches of
                // the encode loop that is compared with the C reference.
                if let stage {
                    for encoded in encodedPerFrame {
                        let perLayer = try stage.process(encoded)
                        if samples.packetizeProtectByLayer.isEmpty {
                            samples.packetizeProtectByLayer = Array(repeating: [], count: perLayer.count)
                        }
                        for (index, ns) in perLayer.enumerated() { samples.packetizeProtectByLayer[index].append(Double(ns)) }
                        samples.packetizeProtect.append(Double(perLayer.reduce(0, +)))
                    }
                }
                if let e2eeStage {
                    for encoded in encodedPerFrame { samples.e2ee.append(Double(try e2eeStage.process(encoded))) }
                }
                samples.cpu += repeatCPU
                samples.perRepeatMedian.append(Distribution(repeatCPU).median)
                if r == 0 {
                    // Quality is the same every repeat; score the first one, outside the timed loop.
                    let meter = try LayerQualityMeter(plan: configuration.plan)
                    for (encoded, source) in zip(encodedPerFrame, frames) { try meter.record(encoded, source: source) }
                    samples.layers = meter.layers
                }
                results[configuration.name] = samples
                progress.advance(label: "\(configuration.name) repeat \(r + 1)")
            }
        }
        return results
    }

    /// Ratios the report gives (timed and, when counted, in instructions): name, numerator, denominator.
    static let ratioDefinitions: [(name: String, numerator: String, denominator: String)] = [
        ("max_layer_2_over_max_layer_3", "max_layer_2", "max_layer_3"),
        ("max_layer_3_over_single", "max_layer_3", "single"),
        ("max_layer_2_over_single", "max_layer_2", "single"),
        ("multi_res_over_independent_max_layer_3", "max_layer_3", "max_layer_3_independent"),
        ("multi_res_over_independent_max_layer_2", "max_layer_2", "max_layer_2_independent"),
        ("swift_over_c_reference_max_layer_3", "max_layer_3", "c_reference_max_layer_3"),
    ]

    func report(_ results: [String: Samples], input: String, size: String,
                instructions: [String: Double]? = nil) -> EncodeReport {
        var configs: [String: EncodeReport.ConfigResult] = [:]
        for (name, samples) in results {
            let cpu = Distribution(samples.cpu)
            let layers = samples.layers.map { layer in
                EncodeReport.LayerResult(width: layer.width, height: layer.height,
                                         kbps: layer.kbps(totalFrames: frames.count, frameRate: frameRate),
                                         psnr: layer.decodeErrors == 0 ? layer.meanPSNR : .nan)
            }
            let coreShare = cpu.median / 1e9 * Double(frameRate)
            configs[name] = EncodeReport.ConfigResult(
                cpuMsPerFrame: .init(nanoseconds: cpu), wallMsPerFrame: .init(nanoseconds: Distribution(samples.wall)),
                coreShareAt30fps: coreShare, cpuSecondsPerMinute: coreShare * 60,
                scalingShare: samples.total > 0 ? samples.scaling / samples.total : .nan, layers: layers,
                packetizeProtectMsPerFrame: samples.packetizeProtect.isEmpty
                    ? nil : .init(nanoseconds: Distribution(samples.packetizeProtect)),
                packetizeProtectLayerMsPerFrame: samples.packetizeProtectByLayer.isEmpty
                    ? nil : samples.packetizeProtectByLayer.map { .init(nanoseconds: Distribution($0)) },
                packetizeProtectShareOfEncode: samples.packetizeProtect.isEmpty || samples.total <= 0
                    ? nil : samples.packetizeProtect.reduce(0, +) / samples.total,
                e2eeMsPerFrame: samples.e2ee.isEmpty ? nil : .init(nanoseconds: Distribution(samples.e2ee)),
                e2eeShareOfEncode: samples.e2ee.isEmpty || samples.total <= 0 ? nil : samples.e2ee.reduce(0, +) / samples.total)
        }
        func ratio(_ numerator: String, _ denominator: String) -> EncodeReport.Ratio? {
            guard let a = results[numerator]?.perRepeatMedian, let b = results[denominator]?.perRepeatMedian,
                  a.count == b.count, !a.isEmpty else { return nil }
            return EncodeReport.Ratio(perRepeat: zip(a, b).map { $0 / $1 })
        }
        var ratios: [String: EncodeReport.Ratio] = [:]
        var instructionRatios: [String: Double] = [:]
        for definition in Self.ratioDefinitions {
            ratios[definition.name] = ratio(definition.numerator, definition.denominator)
            if let a = instructions?[definition.numerator], let b = instructions?[definition.denominator] {
                instructionRatios[definition.name] = a / b
            }
        }
        for (name, count) in instructions ?? [:] { configs[name]?.instructionsPerFrame = count }
        return EncodeReport(input: input, size: size, frames: frames.count, repeat_: repeats, machine: .current(),
                            schedule: "Configurations interleaved per repeat in a seeded random order (seed \(seed)); "
                                + "timed ratios are per-repeat median CPU ratios.",
                            configs: configs, ratios: ratios,
                            instructionRatios: instructions == nil ? nil : instructionRatios)
    }
}
