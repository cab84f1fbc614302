extension CropRect {
    /// Where a `sourceWidth` x `sourceHeight` picture lands inside a `targetWidth` x
    /// `targetHeight` one when it is fitted whole, centred and never upscaled (screen shares,
    /// issue 17: nothing of the screen is cut off, and text is never blurred by enlarging it).
    /// The scale is min(1, target/source) per edge, the same on both; origin and size are even
    /// so 4:2:0 chroma stays aligned. 2560x1440 into 1920x1080 fills it; 1280x1024 into
    /// 1920x1080 lands 1:1 at x = 320, y = 28; 1920x1200 into 1920x1080 is 1728x1080 at x = 96.
    public static func centredFit(sourceWidth: Int, sourceHeight: Int,
                                  targetWidth: Int, targetHeight: Int) -> CropRect {
        var w = sourceWidth, h = sourceHeight
        // Compare scales in integers: shrink by the edge that overflows most, keep the aspect.
        if w > targetWidth || h > targetHeight {
            if w * targetHeight >= h * targetWidth {
                h = h * targetWidth / w
                w = targetWidth
            } else {
                w = w * targetHeight / h
                h = targetHeight
            }
        }
        w = max(2, min(targetWidth, w) & ~1)
        h = max(2, min(targetHeight, h) & ~1)
        return CropRect(x: ((targetWidth - w) / 2) & ~1, y: ((targetHeight - h) / 2) & ~1, width: w, height: h)
    }
}
