internal import CYUV
import RTPWire

/// Renders `ScreenTestScene` frames of one size. The current slide's page of text (twice the
/// text area's height, luma only) is drawn once per slide; each frame is then a few libyuv
/// `SetPlane`/`CopyPlane` calls (desktop, title bar, the page's scrolled window), the small video
/// picture computed per pixel, and the cursor.
///
/// Not `Sendable` (it caches the page); cheap to create one per task.
public final class ScreenTestSceneRenderer: FrameRenderer {
    /// The scene rendered.
    public let scene: ScreenTestScene
    /// Size of every rendered frame.
    public let width: Int
    /// Size of every rendered frame.
    public let height: Int
    private let layout: ScreenLayout
    /// Rows the text scrolls per scrolling frame (even, so chroma never shifts by half a sample).
    private let scrollStep: Int
    private var page: [UInt8] = []
    private var pageSlide = -1
    private let pageHeight: Int

    static let paper: UInt8 = 235
    static let ink: UInt8 = 30
    static let desktop: UInt8 = 200

    init(scene: ScreenTestScene, width: Int, height: Int) throws(VideoFrameError) {
        try VideoFrame.validateDimensions(width: width, height: height)
        try SimulcastEncoder.validateScreenCapture(width: width, height: height)
        guard width >= 64, height >= 64 else { throw .invalidDimensions(width: width, height: height) }
        self.scene = scene
        self.width = width
        self.height = height
        layout = ScreenLayout(width: width, height: height)
        let scrollFrames = scene.frameRate * (ScreenTestScene.scrollingSeconds.upperBound - ScreenTestScene.scrollingSeconds.lowerBound)
        scrollStep = max(2, (layout.text.height / (2 * scrollFrames)) & ~1)
        pageHeight = layout.text.height + scrollStep * scrollFrames
    }

    /// Renders frame `n` into `frame`, reusing its storage.
    /// - Precondition: `frame` is the renderer's size.
    public func render(_ n: Int, into frame: inout VideoFrame) {
        precondition(frame.width == width && frame.height == height, "ScreenTestSceneRenderer: frame size")
        let slide = scene.slide(of: n)
        if slide != pageSlide { drawPage(slide) }
        // Time of the moving parts: frames of scrolling since frame 0 (frozen while still).
        let scrollFramesPerCycle = scene.frameRate * (ScreenTestScene.scrollingSeconds.upperBound - ScreenTestScene.scrollingSeconds.lowerBound)
        let motionTime = slide * scrollFramesPerCycle + scene.scrolledFrames(n)
        let offset = scene.scrolledFrames(n) * scrollStep
        let hue = Self.titleColour(slide: slide, seed: scene.seed)
        let (w, h, layout) = (width, height, layout)
        frame.withUnsafeMutablePlanes { p in
            Self.fill(p, CropRect(x: 0, y: 0, width: w, height: h), y: Self.desktop, u: 128, v: 128)
            Self.fill(p, layout.titleBar, y: hue.y, u: hue.u, v: hue.v)
            page.withUnsafeBufferPointer { pageBytes in
                let text = layout.text
                CopyPlane(pageBytes.baseAddress! + offset * text.width, Int32(text.width),
                          p.y + text.y * p.strideY + text.x, Int32(p.strideY), Int32(text.width), Int32(text.height))
            }
            drawVideo(p, time: motionTime)
            drawCursor(p, time: motionTime)
        }
    }

    /// The title bar's colour of a slide (Y, U, V): a different one per slide.
    private static func titleColour(slide: Int, seed: UInt64) -> (y: UInt8, u: UInt8, v: UInt8) {
        var mix = SplitMix64(seed: seed ^ (UInt64(slide) &* 0x9E37_79B9_7F4A_7C15))
        let bits = mix.next()
        return (UInt8(60 + bits % 120), UInt8(64 + (bits >> 8) % 128), UInt8(64 + (bits >> 16) % 128))
    }

    private static func fill(_ p: MutablePlanes, _ r: CropRect, y: UInt8, u: UInt8, v: UInt8) {
        let w = p.window(r)
        // I420Rect fails only on bad arguments; the layout keeps every rectangle inside the frame.
        _ = I420Rect(w.y, Int32(w.strideY), w.u, Int32(w.strideU), w.v, Int32(w.strideV), 0, 0,
                     Int32(w.width), Int32(w.height), Int32(y), Int32(u), Int32(v))
    }

