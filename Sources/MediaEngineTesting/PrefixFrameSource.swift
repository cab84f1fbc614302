import MediaEngine

/// The first `maxLength` frames of another source, then its end: a file or generator played for
/// a fixed number of frames.
public final class PrefixFrameSource<Frame>: MediaFrameSource {
    private let base: any MediaFrameSource<Frame>
    private var remaining: Int

    public init(_ base: any MediaFrameSource<Frame>, maxLength: Int) {
        self.base = base
        remaining = max(0, maxLength)
    }

    public func nextFrame() throws -> Frame? {
        guard remaining > 0 else { return nil }
        remaining -= 1
        return try base.nextFrame()
    }
}

extension MediaFrameSource {
    /// This source, ending after at most `maxLength` frames.
    public func prefix(_ maxLength: Int) -> PrefixFrameSource<Frame> {
        PrefixFrameSource(self, maxLength: maxLength)
    }
}
