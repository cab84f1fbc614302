/// A small pool of same-size `VideoFrame` buffers, so a capture → scale → encode pipeline
/// allocates its planes once and then reuses them: `take()` a frame, fill it (e.g. with
/// `Scaler.scale(_:into:)`), and `recycle(_:)` it when done.
///
/// Not `Sendable`: one pool per pipeline.
public final class FramePool {
    /// Size of every frame in the pool.
    public let width: Int
    /// Size of every frame in the pool.
    public let height: Int
    private var free: [VideoFrame] = []
    /// How many frame buffers the pool has allocated in total (steady state: constant).
    public private(set) var allocations = 0

    /// An empty pool for frames of `width` x `height` (validated like `VideoFrame`).
    public init(width: Int, height: Int) throws(VideoFrameError) {
        try VideoFrame.validateDimensions(width: width, height: height)
        self.width = width
        self.height = height
    }

    /// A frame of the pool's size: a recycled one if available, else a new black frame.
    public func take() -> VideoFrame {
        if let frame = free.popLast() { return frame }
        allocations += 1
        return VideoFrame(unchecked: width, height: height)
    }

    /// Returns a frame to the pool. Frames of another size are dropped.
    public func recycle(_ frame: VideoFrame) {
        guard frame.width == width, frame.height == height else { return }
        free.append(frame)
    }
}
