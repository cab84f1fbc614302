/// The layer plan of a screen share (docs/joining-a-room.md, issue 17).
///
/// Screens are planned differently from cameras (docs/layer-plan.md): a shared screen is read, so its top
/// layer is the whole screen at full resolution, and the one extra layer is half of it per edge
/// (1920x1080 + 960x540, 2560x1440 + 1280x720): big enough that a constrained viewer can still
/// read large text and slide titles. A quarter layer (480x270 of a 1080p screen) carries no
/// legible text, so there is never a third layer. `multiStream == false`, or a config whose
/// longer edge is under 640 (half would be under 320), publishes one layer.
///
/// Bitrates (`LayerBitrates.screenShareDefaults`) follow the pixel count from a 1920x1080 anchor
/// of 2500 / 2500 / 300 kbps (max / target / min); what a screen really sends depends on how much
/// changes, since unchanged frames are not encoded at all.
extension LayerPlan {
    /// Longer edge from which `multiStream` adds the half-resolution layer.
    public static let screenShareMultiLayerMinimumEdge = 640

    /// The screen-share plan for an encoder config of `width`x`height` (see the extension's notes).
    /// Sizes are cropped to even numbers (one layer) or multiples of 4 (two), never upscaled.
    /// - Throws: `.unsupportedEncoderSize` outside `minimumEncoderSize...maximumEncoderSize`.
    public init(screenShareWidth width: Int, height: Int, multiStream: Bool = true) throws(LayerPlanError) {
        try Self.validate(width: width, height: height)
        let count = multiStream && max(width, height) >= Self.screenShareMultiLayerMinimumEdge ? 2 : 1
        let alignment = 2 * count
        let topWidth = width - width % alignment, topHeight = height - height % alignment
        let downscales = count == 2 ? [2, 1] : [1]
        let layers = downscales.enumerated().map { index, divisor in
            let w = topWidth / divisor, h = topHeight / divisor
            return LayerSpec(index: index, width: w, height: h, downscale: divisor,
                             bitrates: .screenShareDefaults(width: w, height: h))
        }
        self.init(content: .screen, encoderWidth: width, encoderHeight: height, multiStream: multiStream,
                  maxLayer: .two, layers: layers)
    }
}

extension LayerBitrates {
    /// The 1920x1080 screen-share anchor, kbps (max / target / min).
    static let screenShareAnchor = (pixels: 1920 * 1080, rates: LayerBitrates(maxKbps: 2500, targetKbps: 2500, minKbps: 300))
    /// No screen layer is planned below this, kbps (a 320x180 text layer still needs it).
    static let screenShareFloorKbps = 100

    /// Screen-share bitrates for a layer of `width`x`height`: the 1920x1080 anchor scaled by pixel
    /// count, never below `screenShareFloorKbps`.
    public static func screenShareDefaults(width: Int, height: Int) -> LayerBitrates {
        let factor = Double(max(1, width * height)) / Double(screenShareAnchor.pixels)
        func scaled(_ kbps: Int) -> Int { max(screenShareFloorKbps, Int((Double(kbps) * factor).rounded())) }
        let anchor = screenShareAnchor.rates
        return LayerBitrates(maxKbps: scaled(anchor.maxKbps), targetKbps: scaled(anchor.targetKbps),
                             minKbps: scaled(anchor.minKbps))
    }
}
