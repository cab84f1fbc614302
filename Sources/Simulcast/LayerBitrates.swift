/// Max / target / min bitrate of one spatial layer, in kbps.
public struct LayerBitrates: Sendable, Equatable, Codable {
    public var maxKbps: Int
    public var targetKbps: Int
    public var minKbps: Int

    public init(maxKbps: Int, targetKbps: Int, minKbps: Int) {
        self.maxKbps = maxKbps
        self.targetKbps = targetKbps
        self.minKbps = minKbps
    }

    /// WebRTC's VP8 simulcast table (docs/layer-plan.md), keyed by pixel count, lightest first.
    static let table: [(pixels: Int, rates: LayerBitrates)] = [
        (320 * 180, LayerBitrates(maxKbps: 200, targetKbps: 150, minKbps: 30)),
        (480 * 270, LayerBitrates(maxKbps: 450, targetKbps: 350, minKbps: 150)),
        (640 * 360, LayerBitrates(maxKbps: 700, targetKbps: 500, minKbps: 150)),
        (960 * 540, LayerBitrates(maxKbps: 1200, targetKbps: 1200, minKbps: 350)),
        (1280 * 720, LayerBitrates(maxKbps: 2500, targetKbps: 2500, minKbps: 600)),
    ]

    /// The default bitrates for a layer of `width`x`height`: exact for the sizes in the table,
    /// linearly interpolated by pixel count between them, and scaled by pixel count beyond its ends
    /// (never below the smallest entry's minimum).
    public static func defaults(width: Int, height: Int) -> LayerBitrates {
        let pixels = max(1, width * height)
        let table = Self.table
        if let exact = table.first(where: { $0.pixels == pixels }) { return exact.rates }
        func scaled(_ entry: (pixels: Int, rates: LayerBitrates)) -> LayerBitrates {
            let factor = Double(pixels) / Double(entry.pixels)
            let floor = table[0].rates.minKbps
            return LayerBitrates(maxKbps: max(floor, Int((Double(entry.rates.maxKbps) * factor).rounded())),
                                 targetKbps: max(floor, Int((Double(entry.rates.targetKbps) * factor).rounded())),
                                 minKbps: max(floor, Int((Double(entry.rates.minKbps) * factor).rounded())))
        }
        guard pixels > table[0].pixels else { return scaled(table[0]) }
        guard pixels < table[table.count - 1].pixels else { return scaled(table[table.count - 1]) }
        let upper = table.firstIndex(where: { $0.pixels > pixels })!  // exists: pixels < last entry
        let low = table[upper - 1], high = table[upper]
        let t = Double(pixels - low.pixels) / Double(high.pixels - low.pixels)
        func lerp(_ a: Int, _ b: Int) -> Int { Int((Double(a) + (Double(b) - Double(a)) * t).rounded()) }
        return LayerBitrates(maxKbps: lerp(low.rates.maxKbps, high.rates.maxKbps),
                             targetKbps: lerp(low.rates.targetKbps, high.rates.targetKbps),
                             minKbps: lerp(low.rates.minKbps, high.rates.minKbps))
    }
}
