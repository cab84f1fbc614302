internal import CYUV
import RTPWire

/// Renders `TestScene` frames of one size. Builds the panning background (wider than the
/// frame) and a noise plane once; each frame is then one libyuv `ARGBAdd` (background window +
/// noise window, a per-byte saturating add), one `CopyPlane` per chroma plane, and the two
/// moving shapes drawn in their bounding boxes.
///
/// Not `Sendable` (it caches mutable buffers); cheap to create one per task.
public final class TestSceneRenderer: FrameRenderer {
    /// The scene rendered.
    public let scene: TestScene
    /// Size of every rendered frame.
    public let width: Int
    /// Size of every rendered frame.
    public let height: Int
    private let step: Int        // pan speed, px/frame
    private let panRange: Int    // the background is this much wider than the frame
    private let noiseRows: Int
    private var background: VideoFrame
    private var noise: [UInt8]

    init(scene: TestScene, width: Int, height: Int) throws(VideoFrameError) {
        try VideoFrame.validateDimensions(width: width, height: height)
        self.scene = scene
        self.width = width
        self.height = height
        step = 2 * max(1, width / 640)               // even, so chroma pans by whole samples
        panRange = max(step, (width / 4) & ~1)
        noiseRows = 61
        background = VideoFrame(unchecked: width + panRange, height: height)
        noise = []
        buildBackground()
        buildNoise()
    }

    private func buildBackground() {
        let bw = background.width, h = height
        let cell = max(4, width / 40)
        background.withUnsafeMutablePlanes { p in
            for y in 0..<h {
                let row = p.y + y * p.strideY
                let rowTerm = 15 + 90 * y / h                 // 1 below the mean, noise adds 0...3
                let checkerRow = (y / cell) & 1
                for x in 0..<bw {
                    let checker = ((x / cell) & 1) ^ checkerRow == 0 ? 18 : -18
                    row[x] = UInt8(clamping: rowTerm + 100 * x / bw + checker)
                }
            }
            let cw = (bw + 1) / 2, ch = (h + 1) / 2
            for y in 0..<ch {
                let urow = p.u + y * p.strideU, vrow = p.v + y * p.strideV
                for x in 0..<cw {
                    urow[x] = UInt8(clamping: 98 + 60 * x / cw)
                    vrow[x] = UInt8(clamping: 98 + 60 * y / ch)
                }
            }
        }
    }

    private func buildNoise() {
        let count = width * (height + noiseRows)
        var rng = SplitMix64(seed: scene.seed &* 0x9E37_79B9_7F4A_7C15)
        noise = [UInt8](repeating: 0, count: count)
        noise.withUnsafeMutableBufferPointer { buffer in
            var bits: UInt64 = 0
            for i in 0..<count {
                if i & 31 == 0 { bits = rng.next() }
                buffer[i] = UInt8(truncatingIfNeeded: bits & 3)
                bits >>= 2
            }
        }
    }

    /// Renders frame `n` into `frame`, reusing its storage.
    /// - Precondition: `frame` is the renderer's size.
    public func render(_ n: Int, into frame: inout VideoFrame) {
        precondition(frame.width == width && frame.height == height, "TestSceneRenderer: frame size")
        let w = width, h = height
        // Pan back and forth (a triangle wave), so the motion never jumps.
        let period = 2 * (panRange / step)
        let phase = n % period
        let shift = step * (phase <= period / 2 ? phase : period - phase)
        var mix = SplitMix64(seed: scene.seed ^ (UInt64(truncatingIfNeeded: n) &* 0xD1B5_4A32_D192_ED03))
        let noiseRow = Int(mix.next() % UInt64(noiseRows))
        // Integer triangle waves for the shapes.
        func triangle(_ period: Int) -> Int { let m = n % period; return m < period / 2 ? m : period - m }
        let cx = w / 5 + triangle(150) * (3 * w / 5) / 75
        let cy = h / 5 + triangle(96) * (3 * h / 5) / 48
        let radius = max(2, h / 6)
        let barW = max(2, w / 10), barH = max(2, h / 3)
        let barX = ((n * max(1, w / 320)) % (w + barW)) - barW, barY = h / 8
        let tail = w % 4

        background.withUnsafeMutablePlanes { bg in
            noise.withUnsafeBufferPointer { noisePlane in
                frame.withUnsafeMutablePlanes { p in
                    let src = bg.y + shift
                    let nz = noisePlane.baseAddress! + noiseRow * w
                    if w >= 4 {
                        // Saturating per-byte add of background and noise, 4 bytes per "pixel".
                        // Cannot fail: pointers and sizes are valid and positive.
                        _ = ARGBAdd(src, Int32(bg.strideY), nz, Int32(w), p.y, Int32(p.strideY),
                                    Int32(w / 4), Int32(h))
                    }
                    if tail > 0 {
                        for y in 0..<h {
                            for x in (w - tail)..<w {
                                p.y[y * p.strideY + x] = UInt8(clamping: Int(src[y * bg.strideY + x]) + Int(nz[y * w + x]))
                            }
                        }
                    }
                    let cw = (w + 1) / 2, ch = (h + 1) / 2
                    CopyPlane(bg.u + shift / 2, Int32(bg.strideU), p.u, Int32(p.strideU), Int32(cw), Int32(ch))
                    CopyPlane(bg.v + shift / 2, Int32(bg.strideV), p.v, Int32(p.strideV), Int32(cw), Int32(ch))

                    // Circle: bright with a soft diagonal shade, magenta-ish chroma.
                    for y in max(0, cy - radius)..<min(h, cy + radius + 1) {
                        let dy = y - cy
                        for x in max(0, cx - radius)..<min(w, cx + radius + 1) {
                            let dx = x - cx
                            if dx * dx + dy * dy < radius * radius {
                                p.y[y * p.strideY + x] = UInt8(clamping: 200 + (dx + dy) / 8)
                            }
                        }
                    }
                    let ccx = cx / 2, ccy = cy / 2, cr = radius / 2
                    for y in max(0, ccy - cr)..<min(ch, ccy + cr + 1) {
                        let dy = y - ccy
                        for x in max(0, ccx - cr)..<min(cw, ccx + cr + 1) where (x - ccx) * (x - ccx) + dy * dy < cr * cr {
                            p.u[y * p.strideU + x] = 90
                            p.v[y * p.strideV + x] = 190
                        }
                    }
                    // Bar: dark, blue-ish chroma.
                    let x0 = max(0, barX), x1 = min(w, barX + barW)
                    if x0 < x1 {
                        SetPlane(p.y + barY * p.strideY + x0, Int32(p.strideY), Int32(x1 - x0),
                                 Int32(min(barH, h - barY)), 40)
                        let cx0 = x0 / 2, cx1 = min(cw, (x1 + 1) / 2)
                        let cy0 = barY / 2, cy1 = min(ch, (barY + barH + 1) / 2)
                        if cx0 < cx1 && cy0 < cy1 {
                            SetPlane(p.u + cy0 * p.strideU + cx0, Int32(p.strideU), Int32(cx1 - cx0), Int32(cy1 - cy0), 200)
                            SetPlane(p.v + cy0 * p.strideV + cx0, Int32(p.strideV), Int32(cx1 - cx0), Int32(cy1 - cy0), 100)
                        }
                    }
                }
            }
        }
    }
}
