/// Frames for a camera track at the encoder's top-layer size: the built-in `TestScene`
/// (endless, deterministic) or a Y4M file (each frame centre-cropped and scaled by `Scaler`).
/// Shared by the command-line tools and the benchmark so they all feed the same pictures.
public final class VideoSource {
    public let width: Int
    public let height: Int
    /// A human-readable name of the input ("built-in test scene" or the file path).
    public let name: String
    private let renderer: TestSceneRenderer?
    private let reader: Y4MReader?
    private let scaler = Scaler()
    private var index = 0

    /// The built-in moving test scene at `width`x`height`.
    public init(testSceneWidth width: Int, height: Int, seed: UInt64 = 1) throws(VideoFrameError) {
        self.width = width
        self.height = height
        renderer = try TestScene(seed: seed).renderer(width: width, height: height)
        reader = nil
        name = "built-in test scene"
    }

    /// A 4:2:0 Y4M file, scaled to `width`x`height`.
    public init(y4mPath path: String, width: Int, height: Int) throws(Y4MError) {
        self.width = width
        self.height = height
        reader = try Y4MReader(path: path)
        renderer = nil
        name = path
    }

    /// The next frame, or nil at the end of a file.
    public func nextFrame() throws -> VideoFrame? {
        defer { index += 1 }
        if let renderer { return renderer.frame(index) }
        guard let reader, let frame = try reader.nextFrame() else { return nil }
        if frame.width == width && frame.height == height { return frame }
        return try scaler.scaled(frame, width: width, height: height)
    }
}
