import MediaCodecs
import RTPWire
import Simulcast

/// The result of encoding `frames` frames of `TestScene` through a `SimulcastEncoder`.
struct EncodeRun: Sendable {
    var plan: LayerPlan
    /// Encoded output per plan layer (lightest first), in encode order.
    var layers: [[EncodedFrame]]
    /// The source scaled to each layer's size (box filter cascade, as the encoder does).
    var sources: [[VideoFrame]]
    var frameCount: Int
    var frameRate: Int

    func kbps(layer: Int) -> Double {
        let bytes = layers[layer].reduce(0) { $0 + $1.data.count }
        return Double(bytes * 8) / (Double(frameCount) / Double(frameRate)) / 1000
    }
}

/// Encodes `frames` TestScene frames at the plan's top size.
func encodeScene(plan: LayerPlan, frames: Int, keepSources: Bool = true) throws -> EncodeRun {
    let encoder = try SimulcastEncoder(plan: plan)
    let scene = try TestScene(seed: 7).renderer(width: plan.top.width, height: plan.top.height)
    let scaler = Scaler()
    var layers = [[EncodedFrame]](repeating: [], count: plan.layers.count)
    var sources = [[VideoFrame]](repeating: [], count: plan.layers.count)
    for n in 0..<frames {
        let top = scene.frame(n)
        for encoded in try encoder.encode(top) { layers[encoded.spatialIndex].append(encoded) }
        if keepSources {
            var current = top
            sources[plan.layers.count - 1].append(top)
            for index in stride(from: plan.layers.count - 2, through: 0, by: -1) {
                current = try scaler.scaled(current, width: plan.layers[index].width, height: plan.layers[index].height)
                sources[index].append(current)
            }
        }
    }
    return EncodeRun(plan: plan, layers: layers, sources: sources, frameCount: frames, frameRate: 30)
}

/// One 90-frame 1280x720 three-layer run shared by the tests that only inspect its output
/// (encoded once per test process; a failure surfaces in every test that reads it).
let sharedHD720Result: Result<EncodeRun, any Error> = Result {
    try encodeScene(plan: try LayerPlan(width: 1280, height: 720), frames: 90)
}

/// Decodes `frames` in order with a fresh decoder.
func decodeAll(_ frames: [EncodedFrame]) throws -> [VideoFrame] {
    let decoder = try VP8Decoder()
    var out: [VideoFrame] = []
    for frame in frames {
        if let picture = try decoder.decode(frame.data) { out.append(picture) }
    }
    return out
}

/// `x` with `places` decimals (no Foundation in this target).
func fixed(_ x: Double, _ places: Int = 2) -> String {
    guard x.isFinite else { return "\(x)" }
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let scaled = (abs(x) * scale).rounded()
    let whole = Int(scaled / scale), frac = Int(scaled) - whole * Int(scale)
    var fracText = String(frac)
    while fracText.count < places { fracText = "0" + fracText }
    return (x < 0 ? "-" : "") + String(whole) + (places > 0 ? "." + fracText : "")
}
