internal import MediaCodecs
import MediaEngine

/// The generated screen (issue 17: a page of text that scrolls, a slide flip every 8 s, a moving
/// cursor, a small video-like corner; deterministic) as a screen share's capture: play it into a
/// screen-share `LocalVideoTrack` with `play(from:)`, or take frames by number with `frame(_:)`.
public final class ScreenTestSceneSource: VideoFrameSource {
    /// Frames per second the scene's timeline is laid out at (the track's frame rate).
    public let frameRate: Int
    private let scene: ScreenTestScene
    private let renderer: ScreenTestSceneRenderer
    private var index = 0
    private let frames: Int?

    /// - Parameters: the capture size (at most 2560x1440), the timeline's frame rate, a seed for
    ///   the text, and how many frames before it ends (nil: never).
    public init(width: Int, height: Int, frameRate: Int = 15, seed: UInt64 = 1, frames: Int? = nil) throws {
        scene = ScreenTestScene(seed: seed, frameRate: frameRate)
        self.frameRate = scene.frameRate
        renderer = try scene.renderer(width: width, height: height)
        self.frames = frames
    }

    /// Frame `n` of the scene.
    public func frame(_ n: Int) -> VideoFrame { renderer.frame(n) }

    /// Whether frame `n` is the first of a new slide (the whole screen changes).
    public func isSlideFlip(_ n: Int) -> Bool { scene.isSlideFlip(n) }

    /// Luma PSNR of `received` against `source` (a frame of this scene) in the scene's text
    /// region (`ScreenTestScene.textRegion`): what issue 17's "text at least 38 dB" measures.
    /// nil when the sizes differ.
    public static func textPSNR(_ received: VideoFrame, against source: VideoFrame) -> Double? {
        let region = ScreenTestScene.textRegion(width: source.width, height: source.height)
        return try? PSNR.luma(source, received, in: region)
    }

    /// Frames from one slide flip to the next.
    public var framesPerSlide: Int { scene.cycleFrames }

    public func nextFrame() throws -> VideoFrame? {
        if let frames, index >= frames { return nil }
        defer { index += 1 }
        return renderer.frame(index)
    }
}
