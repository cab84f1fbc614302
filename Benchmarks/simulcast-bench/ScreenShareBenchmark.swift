import CommandLineSupport
import Foundation
import MediaCodecs
import Simulcast

/// `simulcast-bench screen`: the screen-share track (issue 17) on the generated screen
/// (`ScreenTestScene`, text that scrolls, slide flips, cursor, video corner) next to the camera
/// pipeline: thread CPU time per `encode(scaling:)` call, bits per second of every layer, split
/// into static seconds (nothing changed and the picture was refined: keep-alives only) and
/// scrolling seconds, and the top layer's text-region PSNR (decoded, decode time not counted):
/// settled (the last frame before each quiet spell, what a viewer reads) and while scrolling.
///
/// Rows:
/// - `screen`: the screen plan and screen encoding at `--size` (default 1920x1080) at 15 fps;
/// - `camera_on_screen`: the camera pipeline (docs/layer-plan.md plan, L1T3, denoiser, cpu_used -6, every
///   frame encoded) on the same screen at the same size, at 15 fps;
/// - `camera_720p`: the default camera track (1280x720, three layers, 30 fps) on the built-in
///   camera scene, for the cost a camera adds beside it.
struct ScreenShareBenchmark {
    struct Row: Codable {
        var name: String
        var layers: String
        var frameRate: Int
        /// CPU ms per `encode` call that produced output, and per call that skipped (unchanged;
        /// nil when none did, as on the camera rows: JSON has no NaN).
        var encodedFrameCPUMilliseconds: Distribution
        var skippedFrameCPUMilliseconds: Distribution?
        var framesEncoded: Int
        var framesSkipped: Int
        /// CPU ms spent per wall second, kbps (every layer): over the whole run, static and
        /// scrolling seconds (nil for the camera scene, which has neither).
        var cpuMillisecondsPerSecond: Double
        var kbps: Double
        var staticKbps: Distribution?
        var scrollingKbps: Distribution?
        var staticCPUMillisecondsPerSecond: Double?
        var scrollingCPUMillisecondsPerSecond: Double?
        /// Top layer, text region, dB (nil for the camera scene).
        var settledTextPSNR: Distribution?
        var scrollingTextPSNR: Distribution?
    }

    var seconds: Int
    var width: Int
    var height: Int

    func run() throws -> [Row] {
        let screenRate = 15
        let screenPlan = try LayerPlan(screenShareWidth: width, height: height)
        let cameraPlanOnScreen = try LayerPlan(width: width, height: height)
        let scene = ScreenTestScene(seed: 3, frameRate: screenRate)
        return [
            try measure(name: "screen", plan: screenPlan, frameRate: screenRate, scene: scene),
            try measure(name: "camera_on_screen", plan: cameraPlanOnScreen, frameRate: screenRate, scene: scene),
            try measure(name: "camera_720p", plan: try LayerPlan(), frameRate: 30, scene: nil),
        ]
    }

    /// Encodes `seconds` of the screen scene (or the camera scene when `scene` is nil).
    private func measure(name: String, plan: LayerPlan, frameRate: Int, scene: ScreenTestScene?) throws -> Row {
        let encoder = try SimulcastEncoder(plan: plan, frameRate: frameRate)
        let renderer: any FrameRenderer = try scene.map { try $0.renderer(width: plan.top.width, height: plan.top.height) }
            ?? TestScene(seed: 1).renderer(width: plan.top.width, height: plan.top.height)
        let decoder = try VP8Decoder()
        let text = ScreenTestScene.textRegion(width: plan.top.width, height: plan.top.height)
        var frame = renderer.frame(0)
        var encodedCPU: [Double] = [], skippedCPU: [Double] = []
        var bitsPerSecond = [Int](repeating: 0, count: seconds), cpuPerSecond = [Double](repeating: 0, count: seconds)
        var psnr: [(input: Int, dB: Double)] = []
        for n in 0..<(seconds * frameRate) {
            renderer.render(n, into: &frame)
            let start = ThreadCPUClock.nanoseconds()
            let output = try encoder.encode(scaling: frame)
            let milliseconds = Double(ThreadCPUClock.nanoseconds() - start) / 1e6
            if output.isEmpty { skippedCPU.append(milliseconds) } else { encodedCPU.append(milliseconds) }
            cpuPerSecond[n / frameRate] += milliseconds
            for layer in output {
                bitsPerSecond[n / frameRate] += 8 * layer.data.count
                if scene != nil, layer.spatialIndex == plan.layers.count - 1, let picture = try decoder.decode(layer.data) {
                    psnr.append((n, try PSNR.luma(frame, picture, in: text)))
                }
            }
        }
        var row = Row(name: name, layers: plan.layers.map { "\($0.width)x\($0.height)" }.joined(separator: " + "),
                      frameRate: frameRate, encodedFrameCPUMilliseconds: Distribution(encodedCPU),
                      skippedFrameCPUMilliseconds: skippedCPU.isEmpty ? nil : Distribution(skippedCPU), framesEncoded: encodedCPU.count,
                      framesSkipped: skippedCPU.count, cpuMillisecondsPerSecond: cpuPerSecond.reduce(0, +) / Double(seconds),
                      kbps: Double(bitsPerSecond.reduce(0, +)) / Double(seconds) / 1000)
        if let scene {
            let refinement = SimulcastEncoder.screenRefinementSeconds * frameRate
            let still = (0..<seconds).filter { scene.isStaticSecond($0, refinementFrames: refinement) }
            let scrolling = (0..<seconds).filter { scene.isScrollingSecond($0) }
            row.staticKbps = Distribution(still.map { Double(bitsPerSecond[$0]) / 1000 })
            row.scrollingKbps = Distribution(scrolling.map { Double(bitsPerSecond[$0]) / 1000 })
            row.staticCPUMillisecondsPerSecond = still.isEmpty ? nil : still.map { cpuPerSecond[$0] }.reduce(0, +) / Double(still.count)
            row.scrollingCPUMillisecondsPerSecond = scrolling.isEmpty ? nil
                : scrolling.map { cpuPerSecond[$0] }.reduce(0, +) / Double(scrolling.count)
            let settled = still.compactMap { second in psnr.last { $0.input < second * frameRate }?.dB }
            row.settledTextPSNR = Distribution(settled)
            row.scrollingTextPSNR = Distribution(psnr.filter { scene.phase(of: $0.input) == .scrolling }.map(\.dB))
        }
        return row
    }

