/// GCC's over-use detector (draft-ietf-rmcat-gcc-02 §5.4): the trend against an adaptive
/// threshold γ (12.5 ms at first, adapting with k_up 0.0087 / k_down 0.039 per ms, kept within
/// 6…600 ms). Over-use is signalled when the trend stays above γ for more than 10 ms and is not
/// falling; under-use when it is below −γ.
public struct OveruseDetector: Sendable {
    public enum Signal: Sendable, Equatable {
        case normal
        case overuse
        case underuse
    }

    public private(set) var threshold = 12.5
    public private(set) var signal: Signal = .normal
    private var overuseMilliseconds = -1.0
    private var overuseCount = 0
    private var previousTrend = 0.0
    private var lastUpdateMilliseconds: Double?

    public init() {}

    /// Updates with the trend at `nowMilliseconds`, `deltaMilliseconds` after the previous group.
    @discardableResult
    public mutating func update(trend: Double, deltaMilliseconds: Double, nowMilliseconds: Double) -> Signal {
        if trend > threshold {
            overuseMilliseconds = overuseMilliseconds < 0 ? deltaMilliseconds / 2 : overuseMilliseconds + deltaMilliseconds
            overuseCount += 1
            if overuseMilliseconds > 10, overuseCount > 1, trend >= previousTrend {
                overuseMilliseconds = 0
                overuseCount = 0
                signal = .overuse
            }
        } else if trend < -threshold {
            overuseMilliseconds = -1
            overuseCount = 0
            signal = .underuse
        } else {
            overuseMilliseconds = -1
            overuseCount = 0
            signal = .normal
        }
        previousTrend = trend
        adaptThreshold(trend: trend, nowMilliseconds: nowMilliseconds)
        return signal
    }

    private mutating func adaptThreshold(trend: Double, nowMilliseconds: Double) {
        defer { lastUpdateMilliseconds = nowMilliseconds }
        guard let last = lastUpdateMilliseconds else { return }
        let magnitude = abs(trend)
        // A spike far above the threshold (a route change, a burst) does not move it.
        guard magnitude - threshold <= 15 else { return }
        let k = magnitude < threshold ? 0.039 : 0.0087
        threshold += k * (magnitude - threshold) * min(max(0, nowMilliseconds - last), 100)
        threshold = min(max(threshold, 6), 600)
    }
}
