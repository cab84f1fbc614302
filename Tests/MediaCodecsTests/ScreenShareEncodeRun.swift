import MediaCodecs
import RTPWire
import Simulcast

/// What the screen-share encoder made of the generated screen (`ScreenTestScene`): every input
/// frame, which layers encoded it, and the top layer decoded next to its source.
struct ScreenShareEncodeRun: Sendable {
    var plan: LayerPlan
    var scene: ScreenTestScene
    var frameCount: Int
    /// Encoded output per plan layer (lightest first) with the input frame index it encodes.
    var layers: [[(input: Int, frame: EncodedFrame)]]
    /// Text-region luma PSNR of each decoded top-layer frame against its source, by input index.
    var topTextPSNR: [(input: Int, psnr: Double)]
    var framesSkippedUnchanged: Int
    /// Thread CPU time of each `encode` call that produced output, nanoseconds.
    var encodeNanoseconds: [Int64]

    /// Bits the whole track (every layer) sent for input frames in `frames`.
    func bits(inputs frames: Range<Int>) -> Int {
        layers.joined().filter { frames.contains($0.input) }.reduce(0) { $0 + 8 * $1.frame.data.count }
    }

    /// Whole seconds in which the screen did not change and whose start is more than the
    /// encoder's refinement time after the last change: what a static screen sends.
    var staticSeconds: [Int] {
        (0..<(frameCount / scene.frameRate)).filter {
            scene.isStaticSecond($0, refinementFrames: SimulcastEncoder.screenRefinementSeconds * scene.frameRate)
        }
    }

    /// Seconds whose every frame scrolls.
    var scrollingSeconds: [Int] { (0..<(frameCount / scene.frameRate)).filter { scene.isScrollingSecond($0) } }
}

/// Encodes `seconds` of the generated screen at `width`x`height` (the plan's top size) on the
/// screen-share plan and decodes the top layer.
func encodeScreen(width: Int, height: Int, seconds: Int, frameRate: Int = 15, multiStream: Bool = true) throws -> ScreenShareEncodeRun {
    let plan = try LayerPlan(screenShareWidth: width, height: height, multiStream: multiStream)
    let encoder = try SimulcastEncoder(plan: plan, frameRate: frameRate)
    let scene = ScreenTestScene(seed: 3, frameRate: frameRate)
    let renderer = try scene.renderer(width: width, height: height)
    let decoder = try VP8Decoder()
    let text = ScreenTestScene.textRegion(width: width, height: height)
    var layers = [[(input: Int, frame: EncodedFrame)]](repeating: [], count: plan.layers.count)
    var psnr: [(input: Int, psnr: Double)] = []
    var nanoseconds: [Int64] = []
    let frames = seconds * frameRate
    for n in 0..<frames {
        let source = renderer.frame(n)
        let start = ThreadCPUClock.nanoseconds()
        let encoded = try encoder.encode(scaling: source)
        if !encoded.isEmpty { nanoseconds.append(ThreadCPUClock.nanoseconds() - start) }
        for frame in encoded {
            layers[frame.spatialIndex].append((n, frame))
            if frame.spatialIndex == plan.layers.count - 1, let picture = try decoder.decode(frame.data) {
                psnr.append((n, try PSNR.luma(source, picture, in: text)))
            }
        }
    }
    return ScreenShareEncodeRun(plan: plan, scene: scene, frameCount: frames, layers: layers, topTextPSNR: psnr,
                                framesSkippedUnchanged: encoder.framesSkippedUnchanged, encodeNanoseconds: nanoseconds)
}

/// 17 s of the 1920x1080 screen at 15 fps (slide flips at 8 s and 16 s, two scrolling spans),
/// shared by the screen-share encoder tests.
let sharedScreen1080Result: Result<ScreenShareEncodeRun, any Error> = Result {
    try encodeScreen(width: 1920, height: 1080, seconds: 17)
}
