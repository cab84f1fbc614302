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
    ///   - candidates: what to measure (default `EncoderCandidate.standardSet`, about 7 s here in a debug build).
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

    /// Candidates that differ only in their layers (MAX_LAYER_3, MAX_LAYER_2, single at one size,
    /// frame rate and cpu_used) are encoded frame by frame in turn: frame i of each, then frame
    /// i + 1, each round starting one candidate later. Whatever else the machine runs meanwhile (a
    /// burst on the other core, a neighbour thrashing the cache) then falls on each of them alike
    /// instead of on whichever was being timed, so the order of their costs, the closest ones
    /// the choice depends on (about 20 % apart), holds on a busy machine. One group at a time: at
    /// most three encoders are alive, not every candidate's.
    private func measure(frames: [VideoFrame], cpuClock: () -> Int64) throws(EncoderAdvisorError) -> [EncoderMeasurement] {
        var scaledBySize: [VideoSize: [VideoFrame]] = [:]
        var measured: [EncoderCandidate: EncoderMeasurement] = [:]
        for group in layerVariantGroups() {
            var runs: [EncoderCandidateRun] = []
            for candidate in group {
                let plan = try Self.plan(for: candidate)
                let top = VideoSize(width: plan.top.width, height: plan.top.height)
                if scaledBySize[top] == nil {
                    scaledBySize[top] = try Self.scale(frames, to: top)
                }
                runs.append(try EncoderCandidateRun(candidate: candidate, plan: plan, frames: scaledBySize[top] ?? []))
            }
            for index in 0..<framesPerMeasurement {
                for offset in runs.indices {
                    try runs[(index + offset) % runs.count].encodeFrame(index, cpuClock: cpuClock)
                }
            }
            for run in runs {
                measured[run.candidate] = run.measurement()
            }
        }
        return candidates.compactMap { measured[$0] }
    }

    /// `candidates` grouped by everything but their layers, in order of first appearance.
    private func layerVariantGroups() -> [[EncoderCandidate]] {
        var groups: [[EncoderCandidate]] = []
        for candidate in candidates {
            if let index = groups.firstIndex(where: { candidate.differsOnlyInLayers(from: $0[0]) }) {
                if !groups[index].contains(candidate) { groups[index].append(candidate) }
            } else {
                groups.append([candidate])
            }
        }
        return groups
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
}
