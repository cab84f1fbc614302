import Glibc

/// The loss-based half of GCC (draft-ietf-rmcat-gcc-02 §6), as a rate ceiling that follows the
/// loss reported for what was sent, less the loss the link has whatever the rate
/// (`InherentLossEstimator`: loss that does not grow with the sending rate and comes without
/// queueing delay is the link's own, as in libwebrtc's loss-based estimator v2). Of the rest, the
/// congestion loss:
/// - above `highLossFraction` (10 %): the ceiling falls to
///   `min(ceiling × (1 − loss / 2), delivered)`: never above what actually got through;
/// - below `lowLossFraction` (2 %): the ceiling grows by `increasePerSecond` (compounded
///   over the time since the previous update, at most 2 s of it), starting from at least the
///   delivered rate;
/// - in between: held.
/// The result stays within `minimumBitsPerSecond...maximumBitsPerSecond`.
///
/// Used on both sides of a link: a receiver's REMB estimate (`BandwidthEstimator`, loss from the
/// sequence numbers it saw, delivered = its incoming rate) and a forwarding node's per-subscriber
/// ceiling (loss from the subscriber's receiver reports against what the node sent), so that a
/// link which delivers nothing at all still lowers the estimate. Time is a parameter.
public struct LossBasedRateControl: Sendable {
    /// Settings of the controller.
    public struct Configuration: Sendable, Equatable {
        public var initialBitsPerSecond: UInt64
        public var minimumBitsPerSecond: UInt64
        public var maximumBitsPerSecond: UInt64
        /// Growth per second under low loss (0.25 = +25 %/s; GCC's own is about 8 %/s).
        public var increasePerSecond: Double
        public var lowLossFraction: Double
        public var highLossFraction: Double

        /// Settings (defaults: start 300 kbps, 30 kbps…20 Mbps, +25 %/s under 2 % loss,
        /// back-off over 10 %).
        public init(initialBitsPerSecond: UInt64 = 300_000, minimumBitsPerSecond: UInt64 = 30_000,
                    maximumBitsPerSecond: UInt64 = 20_000_000, increasePerSecond: Double = 0.25,
                    lowLossFraction: Double = 0.02, highLossFraction: Double = 0.10) {
            self.minimumBitsPerSecond = minimumBitsPerSecond
            self.maximumBitsPerSecond = max(minimumBitsPerSecond, maximumBitsPerSecond)
            self.initialBitsPerSecond = min(max(initialBitsPerSecond, minimumBitsPerSecond), self.maximumBitsPerSecond)
            self.increasePerSecond = increasePerSecond.isFinite ? max(0, increasePerSecond) : 0
            self.lowLossFraction = lowLossFraction.isFinite ? lowLossFraction : 0.02
            self.highLossFraction = highLossFraction.isFinite ? max(self.lowLossFraction, highLossFraction) : 0.10
        }
    }

    /// The settings in use.
    public let configuration: Configuration
    /// The current ceiling, bits per second.
    public private(set) var bitsPerSecond: UInt64
    private var lastUpdateMilliseconds: Int64?
    private var inherent = InherentLossEstimator()
    /// The loss the link shows whatever the rate, as estimated so far (0…0.15).
    public var inherentLossFraction: Double { inherent.inherentLoss }

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        bitsPerSecond = configuration.initialBitsPerSecond
    }

    /// Applies the loss fraction (0…1; anything else is clamped, NaN counts as 0) measured since
    /// the previous update, with the rate that got through meanwhile (nil: not known, then a
    /// high loss only scales the ceiling). `packets` is how many the fraction was measured on,
    /// `sendingBitsPerSecond` the rate sent meanwhile (nil: taken as delivered / (1 − loss)) and
    /// `queueing` whether the queueing delay grew meanwhile (nil: not known), for telling the
    /// link's own loss from congestion (`InherentLossEstimator`). Returns the new ceiling.
    @discardableResult
    public mutating func update(lossFraction: Double, deliveredBitsPerSecond: UInt64?, nowMilliseconds: Int64,
                                packets: Int? = nil, sendingBitsPerSecond: UInt64? = nil, queueing: Bool? = nil) -> UInt64 {
        let delivered = deliveredBitsPerSecond.map { Double($0) }  // not Double.init, which picks init(bitPattern:)
        let elapsed = lastUpdateMilliseconds.map { last -> Double in
            let (difference, overflow) = nowMilliseconds.subtractingReportingOverflow(last)
            return overflow ? 0 : Double(min(max(0, difference), 2000)) / 1000
        } ?? 0
        lastUpdateMilliseconds = nowMilliseconds
        var estimate = Double(bitsPerSecond)
        let measured = lossFraction.isFinite ? min(max(lossFraction, 0), 1) : 0
        let sending = sendingBitsPerSecond.map { Double($0) } ?? delivered.map { $0 / max(1 - measured, 0.01) }
        let loss = inherent.congestionLoss(lossFraction: measured, packets: packets, sendingBitsPerSecond: sending,
                                           queueing: queueing)
        if loss > configuration.highLossFraction {
            estimate = min(estimate * (1 - loss / 2), delivered ?? .infinity)
        } else if loss < configuration.lowLossFraction {
            estimate = max(estimate, delivered ?? 0) * pow(1 + configuration.increasePerSecond, elapsed)
        }
        let lower = Double(configuration.minimumBitsPerSecond), upper = Double(configuration.maximumBitsPerSecond)
        bitsPerSecond = UInt64(min(max(estimate, lower), upper))
        return bitsPerSecond
    }

    /// Lifts the ceiling to at least `floor` (within the bounds): what a bandwidth probe proved the
    /// link carries without loss.
    public mutating func raise(to floor: UInt64) {
        bitsPerSecond = min(max(bitsPerSecond, floor), configuration.maximumBitsPerSecond)
    }

    /// Caps the ceiling at `limit` (e.g. a multiple of the incoming rate), within the bounds.
    public mutating func cap(at limit: UInt64) {
        bitsPerSecond = min(max(min(bitsPerSecond, limit), configuration.minimumBitsPerSecond), configuration.maximumBitsPerSecond)
    }
}
