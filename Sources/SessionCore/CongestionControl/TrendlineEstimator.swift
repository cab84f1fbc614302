/// The arrival-time filter of GCC's delay-based controller (draft-ietf-rmcat-gcc-02 §5.2–5.3, in
/// the trendline form libwebrtc uses): packets are grouped by send time (bursts of up to 5 ms);
/// between consecutive groups the one-way delay variation d = Δarrival − Δsend is accumulated,
/// smoothed (α = 0.9) and a least-squares slope is fitted over the last 20 groups. The slope,
/// scaled by the number of deltas (at most 60) and a gain of 4, is the trend the over-use
/// detector compares with its threshold (milliseconds).
public struct TrendlineEstimator: Sendable {
    public static let burstMicroseconds: Int64 = 5_000
    static let windowSize = 20
    static let smoothing = 0.9
    static let gain = 4.0

    private struct Group {
        var firstSend: Int64
        var lastSend: Int64
        var lastArrival: Int64
    }

    private var current: Group?
    private var previous: Group?
    private var firstArrival: Int64?
    private var accumulated = 0.0
    private var smoothed = 0.0
    private var samples: [(x: Double, y: Double)] = []
    private var deltas = 0
    /// The latest modified trend (ms), and how much time the latest group delta covered.
    public private(set) var trend = 0.0
    public private(set) var lastDeltaMilliseconds = 0.0

    public init() { samples.reserveCapacity(Self.windowSize) }

    /// Takes one received packet (in send order); returns true when a group completed and `trend`
    /// was updated.
    public mutating func add(sendMicroseconds send: Int64, arrivalMicroseconds arrival: Int64) -> Bool {
        guard var group = current else {
            current = Group(firstSend: send, lastSend: send, lastArrival: arrival)
            return false
        }
        if send - group.firstSend <= Self.burstMicroseconds, send >= group.firstSend {
            group.lastSend = max(group.lastSend, send)
            group.lastArrival = max(group.lastArrival, arrival)
            current = group
            return false
        }
        // A new burst: the current group is complete.
        defer { current = Group(firstSend: send, lastSend: send, lastArrival: arrival) }
        guard let before = previous else {
            previous = group
            return false
        }
        previous = group
        let arrivalDelta = Double(group.lastArrival - before.lastArrival) / 1000
        let sendDelta = Double(group.lastSend - before.lastSend) / 1000
        guard arrivalDelta > -1_000, sendDelta >= 0 else { return false }  // reordering or a clock jump
        lastDeltaMilliseconds = max(0, arrivalDelta)
        deltas = min(deltas + 1, 1_000)
        accumulated += arrivalDelta - sendDelta
        smoothed = Self.smoothing * smoothed + (1 - Self.smoothing) * accumulated
        let origin = firstArrival ?? group.lastArrival
        firstArrival = origin
        samples.append((Double(group.lastArrival - origin) / 1000, smoothed))
        if samples.count > Self.windowSize { samples.removeFirst() }
        if samples.count == Self.windowSize, let slope = Self.slope(samples) {
            trend = Double(min(deltas, 60)) * slope * Self.gain
        }
        return true
    }

    /// Least-squares slope of y over x.
    private static func slope(_ points: [(x: Double, y: Double)]) -> Double? {
        let count = Double(points.count)
        let meanX = points.reduce(0) { $0 + $1.x } / count, meanY = points.reduce(0) { $0 + $1.y } / count
        var numerator = 0.0, denominator = 0.0
        for point in points {
            numerator += (point.x - meanX) * (point.y - meanY)
            denominator += (point.x - meanX) * (point.x - meanX)
        }
        return denominator == 0 ? nil : numerator / denominator
    }
}
