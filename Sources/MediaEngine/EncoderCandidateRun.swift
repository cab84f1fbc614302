import MediaCodecs
import Simulcast

/// One `EncoderAdvisor` candidate's encoder and what it has measured so far.
struct EncoderCandidateRun {
    let candidate: EncoderCandidate
    let encoder: SimulcastEncoder
    let meter: LayerQualityMeter
    let frames: [VideoFrame]
    /// Source frames per encoded frame (2 for a 15 fps candidate on the 30 fps source).
    let step: Int
    /// Thread CPU nanoseconds per frame, without the first (a key frame).
    var costs: [Int64] = []
    /// Each layer's bytes after the key frame, so the bitrate is that of the delta frames.
    var bytesAfterKeyFrame: [Int] = []

    init(candidate: EncoderCandidate, plan: LayerPlan, frames: [VideoFrame]) throws(EncoderAdvisorError) {
        do {
            encoder = try SimulcastEncoder(plan: plan, frameRate: candidate.frameRate,
                                           cpuUsed: candidate.cpuUsed == EncoderCandidate.defaultCPUUsed ? nil : candidate.cpuUsed)
            meter = try LayerQualityMeter(plan: plan)
        } catch {
            throw .invalidCandidate(candidate, reason: "\(error)")
        }
        self.candidate = candidate
        self.frames = frames
        step = max(1, EncoderAdvisor.sourceFrameRate / candidate.frameRate)
    }

    mutating func encodeFrame(_ index: Int, cpuClock: () -> Int64) throws(EncoderAdvisorError) {
        let frame = frames[(index * step) % frames.count]
        do {
            let start = cpuClock()
            let encoded = try encoder.encode(frame)
            let cost = cpuClock() - start
            if index > 0 { costs.append(cost) }
            try meter.record(encoded, source: frame)
        } catch {
            throw .encoderFailed(candidate, reason: "\(error)")
        }
        if index == 0 { bytesAfterKeyFrame = meter.layers.map(\.bytes) }
    }

    /// The median cost per frame times the frame rate; bitrate and PSNR per layer.
    func measurement() -> EncoderMeasurement {
        let sorted = costs.sorted()
        let median = sorted.count % 2 == 1 ? Double(sorted[sorted.count / 2])
            : Double(sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        let seconds = Double(costs.count) / Double(candidate.frameRate)  // the frames after the key frame
        let layers = zip(meter.layers, bytesAfterKeyFrame).map { layer, keyBytes in
            EncoderMeasurement.Layer(width: layer.width, height: layer.height,
                                     kbps: Double(layer.bytes - keyBytes) * 8 / seconds / 1000, psnr: layer.meanPSNR)
        }
        return EncoderMeasurement(candidate: candidate,
                                  cpuPercentOfOneCore: median * Double(candidate.frameRate) / 1e9 * 100, layers: layers)
    }
}
