/// A deterministic synthetic moving scene for tests, demos and benchmarks: a gradient with a
/// checker texture panning back and forth, a circle and a bar moving across it, and seeded
/// low-amplitude pseudo-random noise. Frame `n` at a given size is a pure function of
/// (`seed`, `n`, size): integer arithmetic only, no clocks, no system randomness.
/// Coordinates are relative, so every size shows the same picture.
///
/// `frame(_:width:height:)` is the simple entry point; for many frames of one size use a
/// `TestSceneRenderer`, which builds the static textures once and renders each frame mostly
/// with libyuv row operations.
public struct TestScene: Sendable, Equatable {
    /// Seeds the noise; different seeds give different (but equally deterministic) scenes.
    public var seed: UInt64

    /// A scene with the given noise seed.
    public init(seed: UInt64 = 1) { self.seed = seed }

    /// Frame `n` of the scene at `width` x `height` (I420, tight strides).
    public func frame(_ n: Int, width: Int, height: Int) throws(VideoFrameError) -> VideoFrame {
        try renderer(width: width, height: height).frame(n)
    }

    /// A renderer for many frames of one size.
    public func renderer(width: Int, height: Int) throws(VideoFrameError) -> TestSceneRenderer {
        try TestSceneRenderer(scene: self, width: width, height: height)
    }
}
