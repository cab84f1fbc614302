/// Splits a send-side bandwidth estimate across simulcast layers as libwebrtc's simulcast rate
/// allocator does: lightest first, each layer up to its target bitrate, what is left to the
/// highest running layer up to its maximum. A layer whose minimum the budget cannot cover is
/// paused with every layer above it (the lowest allowed layer always runs, at least at its
/// minimum). Hysteresis: a paused layer resumes only once the budget has covered
/// `resumeFactor` × its minimum for `resumeHoldMilliseconds`, so an estimate hovering at a
/// boundary does not make it flap. Time is a parameter; no I/O.
public struct SimulcastRateAllocator: Sendable, Equatable {
    /// Each layer's rates, lightest first.
    public let layers: [LayerBitrates]
    public let resumeFactor: Double
    public let resumeHoldMilliseconds: Int64
    /// Whether each layer runs (all until an allocation says otherwise).
    public private(set) var running: [Bool]
    /// Since when the budget has allowed each paused layer to resume.
    private var resumableSince: [Int64?]

    public init(layers: [LayerBitrates], resumeFactor: Double = 1.2, resumeHoldMilliseconds: Int64 = 500) {
        self.layers = layers
        self.resumeFactor = resumeFactor.isFinite ? max(1, resumeFactor) : 1
        self.resumeHoldMilliseconds = max(0, resumeHoldMilliseconds)
        running = Array(repeating: true, count: layers.count)
        resumableSince = Array(repeating: nil, count: layers.count)
    }

    /// Layers running, counted from the lightest.
    public var runningLayerCount: Int { running.prefix { $0 }.count }

    /// What `bitsPerSecond` buys each layer, kbps (0: paused), among the `allowed` ones (others,
    /// e.g. paused because nobody watches them or above a quality cap, get 0 and do not count).
    public mutating func allocate(bitsPerSecond: UInt64, allowed: [Bool], nowMilliseconds now: Int64) -> [Int] {
        var kbps = Array(repeating: 0, count: layers.count)
        var left = Double(bitsPerSecond) / 1_000
        var stopped = false
        var highest: Int?
        for index in layers.indices {
            guard index < allowed.count, allowed[index] else { continue }
            let rates = layers[index]
            if highest == nil {
                // The lightest allowed layer always runs.
                running[index] = true
                resumableSince[index] = nil
                let given = min(max(left, Double(rates.minKbps)), Double(rates.targetKbps))
                kbps[index] = Int(given)
                left = max(0, left - given)
                highest = index
                continue
            }
            if !stopped, running[index], left >= Double(rates.minKbps) {
                // keeps running
            } else if !stopped, !running[index], left >= resumeFactor * Double(rates.minKbps) {
                let since = resumableSince[index] ?? now
                resumableSince[index] = since
                if now - since >= resumeHoldMilliseconds {
                    running[index] = true
                    resumableSince[index] = nil
                } else {
                    stopped = true
                }
            } else {
                stopped = true
            }
            guard !stopped else {
                running[index] = false
                if left < resumeFactor * Double(rates.minKbps) { resumableSince[index] = nil }
                continue
            }
            let given = min(left, Double(rates.targetKbps))
            kbps[index] = Int(given)
            left -= given
            highest = index
        }
        if let top = highest, left > 0 {
            kbps[top] += Int(min(left, Double(max(0, layers[top].maxKbps - kbps[top]))))
        }
        return kbps
    }
}
