import Simulcast

/// The one-line note the tools print on standard error when `--size` is not what gets encoded:
/// docs/layer-plan.md crops the top layer to a multiple of 2^(layers-1) so every layer is an exact division
/// (e.g. 1281x721 with 3 layers is encoded as 1280x720). Nil when the size is used as given.
func sizeNotice(requestedWidth width: Int, height: Int, plan: LayerPlan) -> String? {
    let top = plan.top
    guard top.width != width || top.height != height else { return nil }
    // The lightest layer's divisor (4 with three layers, and still 4 when --max-layer 2 drops the middle one).
    let alignment = plan.layers[0].downscale
    let layers = plan.layers.count
    return "note: --size \(width)x\(height) is encoded as \(top.width)x\(top.height): with \(layers) layers "
        + "(\(plan.layers.map { "\($0.width)x\($0.height)" }.joined(separator: " + "))) the top layer is cropped to a "
        + "multiple of \(alignment) in each dimension (docs/layer-plan.md)"
}
