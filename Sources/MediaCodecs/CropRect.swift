/// A rectangle of a source picture, in pixels. Origins and sizes are even (where the
/// source allows) so 4:2:0 chroma stays aligned.
public struct CropRect: Sendable, Equatable {
    /// Left edge, pixels from the source's left.
    public var x: Int
    /// Top edge, pixels from the source's top.
    public var y: Int
    /// Width of the kept area.
    public var width: Int
    /// Height of the kept area.
    public var height: Int

    /// A rectangle with the given origin and size.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The largest centred rectangle of a `sourceWidth` x `sourceHeight` picture with the
    /// aspect ratio of `targetWidth` x `targetHeight` (docs/layer-plan.md: crop, then scale).
    /// 1920x1080 → 1280x720 keeps everything; 640x480 → 1280x720 keeps 640x360 at y = 60.
    public static func centred(sourceWidth: Int, sourceHeight: Int,
                               targetWidth: Int, targetHeight: Int) -> CropRect {
        var w = sourceWidth, h = sourceHeight
        // Compare aspect ratios exactly in integers: sw/sh vs tw/th.
        if sourceWidth * targetHeight > targetWidth * sourceHeight {
            w = sourceHeight * targetWidth / targetHeight   // source is wider: trim the sides
        } else if sourceWidth * targetHeight < targetWidth * sourceHeight {
            h = sourceWidth * targetHeight / targetWidth    // source is taller: trim top and bottom
        }
        if w < sourceWidth, w > 1 { w &= ~1 }
        if h < sourceHeight, h > 1 { h &= ~1 }
        w = max(1, w)
        h = max(1, h)
        let x = ((sourceWidth - w) / 2) & ~1
        let y = ((sourceHeight - h) / 2) & ~1
        return CropRect(x: x, y: y, width: w, height: h)
    }
}
