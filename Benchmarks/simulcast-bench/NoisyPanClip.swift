import MediaCodecs
import RTPWire

/// A camera-like clip the benchmark generates itself, so every run on every machine encodes the
/// same pictures: a slow pan over a textured still scene (value noise in three octaves plus
/// hard-edged rectangles, like shelves and posters behind a speaker) with seeded sensor noise on
/// every sample of every frame. Sensor noise is what the built-in scene lacks and what makes
/// real camera frames expensive to encode (residual everywhere, the denoiser at work).
struct NoisyPanClip {
    static let name = "generated noisy camera-like clip (seeded sensor noise, slow pan)"
    /// How far the view pans before it turns back (pixels; half of it vertically).
    static let panRange = 240

    let width: Int
    let height: Int
    let seed: UInt64
    private let textureWidth: Int
    private let textureHeight: Int
    private let textureY: [UInt8]
    private let textureU: [UInt8]
    private let textureV: [UInt8]

    init(width: Int, height: Int, seed: UInt64 = 7) {
        self.width = width
        self.height = height
        self.seed = seed
        textureWidth = width + Self.panRange
        textureHeight = height + Self.panRange / 2
        let chromaWidth = (textureWidth + 1) / 2, chromaHeight = (textureHeight + 1) / 2
        var y = [UInt8](repeating: 0, count: textureWidth * textureHeight)
        for row in 0..<textureHeight {
            for column in 0..<textureWidth {
                let detail = Self.valueNoise(column, row, spacing: 96, seed: seed) * 70
                    + Self.valueNoise(column, row, spacing: 24, seed: seed &+ 1) * 35
                    + Self.valueNoise(column, row, spacing: 5, seed: seed &+ 2) * 18
                y[row * textureWidth + column] = Self.clamp(Int(detail) + 128 - 61)
            }
        }
        var generator = SplitMix64(seed: seed &+ 3)
        for _ in 0..<40 {  // rectangles with hard edges: what motion search and the loop filter see in rooms
            let w = Int(generator.next() % 200) + 20, h = Int(generator.next() % 160) + 20
            let x0 = Int(generator.next() % UInt64(textureWidth - w)), y0 = Int(generator.next() % UInt64(textureHeight - h))
            let shade = Int(generator.next() % 200) + 28
            for row in y0..<(y0 + h) {
                for column in x0..<(x0 + w) {
                    let old = Int(y[row * textureWidth + column])
                    y[row * textureWidth + column] = Self.clamp((shade * 3 + old) / 4)
                }
            }
        }
        var u = [UInt8](repeating: 0, count: chromaWidth * chromaHeight)
        var v = u
        for row in 0..<chromaHeight {
            for column in 0..<chromaWidth {
                u[row * chromaWidth + column] = Self.clamp(128 + Int(Self.valueNoise(column, row, spacing: 64, seed: seed &+ 4) * 50) - 25)
                v[row * chromaWidth + column] = Self.clamp(128 + Int(Self.valueNoise(column, row, spacing: 64, seed: seed &+ 5) * 50) - 25)
            }
        }
        textureY = y
        textureU = u
        textureV = v
    }

    /// Frame `n`: the view `n` pixels right and `n / 2` down (turning back at the texture's
    /// edge), plus this frame's own sensor noise (about σ 3.5 on luma, 2.3 on chroma).
    func frame(_ n: Int) throws -> VideoFrame {
        let x = Self.triangle(n, period: Self.panRange) & ~1
        let y = Self.triangle(n / 2, period: Self.panRange / 2) & ~1
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        var packed = [UInt8](repeating: 0, count: width * height + 2 * chromaWidth * chromaHeight)
        var noise = SensorNoise(seed: seed &+ 0x9E37_79B9 &* UInt64(n + 1))
        var out = 0
        for row in 0..<height {
            let base = (row + y) * textureWidth + x
            for column in 0..<width {
                packed[out] = Self.clamp(Int(textureY[base + column]) + noise.next(scale: 3))
                out += 1
            }
        }
        let textureChromaWidth = (textureWidth + 1) / 2
        for plane in [textureU, textureV] {
            for row in 0..<chromaHeight {
                let base = (row + y / 2) * textureChromaWidth + x / 2
                for column in 0..<chromaWidth {
                    packed[out] = Self.clamp(Int(plane[base + column]) + noise.next(scale: 2))
                    out += 1
                }
            }
        }
        return try VideoFrame(packedI420: packed, width: width, height: height)
    }

    /// Approximately Gaussian noise: the sum of four uniform bytes, centred (σ ≈ 148) and scaled.
    private struct SensorNoise {
        var generator: SplitMix64
        var bits: UInt64 = 0
        var left = 0

        init(seed: UInt64) { generator = SplitMix64(seed: seed) }

        mutating func next(scale: Int) -> Int {
            if left == 0 { bits = generator.next(); left = 2 }
            left -= 1
            let sum = Int(bits & 0xFF) + Int((bits >> 8) & 0xFF) + Int((bits >> 16) & 0xFF) + Int((bits >> 24) & 0xFF)
            bits >>= 32
            return (sum - 510) * scale / 128
        }
    }

    private static func triangle(_ n: Int, period: Int) -> Int {
        let phase = n % (2 * period)
        return phase < period ? phase : 2 * period - phase
    }

    /// Smooth value noise in 0...1: bilinear interpolation between hashed lattice points.
    private static func valueNoise(_ x: Int, _ y: Int, spacing: Int, seed: UInt64) -> Double {
        let cellX = x / spacing, cellY = y / spacing
        let fx = Double(x % spacing) / Double(spacing), fy = Double(y % spacing) / Double(spacing)
        let a = lattice(cellX, cellY, seed), b = lattice(cellX + 1, cellY, seed)
        let c = lattice(cellX, cellY + 1, seed), d = lattice(cellX + 1, cellY + 1, seed)
        let top = a + (b - a) * fx, bottom = c + (d - c) * fx
        return top + (bottom - top) * fy
    }

    private static func lattice(_ x: Int, _ y: Int, _ seed: UInt64) -> Double {
        var generator = SplitMix64(seed: seed ^ (UInt64(truncatingIfNeeded: x) &* 0x1_0000_01B3)
            ^ (UInt64(truncatingIfNeeded: y) &* 0xC2B2_AE3D_27D4_EB4F))
        return Double(generator.next() >> 11) / Double(1 << 53)
    }

    private static func clamp(_ value: Int) -> UInt8 { UInt8(max(0, min(255, value))) }
}
