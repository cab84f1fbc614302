import MediaCodecs
import Simulcast

/// A CPU budget advisor for camera tracks (the CPU/battery trade-off): measures what each
/// `EncoderCandidate` costs on this machine with a short real encode (libvpx
/// `vpx_codec_encode` through `SimulcastEncoder`, thread CPU time via
/// `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`, PSNR from libvpx's decoder) and picks the
/// best-quality configuration whose measured cost fits a `CPUBudget`. Run it once, e.g. at an
/// app's first launch, and keep the answer; `simulcast advise` prints the same.
///
/// Costs are measured, so they move with what else the machine runs (a busy machine gives a
/// more cautious answer); the choice itself (`choose`) is a pure function of the measurements.
public struct EncoderAdvisor: Sendable {
    /// One advice: the chosen configuration and every measurement it was chosen from.
    public struct Advice: Sendable, Equatable {
        /// The budget asked for.
        public var budget: CPUBudget
        /// The best-quality measurement within the budget (`choose`).
        public var chosen: EncoderMeasurement
        /// In the order of `EncoderAdvisor.candidates`.
        public var measurements: [EncoderMeasurement]
    }

    /// Frames encoded per candidate (the first, a key frame, is encoded but not counted).
    public static let framesPerMeasurementRange = 4...300
    /// The source's frame rate: a 15 fps candidate encodes every other source frame.
    public static let sourceFrameRate = 30

    /// What `measure` encodes, in this order.
    public let candidates: [EncoderCandidate]
    /// Frames encoded per candidate.
    public let framesPerMeasurement: Int

    /// - Parameters:
    ///   - candidates: what to measure (default `EncoderCandidate.standardSet`, about 30 s here).
    ///   - framesPerMeasurement: frames encoded per candidate; more is steadier and slower.
    public init(candidates: [EncoderCandidate] = EncoderCandidate.standardSet,
                framesPerMeasurement: Int = 30) throws(EncoderAdvisorError) {
        guard !candidates.isEmpty else { throw .noCandidates }
        guard Self.framesPerMeasurementRange.contains(framesPerMeasurement) else {
            throw .invalidFrameCount(framesPerMeasurement)
        }
        for candidate in candidates where !(1...Self.sourceFrameRate).contains(candidate.frameRate) {
            throw .invalidCandidate(candidate, reason: "frame rate out of range: use 1 to \(Self.sourceFrameRate) fps")
        }
        self.candidates = candidates
        self.framesPerMeasurement = framesPerMeasurement
    }

    /// Measures every candidate on the built-in test scene, then picks for `budget`.
    public func advise(budget: CPUBudget) throws(EncoderAdvisorError) -> Advice {
        let measurements = try measure()
        return Advice(budget: budget, chosen: try Self.choose(budget: budget, from: measurements),
                      measurements: measurements)
    }

    /// Measures every candidate on frames from `source` (30 fps, any size: each candidate gets
    /// them scaled to its size, outside the timed calls), then picks for `budget`.
    public func advise(budget: CPUBudget, source: some VideoFrameSource) throws(EncoderAdvisorError) -> Advice {
        let measurements = try measure(source: source)
        return Advice(budget: budget, chosen: try Self.choose(budget: budget, from: measurements),
                      measurements: measurements)
    }

    /// Measures every candidate on the built-in test scene (1280x720, scaled per candidate).
    /// - Parameter cpuClock: nanoseconds of CPU time of the calling thread; nil: the real one
    ///   (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`). Tests may inject their own.
    public func measure(cpuClock: (() -> Int64)? = nil) throws(EncoderAdvisorError) -> [EncoderMeasurement] {
        let scene: VideoSource
        do {
            scene = try VideoSource(testSceneWidth: 1280, height: 720)
        } catch {
            throw .input("the built-in test scene: \(error)")
        }
        return try measure(frames: readFrames { () throws -> VideoFrame? in try scene.nextFrame() },
                           cpuClock: cpuClock ?? ThreadCPUClock.nanoseconds)
    }

    /// Measures every candidate on frames from `source` (see `advise(budget:source:)`).
    public func measure(source: some VideoFrameSource,
                        cpuClock: (() -> Int64)? = nil) throws(EncoderAdvisorError) -> [EncoderMeasurement] {
        try measure(frames: readFrames { () throws -> VideoFrame? in try source.nextFrame() },
                    cpuClock: cpuClock ?? ThreadCPUClock.nanoseconds)
    }

