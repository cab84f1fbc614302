/// A deterministic synthetic moving scene for tests, demos and benchmarks: a scrolling
/// gradient with a soft checker texture, a circle and a bar moving across it, and seeded
/// low-amplitude pseudo-random noise. Frame `n` at a given size is a pure function of
/// (`seed`, `n`, size); coordinates are relative, so every size shows the same picture.
public struct TestScene: Sendable, Equatable {
    public var seed: UInt64

    public init(seed: UInt64 = 1) { self.seed = seed }

    /// Frame `n` of the scene at `width` x `height` (I420, tight strides).
    public func frame(_ n: Int, width: Int, height: Int) throws(VideoFrameError) -> VideoFrame {
        try VideoFrame.validateDimensions(width: width, height: height)
        var frame = VideoFrame(unchecked: width, height: height)
        render(n, into: &frame)
        return frame
    }

    /// Renders frame `n` into `frame` (any size), reusing its storage.
    public func render(_ n: Int, into frame: inout VideoFrame) {
        let w = frame.width, h = frame.height
        let cw = frame.chromaWidth, ch = frame.chromaHeight
        let cell = max(4, w / 40)
        let shift = n * max(1, w / 640)                       // scroll 2 px/frame at 1280 wide
        // A circle on a Lissajous path and a bar sweeping left to right.
        // Integer triangle waves (no floating point, so every platform renders the same bytes).
        func triangle(_ period: Int) -> Int { let m = n % period; return m < period / 2 ? m : period - m }
        let cx = w / 5 + triangle(150) * (3 * w / 5) / 75
        let cy = h / 5 + triangle(96) * (3 * h / 5) / 48
        let radius = max(2, h / 6)
        let barW = max(2, w / 10), barH = max(2, h / 3)
        let barX = ((n * max(1, w / 320)) % (w + barW)) - barW, barY = h / 8
        var rng = SplitMix(state: seed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(truncatingIfNeeded: n))
        frame.withUnsafeMutablePlanes { p in
            for y in 0..<h {
                let row = p.y + y * p.strideY
                let rowTerm = 16 + 90 * y / h
                let checkerRow = (y / cell) & 1
                var bits: UInt64 = 0
                for x in 0..<w {
                    if x & 15 == 0 { bits = rng.next() }
                    let sx = x + shift
                    let checker = ((sx / cell) & 1) ^ checkerRow == 0 ? 18 : -18
                    var value = rowTerm + 100 * (sx % (4 * w)) / (4 * w) + checker
                    let dx = x - cx, dy = y - cy
                    if dx * dx + dy * dy < radius * radius { value = 200 + (dx + dy) / 8 }
                    if x >= barX && x < barX + barW && y >= barY && y < barY + barH { value = 40 }
                    value += Int(bits & 3) - 1                // noise in -1...2
                    bits >>= 4
                    row[x] = UInt8(clamping: value)
                }
            }
            let ccx = cx / 2, ccy = cy / 2, cr = radius / 2
            for y in 0..<ch {
                let urow = p.u + y * p.strideU, vrow = p.v + y * p.strideV
                for x in 0..<cw {
                    var u = 128 + 60 * (x - cw / 2) / max(1, cw)
                    var v = 128 + 60 * (y - ch / 2) / max(1, ch)
                    let dx = x - ccx, dy = y - ccy
                    if dx * dx + dy * dy < cr * cr { u = 90; v = 190 }
                    if 2 * x >= barX && 2 * x < barX + barW && 2 * y >= barY && 2 * y < barY + barH { u = 200; v = 100 }
                    urow[x] = UInt8(clamping: u)
                    vrow[x] = UInt8(clamping: v)
                }
            }
        }
    }
}

/// SplitMix64: a tiny seeded generator, so the scene needs no system randomness.
struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
