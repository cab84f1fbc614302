internal import MediaCodecs
import MediaEngine

/// A 4:2:0 Y4M file as a camera, scaled to `width`x`height`: once through, or looped for as long
/// as it is played. A file that holds no frame or is cut short is refused when the source is made
/// (`Y4MReader.frameCount(path:)`), not part-way through playing it.
public final class Y4MFileSource: VideoFrameSource {
    private let path: String
    private let size: (width: Int, height: Int)
    private let loops: Bool
    private var source: VideoSource

    public init(path: String, width: Int, height: Int, loops: Bool = false) throws {
        self.path = path
        size = (width, height)
        self.loops = loops
        _ = try Y4MReader.frameCount(path: path)
        source = try VideoSource(y4mPath: path, width: width, height: height)
    }

    public func nextFrame() throws -> VideoFrame? {
        if let frame = try source.nextFrame() { return frame }
        guard loops else { return nil }
        source = try VideoSource(y4mPath: path, width: size.width, height: size.height)
        return try source.nextFrame()
    }
}