    /// The rows as a Markdown table.
    /// What `--json` writes: where and when, then the rows.
    struct Report: Codable {
        var machine: MachineInfo
        var build: String
        var seconds: Int
        var rows: [Row]
    }

    static func markdown(_ rows: [Row], seconds: Int, machine: MachineInfo = .current()) -> String {
        func f(_ x: Double?, _ places: Int = 1) -> String {
            guard let x, x.isFinite else { return "–" }
            return String(format: "%.\(places)f", x)
        }
        var lines = ["Measured \(machine.sentence): \(seconds) s per row, thread CPU time (CLOCK_THREAD_CPUTIME_ID) per encode call; kbps of every layer.", "",
                     "| row | layers | fps | CPU ms/encoded frame median (p95) | frames encoded / skipped | CPU ms per s: all, static, scrolling | kbps: all, static max, scrolling median | text PSNR dB: settled min, scrolling min / median |",
                     "|---|---|---:|---:|---:|---:|---:|---:|"]
        for row in rows {
            lines.append("| \(row.name) | \(row.layers) | \(row.frameRate) | \(f(row.encodedFrameCPUMilliseconds.median, 2)) (\(f(row.encodedFrameCPUMilliseconds.p95, 2))) "
                + "| \(row.framesEncoded) / \(row.framesSkipped) "
                + "| \(f(row.cpuMillisecondsPerSecond)), \(f(row.staticCPUMillisecondsPerSecond)), \(f(row.scrollingCPUMillisecondsPerSecond)) "
                + "| \(f(row.kbps, 0)), \(f(row.staticKbps?.max, 1)), \(f(row.scrollingKbps?.median, 0)) "
                + "| \(f(row.settledTextPSNR?.min)), \(f(row.scrollingTextPSNR?.min)) / \(f(row.scrollingTextPSNR?.median)) |")
        }
        return lines.joined(separator: "\n")
    }
}

let screenShareUsage = """
usage: simulcast-bench screen [--seconds N] [--size WxH] [--json PATH] [--markdown PATH]
  The screen-share track on the generated screen (text scrolling 2 s of every 8, a slide flip every
  8 s) next to the camera pipeline on the same screen and the default 720p camera: CPU per frame,
  frames encoded / not sent, kbps static vs scrolling, text PSNR.
  --seconds N      seconds of screen, 8...600 (default 16)
  --size WxH       the screen's size, at most 2560x1440 either way (default 1920x1080)
  --json PATH      the rows as JSON
  --markdown PATH  the table as Markdown (what bench-results/screen.md holds)
"""

/// `screen`: runs `ScreenShareBenchmark` and prints (and optionally writes) its table.
func runScreenShare(_ arguments: ArraySlice<String>) throws {
    let options = try CommandLineArguments(arguments, valueOptions: ["seconds", "size", "json", "markdown"])
    let seconds = try options.int("seconds", default: 16, range: 8...600)
    let size = try options.size("size", default: (1920, 1080))
    try SimulcastEncoder.validateScreenCapture(width: size.width, height: size.height)
    let rows = try ScreenShareBenchmark(seconds: seconds, width: size.width, height: size.height).run()
    let machine = MachineInfo.current()
    let markdown = ScreenShareBenchmark.markdown(rows, seconds: seconds, machine: machine)
    print(markdown)
    if let path = options.string("json") {
        try writeJSON(ScreenShareBenchmark.Report(machine: machine, build: MachineInfo.buildConfiguration, seconds: seconds,
                                                  rows: rows), to: path)
    }
    if let path = options.string("markdown") { try write(Data(markdown.utf8), to: path) }
}
