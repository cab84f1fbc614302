internal import MediaCodecs
import MediaEngine

/// The built-in moving test scene (deterministic, endless) as a camera: play it into a
/// `LocalVideoTrack` with `play(from:)`, optionally for a fixed number of frames.
public final class TestSceneSource: VideoFrameSource {
    private let source: VideoSource
    private var remaining: Int?

    /// - Parameters: the picture size, a seed for the scene, and how many frames before it ends
    ///   (nil: never).
    public init(width: Int, height: Int, seed: UInt64 = 1, frames: Int? = nil) throws {
        source = try VideoSource(testSceneWidth: width, height: height, seed: seed)
        remaining = frames
    }

    public func nextFrame() throws -> VideoFrame? {
        if let left = remaining {
            guard left > 0 else { return nil }
            remaining = left - 1
        }
        return try source.nextFrame()
    }
}
