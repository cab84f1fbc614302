import MediaCodecs
import RTPWire
import Simulcast

/// Runs every configuration over the same frames, interleaved round-robin per repeat
/// (A B C … A B C …) so machine drift hits all alike, and turns the samples into a report.
struct EncodeBenchmark {
    struct Configuration {
        var name: String
        var make: () throws -> EncodePipeline
    }

    struct Samples {
        var cpu: [Double] = []
        var wall: [Double] = []
        var scaling: Double = 0
        var total: Double = 0
        /// Median CPU ns per frame of each repeat (for the ratios).
        var perRepeatMedian: [Double] = []
        var bytesPerLayer: [Int] = []
        var psnrPerLayer: [Double] = []
        var layerSizes: [(width: Int, height: Int)] = []
    }

    let frames: [VideoFrame]
    let repeats: Int
    let frameRate = 30

    func run(_ configurations: [Configuration], progress: inout ProgressBar) throws -> [String: Samples] {
        var results: [String: Samples] = [:]
        for r in 0..<repeats {
            for configuration in configurations {
                let pipeline = try configuration.make()
                var samples = results[configuration.name] ?? Samples()
                var repeatCPU: [Double] = []
                var encodedByLayer = [[EncodedFrame]](repeating: [], count: pipeline.layerSizes.count)
                for frame in frames {
                    let wallStart = wallNanoseconds()
                    let cost = try pipeline.encode(frame)
                    let wall = wallNanoseconds() - wallStart
                    repeatCPU.append(Double(cost.totalNanoseconds))
                    samples.wall.append(Double(wall))
                    samples.scaling += Double(cost.scalingNanoseconds)
                    samples.total += Double(cost.totalNanoseconds)
                    if r == 0 { for f in cost.encoded { encodedByLayer[f.spatialIndex].append(f) } }
                }
                samples.cpu += repeatCPU
                samples.perRepeatMedian.append(Distribution(repeatCPU).median)
                if r == 0 {
                    // Quality is the same every repeat; score the first one, outside the timed loop.
                    samples.layerSizes = pipeline.layerSizes
                    samples.bytesPerLayer = encodedByLayer.map { $0.reduce(0) { $0 + $1.data.count } }
                    samples.psnrPerLayer = try encodedByLayer.indices.map { index in
                        try meanPSNR(encodedByLayer[index], size: pipeline.layerSizes[index])
                    }
                }
                results[configuration.name] = samples
                progress.advance(label: "\(configuration.name) repeat \(r + 1)")
            }
        }
        return results
    }

    /// Decodes a layer's frames with `VP8Decoder` and averages luma PSNR against the source
    /// scaled to the layer's size (box filter, layer to layer from the top, as encoded).
    private func meanPSNR(_ encoded: [EncodedFrame], size: (width: Int, height: Int)) throws -> Double {
        guard encoded.count == frames.count else { return .nan }
        let decoder = try VP8Decoder()
        let scaler = Scaler()
        var total = 0.0
        for (frame, source) in zip(encoded, frames) {
            guard let decoded = try decoder.decode(frame.data) else { return .nan }
            var reference = source
            var width = source.width, height = source.height
            while width > size.width {
                width /= 2; height /= 2
                var next = try VideoFrame(width: max(width, size.width), height: max(height, size.height))
                try scaler.scale(reference, into: &next)
                reference = next
            }
            if reference.width != size.width || reference.height != size.height {
                var exact = try VideoFrame(width: size.width, height: size.height)
                try scaler.scale(reference, into: &exact)
                reference = exact
            }
            total += try PSNR.luma(reference, decoded)
        }
        return total / Double(encoded.count)
    }

    func report(_ results: [String: Samples], input: String, size: String) -> EncodeReport {
        var configs: [String: EncodeReport.ConfigResult] = [:]
        let seconds = Double(frames.count) / Double(frameRate)
        for (name, samples) in results {
            let cpu = Distribution(samples.cpu)
            let layers = samples.layerSizes.indices.map { index in
                EncodeReport.LayerResult(width: samples.layerSizes[index].width, height: samples.layerSizes[index].height,
                                         kbps: Double(samples.bytesPerLayer[index]) * 8 / seconds / 1000,
                                         psnr: samples.psnrPerLayer[index])
            }
            let coreShare = cpu.median / 1e9 * Double(frameRate)
            configs[name] = EncodeReport.ConfigResult(
                cpuMsPerFrame: .init(nanoseconds: cpu), wallMsPerFrame: .init(nanoseconds: Distribution(samples.wall)),
                coreShareAt30fps: coreShare, cpuSecondsPerMinute: coreShare * 60,
                scalingShare: samples.total > 0 ? samples.scaling / samples.total : .nan, layers: layers,
                packetizeProtectMsPerFrame: nil)
        }
        func ratio(_ numerator: String, _ denominator: String) -> EncodeReport.Ratio? {
            guard let a = results[numerator]?.perRepeatMedian, let b = results[denominator]?.perRepeatMedian,
                  a.count == b.count, !a.isEmpty else { return nil }
            return EncodeReport.Ratio(perRepeat: zip(a, b).map { $0 / $1 })
        }
        var ratios: [String: EncodeReport.Ratio] = [:]
        ratios["max_layer_2_over_max_layer_3"] = ratio("max_layer_2", "max_layer_3")
        ratios["max_layer_3_over_single"] = ratio("max_layer_3", "single")
        ratios["max_layer_2_over_single"] = ratio("max_layer_2", "single")
        ratios["multi_res_over_independent_max_layer_3"] = ratio("max_layer_3", "max_layer_3_independent")
        ratios["multi_res_over_independent_max_layer_2"] = ratio("max_layer_2", "max_layer_2_independent")
        ratios["swift_over_c_reference_max_layer_3"] = ratio("max_layer_3", "c_reference_max_layer_3")
        return EncodeReport(input: input, size: size, frames: frames.count, repeat_: repeats, machine: .current(),
                            schedule: "Configurations interleaved round-robin per repeat; ratios are per-repeat median CPU ratios.",
                            configs: configs, ratios: ratios)
    }
}