    /// Source frames for the slowest candidate: `framesPerMeasurement` at its frame rate.
    private func readFrames(_ next: () throws -> VideoFrame?) throws(EncoderAdvisorError) -> [VideoFrame] {
        let slowest = candidates.map(\.frameRate).min() ?? Self.sourceFrameRate
        let needed = framesPerMeasurement * ((Self.sourceFrameRate + slowest - 1) / slowest)
        var frames: [VideoFrame] = []
        do {
            while frames.count < needed, let frame = try next() { frames.append(frame) }
        } catch {
            throw .input("\(error)")
        }
        guard frames.count >= framesPerMeasurement else {
            throw .input("\(frames.count) frames, at least \(framesPerMeasurement) needed")
        }
        return frames
    }

    private func measure(frames: [VideoFrame], cpuClock: () -> Int64) throws(EncoderAdvisorError) -> [EncoderMeasurement] {
        var scaledBySize: [VideoSize: [VideoFrame]] = [:]
        var measurements: [EncoderMeasurement] = []
        // The first candidate runs twice and its first result is dropped: a cold start (page
        // faults, caches, clock ramp-up) would otherwise make whatever comes first look dearer.
        for (index, candidate) in ([candidates[0]] + candidates).enumerated() {
            let plan = try Self.plan(for: candidate)
            let top = VideoSize(width: plan.top.width, height: plan.top.height)
            if scaledBySize[top] == nil {
                scaledBySize[top] = try Self.scale(frames, to: top)
            }
            let measurement = try measure(candidate, plan: plan, frames: scaledBySize[top] ?? [], cpuClock: cpuClock)
            if index > 0 { measurements.append(measurement) }
        }
        return measurements
    }

    private static func plan(for candidate: EncoderCandidate) throws(EncoderAdvisorError) -> LayerPlan {
        do {
            return try LayerPlan(width: candidate.size.width, height: candidate.size.height,
                                 multiStream: candidate.layers != .single,
                                 maxLayer: candidate.layers == .maxLayer2 ? .two : .three)
        } catch {
            throw .invalidCandidate(candidate, reason: "\(error)")
        }
    }

    private static func scale(_ frames: [VideoFrame], to size: VideoSize) throws(EncoderAdvisorError) -> [VideoFrame] {
        let scaler = Scaler()
        do {
            return try frames.map { frame in
                frame.width == size.width && frame.height == size.height
                    ? frame : try scaler.scaled(frame, width: size.width, height: size.height)
            }
        } catch {
            throw .input("scaling to \(size.width)x\(size.height): \(error)")
        }
    }

    private func measure(_ candidate: EncoderCandidate, plan: LayerPlan, frames: [VideoFrame],
                         cpuClock: () -> Int64) throws(EncoderAdvisorError) -> EncoderMeasurement {
        let encoder: SimulcastEncoder
        let meter: LayerQualityMeter
        do {
            encoder = try SimulcastEncoder(plan: plan, frameRate: candidate.frameRate,
                                           cpuUsed: candidate.cpuUsed == EncoderCandidate.defaultCPUUsed ? nil : candidate.cpuUsed)
            meter = try LayerQualityMeter(plan: plan)
        } catch {
            throw .invalidCandidate(candidate, reason: "\(error)")
        }
        let step = max(1, Self.sourceFrameRate / candidate.frameRate)
        var costs: [Int64] = []
        var bytesAfterKeyFrame: [Int] = []
        do {
            for index in 0..<framesPerMeasurement {
                let frame = frames[(index * step) % frames.count]
                let start = cpuClock()
                let encoded = try encoder.encode(frame)
                let cost = cpuClock() - start
                if index > 0 { costs.append(cost) }
                try meter.record(encoded, source: frame)
                if index == 0 { bytesAfterKeyFrame = meter.layers.map(\.bytes) }
            }
        } catch {
            throw .encoderFailed(candidate, reason: "\(error)")
        }
        costs.sort()
        let median = costs.count % 2 == 1 ? Double(costs[costs.count / 2])
            : Double(costs[costs.count / 2 - 1] + costs[costs.count / 2]) / 2
        let seconds = Double(framesPerMeasurement - 1) / Double(candidate.frameRate)
        let layers = zip(meter.layers, bytesAfterKeyFrame).map { layer, keyBytes in
            EncoderMeasurement.Layer(width: layer.width, height: layer.height,
                                     kbps: Double(layer.bytes - keyBytes) * 8 / seconds / 1000, psnr: layer.meanPSNR)
        }
        return EncoderMeasurement(candidate: candidate,
                                  cpuPercentOfOneCore: median * Double(candidate.frameRate) / 1e9 * 100, layers: layers)
    }
}
