/// The result format of `simulcast-bench encode` (written with `--json`). Field names are the
/// contract with client teams; add fields freely, never rename these.
struct EncodeReport: Codable, Sendable {
    struct MillisecondStats: Codable, Sendable {
        var median: Double
        var p95: Double
        var min: Double

        init(nanoseconds: Distribution) {
            median = nanoseconds.median / 1e6
            p95 = nanoseconds.p95 / 1e6
            min = nanoseconds.min / 1e6
        }
    }

    struct LayerResult: Codable, Sendable {
        var width: Int
        var height: Int
        var kbps: Double
        var psnr: Double
    }

    struct ConfigResult: Codable, Sendable {
        /// Thread CPU time per frame (scaling + encoding of every layer), in ms.
        var cpuMsPerFrame: MillisecondStats
        /// Wall time per frame, in ms.
        var wallMsPerFrame: MillisecondStats
        /// Fraction of one core the track costs at 30 fps (median CPU ms per frame × 30 / 1000).
        var coreShareAt30fps: Double
        /// CPU-seconds per minute of 30 fps video: the battery proxy.
        var cpuSecondsPerMinute: Double
        /// Share of the CPU time spent scaling (the rest is encoding).
        var scalingShare: Double
        var layers: [LayerResult]
        /// Packetization and SRTP protection per frame, in ms (added by the SRTP issue; nil until then).
        var packetizeProtectMsPerFrame: MillisecondStats?
        /// The same per layer, lightest first (RTP header + extensions, history, SRTP protect).
        var packetizeProtectLayerMsPerFrame: [MillisecondStats]?
        /// Packetize + protect CPU time as a fraction of the encode CPU time of the same frames.
        var packetizeProtectShareOfEncode: Double?
        /// SFrame seal + open (issue 16's E2EE, all layers) per frame, in ms, and as a fraction of
        /// the encode CPU time of the same frames (goal: at most 1 %).
        var e2eeMsPerFrame: MillisecondStats?
        var e2eeShareOfEncode: Double?
        /// Instructions per frame (scaling + encoding, frames 1... of the clip), counted by
        /// callgrind in a run of its own (`CallgrindCounter`); nil when not counted.
        var instructionsPerFrame: Double? = nil
    }

    struct Ratio: Codable, Sendable {
        var median: Double
        var min: Double
        var max: Double

        init(perRepeat: [Double]) {
            let distribution = Distribution(perRepeat)
            median = distribution.median
            min = distribution.min
            max = distribution.max
        }
    }

    var input: String
    var size: String
    var frames: Int
    var repeat_: Int
    var machine: MachineInfo
    /// How the configurations were scheduled.
    var schedule: String
    var configs: [String: ConfigResult]
    var ratios: [String: Ratio]
    /// The same ratios in instructions per frame: deterministic, the ones to decide by.
    var instructionRatios: [String: Double]? = nil
    /// How instructions were counted (nil when they were not).
    var instructionCounter: String? = nil
    /// The other clips of the same run (the top level is the first clip), same format.
    var otherInputs: [EncodeReport]? = nil

    enum CodingKeys: String, CodingKey {
        case input, size, frames, repeat_ = "repeat", machine, schedule, configs, ratios, instructionRatios,
             instructionCounter, otherInputs
    }
}
