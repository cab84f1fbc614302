import MediaCodecs

/// Frames a track plays in place of a live capture: a file, a generated scene, a tone. The engine
/// pulls one frame per frame interval on its own thread (`LocalVideoTrack.play(from:)`,
/// `LocalAudioTrack.play(from:)`), so nothing is dropped and nobody writes a timer.
public protocol MediaFrameSource<Frame>: AnyObject {
    associatedtype Frame
    /// The next frame; nil when the source has ended.
    func nextFrame() throws -> Frame?
}

/// Camera frames from a file or generator.
public typealias VideoFrameSource = MediaFrameSource<VideoFrame>
/// 20 ms mic frames (48 kHz) from a file or generator.
public typealias AudioFrameSource = MediaFrameSource<AudioFrame>
