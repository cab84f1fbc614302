import Glibc

/// GCC's delay-based rate controller (draft-ietf-rmcat-gcc-02 §5.5): increase (multiplicatively,
/// 8 %/s, far from the last congestion point; additively, about a packet per response time,
/// near it), hold on under-use, decrease to β = 0.85 × the acknowledged rate on over-use. The
/// rate grows past 1.5 × the acknowledged rate + 10 kbps only while the sender uses it.
public struct AIMDRateController: Sendable {
    public enum State: Sendable, Equatable {
        case hold
        case increase
        case decrease
    }

    public let minimumBitsPerSecond: Double
    public let maximumBitsPerSecond: Double
    public private(set) var bitsPerSecond: Double
    public private(set) var state: State = .increase
    /// The acknowledged rate at the last decreases (mean and variance, normalized): where the
    /// link's capacity was found.
    private var capacityEstimate: Double?
    private var capacityVariance = 0.4
    private var lastChangeMilliseconds: Double?
    private var lastDecreaseMilliseconds: Double?
    static let beta = 0.85

    public init(initialBitsPerSecond: Double, minimumBitsPerSecond: Double = 30_000, maximumBitsPerSecond: Double = 20_000_000) {
        self.minimumBitsPerSecond = minimumBitsPerSecond
        self.maximumBitsPerSecond = max(minimumBitsPerSecond, maximumBitsPerSecond)
        bitsPerSecond = min(max(initialBitsPerSecond, minimumBitsPerSecond), self.maximumBitsPerSecond)
    }

    /// Applies the detector's signal with the acknowledged rate (nil before it is known) and the
    /// round-trip time; returns the new rate.
    @discardableResult
    public mutating func update(signal: OveruseDetector.Signal, acknowledgedBitsPerSecond acked: Double?,
                                roundTripMilliseconds: Double, nowMilliseconds: Double) -> Double {
        switch signal {
        case .overuse:
            // One decrease per reduction interval (the RTT, 10…200 ms), unless what gets through
            // is under half the rate: the queue a decrease drains must have time to drain.
            let interval = min(max(roundTripMilliseconds, 10), 200)
            let recent = lastDecreaseMilliseconds.map { nowMilliseconds - $0 < interval } ?? false
            state = recent && (acked ?? 0) >= 0.5 * bitsPerSecond ? .hold : .decrease
        case .underuse: state = .hold
        case .normal: if state != .increase { state = .increase }
        }
        let elapsed = lastChangeMilliseconds.map { min(max(0, nowMilliseconds - $0), 1_000) } ?? 0
        lastChangeMilliseconds = nowMilliseconds
        switch state {
        case .hold:
            break
        case .increase:
            if let acked, let capacity = capacityEstimate, abs(acked - capacity) > 3 * sqrt(capacityVariance * capacity) {
                capacityEstimate = nil  // the link changed: search multiplicatively again
            }
            let previous = bitsPerSecond
            if capacityEstimate != nil {
                // Additive: about one 1,200-byte packet per response time (RTT + 100 ms).
                let responseSeconds = (roundTripMilliseconds + 100) / 1000
                bitsPerSecond += max(1_000, 1_200 * 8 / responseSeconds) * elapsed / 1000
            } else {
                bitsPerSecond *= pow(1.08, elapsed / 1000)
            }
            // An application-limited sender does not prove the link: the rate grows no further
            // than 1.5 × what was acknowledged (+10 kbps), but is never cut for it.
            if let acked { bitsPerSecond = min(bitsPerSecond, max(previous, 1.5 * acked + 10_000)) }
        case .decrease:
            lastDecreaseMilliseconds = nowMilliseconds
            if let acked {
                bitsPerSecond = min(bitsPerSecond, Self.beta * acked)
                updateCapacity(acked)
            } else {
                bitsPerSecond *= Self.beta
            }
            state = .hold  // one decrease per over-use signal
        }
        bitsPerSecond = min(max(bitsPerSecond, minimumBitsPerSecond), maximumBitsPerSecond)
        return bitsPerSecond
    }

    /// Lifts the rate to at least `measured` (within the bounds): what a bandwidth probe proved
    /// the link carries. The capacity found at the last decrease no longer holds.
    public mutating func raise(to measured: Double) {
        guard measured > bitsPerSecond else { return }
        bitsPerSecond = min(measured, maximumBitsPerSecond)
        capacityEstimate = nil
    }

    private mutating func updateCapacity(_ acked: Double) {
        guard let capacity = capacityEstimate else {
            capacityEstimate = acked
            return
        }
        let alpha = 0.05
        let updated = (1 - alpha) * capacity + alpha * acked
        let normalizedError = (acked - updated) / max(1, updated)
        capacityVariance = min(max((1 - alpha) * capacityVariance + alpha * normalizedError * normalizedError, 0.4 / 1_000_000 * updated), 2.5)
        capacityEstimate = updated
    }
}
