import RTPWire
import Simulcast

/// Measures what a simulcast encode delivered, per layer: frames, key frames, bytes, bitrate,
/// and PSNR of each decoded frame (`VP8Decoder`) against the source scaled to that layer the
/// way the encoder scales it (box filter, layer to layer from the top).
/// Used by `simulcast encode` and the benchmark so both report the same numbers.
public final class LayerQualityMeter {
    /// One layer's totals.
    public struct LayerSummary: Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var frames = 0
        public var keyFrames = 0
        public var bytes = 0
        /// Frames the decoder rejected or did not return.
        public var decodeErrors = 0
        public var psnrSum = 0.0
        public var psnrFrames = 0

        /// Mean luma PSNR in dB over decoded frames (NaN when none decoded).
        public var meanPSNR: Double { psnrFrames > 0 ? psnrSum / Double(psnrFrames) : .nan }

        /// Average bitrate in kbps over `totalFrames` source frames at `frameRate`.
        public func kbps(totalFrames: Int, frameRate: Int) -> Double {
            guard totalFrames > 0, frameRate > 0 else { return .nan }
            return Double(bytes) * 8 / (Double(totalFrames) / Double(frameRate)) / 1000
        }
    }

    public private(set) var layers: [LayerSummary]
    private let plan: LayerPlan
    private var decoders: [VP8Decoder]
    private var references: [VideoFrame]
    private let scaler = Scaler()

    public init(plan: LayerPlan) throws {
        self.plan = plan
        layers = plan.layers.map { LayerSummary(width: $0.width, height: $0.height) }
        decoders = try plan.layers.map { _ in try VP8Decoder() }
        references = try plan.layers.map { try VideoFrame(width: $0.width, height: $0.height) }
    }

    /// Records the layers encoded from one top-size `source` frame.
    public func record(_ encoded: [EncodedFrame], source: VideoFrame) throws {
        try scaleReferences(from: source)
        for frame in encoded where layers.indices.contains(frame.spatialIndex) {
            let index = frame.spatialIndex
            layers[index].frames += 1
            layers[index].bytes += frame.data.count
            if frame.keyFrame { layers[index].keyFrames += 1 }
            let decoded: VideoFrame?
            do { decoded = try decoders[index].decode(frame.data) } catch { decoded = nil }
            guard let decoded else {
                layers[index].decodeErrors += 1
                continue
            }
            layers[index].psnrSum += try PSNR.luma(references[index], decoded)
            layers[index].psnrFrames += 1
        }
    }

    /// The per-layer sources, highest to lowest, each from the layer above it.
    private func scaleReferences(from source: VideoFrame) throws {
        var above = source
        for index in references.indices.reversed() {
            if references[index].width == above.width && references[index].height == above.height {
                references[index] = above
            } else {
                try scaler.scale(above, into: &references[index])
            }
            above = references[index]
        }
    }
}
