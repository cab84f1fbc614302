/// Decides how many simulcast layers (lightest first) a receiver's REMB
/// (draft-alvestrand-rmcat-remb-03) can carry, treating the REMB as an upper bound on the total
/// send bitrate: the lowest layer always flows, higher layers are paused from the top down when
/// the sum of the active layers' bitrates exceeds the REMB, and resumed (one at a time, lowest
/// paused layer first) only when the REMB has carried the larger sum with `resumeHeadroom` to spare
/// for at least `resumeHoldMilliseconds` (hysteresis, so a REMB hovering at a boundary does not
/// make a layer flap). A limit lapses when no REMB has come for `expiryMilliseconds` (the receiver
/// left or stopped estimating): every layer is allowed again.
///
/// Time is a parameter (milliseconds on any monotonic clock); no clocks, no I/O.
public struct REMBLayerAllocator: Sendable, Equatable {
    /// Bitrate of each layer, kbps, lightest first.
    public let layerKbps: [Int]
    /// A paused layer resumes only when the REMB is at least this factor times the total with it.
    public let resumeHeadroom: Double
    /// ... and has been for this long (0: at the first such REMB).
    public let resumeHoldMilliseconds: Int64
    /// Without a REMB for this long the limit lapses (0: never).
    public let expiryMilliseconds: Int64
    /// Layers currently allowed, lightest first (1...layerKbps.count; all until a REMB says less).
    public private(set) var activeLayerCount: Int
    /// The last REMB seen, bits per second.
    public private(set) var lastBitrate: UInt64?
    /// Since when the REMB has allowed one more layer (nil when it does not).
    private var resumeAllowedSince: Int64?
    /// When the last REMB arrived.
    private var lastUpdate: Int64?

    public init(layerKbps: [Int], resumeHeadroom: Double = 1.2, resumeHoldMilliseconds: Int64 = 1000,
                expiryMilliseconds: Int64 = 5000) {
        self.layerKbps = layerKbps.map { max(0, $0) }
        self.resumeHeadroom = resumeHeadroom.isFinite ? max(1, resumeHeadroom) : 1
        self.resumeHoldMilliseconds = max(0, resumeHoldMilliseconds)
        self.expiryMilliseconds = max(0, expiryMilliseconds)
        activeLayerCount = max(1, layerKbps.count)
    }

    /// Lifts the limit when the last REMB is older than `expiryMilliseconds`; returns the number of
    /// layers to keep active. Call it as time passes (e.g. once per frame).
    @discardableResult
    public mutating func expire(nowMilliseconds: Int64) -> Int {
        guard expiryMilliseconds > 0, let last = lastUpdate else { return activeLayerCount }
        let (age, overflow) = nowMilliseconds.subtractingReportingOverflow(last)
        guard !overflow, age >= expiryMilliseconds else { return activeLayerCount }
        lastUpdate = nil
        lastBitrate = nil
        resumeAllowedSince = nil
        activeLayerCount = max(1, layerKbps.count)
        return activeLayerCount
    }

    /// Total kbps of the lightest `count` layers.
    public func totalKbps(layers count: Int) -> Int {
        layerKbps.prefix(max(0, count)).reduce(0) { total, kbps in
            let (sum, overflow) = total.addingReportingOverflow(kbps)
            return overflow ? Int.max : sum
        }
    }

    /// Feeds one REMB (bits per second) received at `nowMilliseconds`; returns the number of layers
    /// to keep active.
    @discardableResult
    public mutating func update(bitrate: UInt64, nowMilliseconds: Int64) -> Int {
        lastBitrate = bitrate
        lastUpdate = nowMilliseconds
        let kbps = Double(bitrate) / 1000
        // Down at once: the REMB is an upper bound.
        var count = activeLayerCount
        while count > 1, Double(totalKbps(layers: count)) > kbps { count -= 1 }
        if count < activeLayerCount {
            activeLayerCount = count
            resumeAllowedSince = nil
            return count
        }
        // Up one layer at a time, after the hold.
        guard activeLayerCount < layerKbps.count,
              kbps >= Double(totalKbps(layers: activeLayerCount + 1)) * resumeHeadroom
        else {
            resumeAllowedSince = nil
            return activeLayerCount
        }
        let since = resumeAllowedSince ?? nowMilliseconds
        let (held, overflow) = nowMilliseconds.subtractingReportingOverflow(since)
        if !overflow, held >= resumeHoldMilliseconds {
            activeLayerCount += 1
            resumeAllowedSince = nil
        } else {
            resumeAllowedSince = since
        }
        return activeLayerCount
    }
}