    /// Lines of pseudo-words in a stroke pseudo-font, dark on light: each glyph of a 5x7-dot cell
    /// is two or three strokes (the verticals and horizontals of a seven-segment shape, or a
    /// diagonal), drawn from the seed. Sharp edges everywhere, the hard case for a video codec.
    private func drawPage(_ slide: Int) {
        let dot = layout.dot, pageWidth = layout.text.width
        page = [UInt8](repeating: Self.paper, count: pageWidth * pageHeight)
        var rng = SplitMix64(seed: scene.seed &+ UInt64(slide) &* 0xD1B5_4A32_D192_ED03)
        let glyphs: [UInt64] = (0..<40).map { _ in Self.strokeGlyph(rng.next()) }
        let advance = 6 * dot, lineHeight = 11 * dot, margin = 8 * dot
        page.withUnsafeMutableBufferPointer { bytes in
            var top = 2 * dot
            while top + 7 * dot <= pageHeight {
                var x = margin
                let lineEnd = pageWidth - margin - Int(rng.next() % UInt64(max(1, pageWidth / 4)))
                while x + advance <= lineEnd {
                    let wordLength = 2 + Int(rng.next() % 8)
                    for _ in 0..<wordLength where x + advance <= lineEnd {
                        let glyph = glyphs[Int(rng.next() % UInt64(glyphs.count))]
                        for bit in 0..<35 where glyph >> UInt64(bit) & 1 == 1 {
                            let gx = x + (bit % 5) * dot, gy = top + (bit / 5) * dot
                            for dy in 0..<dot {
                                for dx in 0..<dot { bytes[(gy + dy) * pageWidth + gx + dx] = Self.ink }
                            }
                        }
                        x += advance
                    }
                    x += advance
                }
                top += lineHeight
            }
        }
        pageSlide = slide
    }

    /// A 5x7 glyph bitmap (bit = row * 5 + column) of two or three strokes chosen by `bits`.
    private static func strokeGlyph(_ bits: UInt64) -> UInt64 {
        func dot(_ column: Int, _ row: Int) -> UInt64 { 1 << UInt64(row * 5 + column) }
        let strokes: [UInt64] = [
            (0..<7).reduce(0) { $0 | dot(0, $1) },                 // left vertical
            (0..<7).reduce(0) { $0 | dot(4, $1) },                 // right vertical
            (0..<7).reduce(0) { $0 | dot(2, $1) },                 // middle vertical
            (0..<5).reduce(0) { $0 | dot($1, 0) },                 // top
            (0..<5).reduce(0) { $0 | dot($1, 3) },                 // middle
            (0..<5).reduce(0) { $0 | dot($1, 6) },                 // bottom
            (0..<5).reduce(0) { $0 | dot($1, min(6, $1 * 3 / 2)) }, // diagonal
            (0..<4).reduce(0) { $0 | dot(0, 3 + $1) },             // lower-left half
        ]
        var glyph: UInt64 = 0
        let count = 2 + Int(bits % 2)
        for k in 0..<count { glyph |= strokes[Int((bits >> UInt64(4 + 3 * k)) % UInt64(strokes.count))] }
        return glyph
    }

    /// A camera-like picture: moving gradients and a circling bright disc.
    private func drawVideo(_ p: MutablePlanes, time t: Int) {
        let r = layout.video
        let cx = r.width / 2 + (r.width / 3) * Self.wave(t, period: 90) / 1000
        let cy = r.height / 2 + (r.height / 3) * Self.wave(t + 22, period: 90) / 1000
        let radius = max(2, r.height / 6)
        for y in 0..<r.height {
            let row = p.y + (r.y + y) * p.strideY + r.x
            for x in 0..<r.width {
                let dx = x - cx, dy = y - cy
                let inDisc = dx * dx + dy * dy < radius * radius
                row[x] = inDisc ? 230 : UInt8(truncatingIfNeeded: 40 + (x + 2 * y + 3 * t) % 160)
            }
        }
        for y in 0..<(r.height / 2) {
            let u = p.u + (r.y / 2 + y) * p.strideU + r.x / 2, v = p.v + (r.y / 2 + y) * p.strideV + r.x / 2
            for x in 0..<(r.width / 2) {
                u[x] = UInt8(truncatingIfNeeded: 80 + (x + t) % 96)
                v[x] = UInt8(truncatingIfNeeded: 80 + (y + 2 * t) % 96)
            }
        }
    }

    /// An arrow cursor gliding along the band under the text (outlined, so it shows on any colour).
    private func drawCursor(_ p: MutablePlanes, time t: Int) {
        let size = layout.cursorSize
        let travel = max(1, layout.video.x - size.width)
        let x0 = ((t * 4 * layout.dot) % travel) & ~1, y0 = layout.cursorBandY
        for y in 0..<min(size.height, height - y0) {
            let row = p.y + (y0 + y) * p.strideY + x0
            let span = max(1, (y + 1) * size.width / size.height)
            for x in 0..<span { row[x] = x == 0 || x == span - 1 ? 255 : 0 }
        }
    }

    /// A triangle wave of `period` frames, -1000...1000.
    private static func wave(_ t: Int, period: Int) -> Int {
        let m = t % period
        let half = period / 2
        return m < half ? -1000 + 2000 * m / half : 1000 - 2000 * (m - half) / (period - half)
    }
}
