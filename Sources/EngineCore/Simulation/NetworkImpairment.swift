import RTPWire

/// A small, reusable network impairment for one direction of a loopback path: seeded random
/// loss, a fixed one-way delay through a timed queue, and optional reordering. Pure state: the
/// caller offers each datagram with the current time (`offer`) and collects what is due
/// (`releaseDue`); `NetworkImpairmentRelay` puts two of these on a UDP path.
///
/// - Loss: each offered datagram is dropped with probability `lossProbability`, decided by a
///   `SplitMix64` seeded with `seed`, so a run replays identically. `LossModel.independent`
///   draws every datagram on its own (Bernoulli: the realised rate wanders like a binomial);
///   `LossModel.spread` keeps the realised rate on target — drops stay within ±2 of
///   `lossProbability × offered` at every point — while their positions stay random (a
///   randomised error-diffusion threshold), for short runs that must show a known rate.
/// - Delay: a kept datagram is due `oneWayDelayMicroseconds` after it was offered.
/// - Reordering: with probability `reorderProbability` a kept datagram waits
///   `reorderDelayMicroseconds` longer, so datagrams offered after it overtake it.
/// - Bottleneck: with `capacityBitsPerSecond`, datagrams leave one after another at that rate
///   (a FIFO link: each waits for the ones before it to be serialized), and one that would wait
///   longer than `queueLimitMicroseconds` is dropped (tail drop), as a router's buffer does.
/// Datagrams due at the same time leave in the order they were offered.
public struct NetworkImpairment: Sendable {
    /// How drops are drawn.
    public enum LossModel: Sendable, Hashable {
        /// Every datagram independently (Bernoulli).
        case independent
        /// Random positions, realised rate held within ±2 datagrams of the target.
        case spread
    }

    /// One direction's impairment.
    public struct Configuration: Sendable, Hashable {
        /// Probability (0...1) that a datagram is dropped.
        public var lossProbability: Double
        public var lossModel: LossModel
        /// Fixed one-way delay, microseconds (≥ 0).
        public var oneWayDelayMicroseconds: Int64
        /// Probability (0...1) that a kept datagram is held back to be overtaken.
        public var reorderProbability: Double
        /// Extra delay of a held-back datagram, microseconds (≥ 0).
        public var reorderDelayMicroseconds: Int64
        /// Seed of the random decisions.
        public var seed: UInt64
        /// The link's rate (nil: unlimited) and how long a datagram may wait for it.
        public var capacityBitsPerSecond: Int?
        public var queueLimitMicroseconds: Int64

        /// Probabilities are clamped to 0...1 (non-finite → 0), delays to ≥ 0.
        public init(lossProbability: Double = 0, lossModel: LossModel = .independent,
                    oneWayDelayMicroseconds: Int64 = 0, reorderProbability: Double = 0,
                    reorderDelayMicroseconds: Int64 = 5_000, seed: UInt64 = 1,
                    capacityBitsPerSecond: Int? = nil, queueLimitMicroseconds: Int64 = 300_000) {
            self.lossProbability = lossProbability.isFinite ? min(max(lossProbability, 0), 1) : 0
            self.lossModel = lossModel
            self.oneWayDelayMicroseconds = max(0, oneWayDelayMicroseconds)
            self.reorderProbability = reorderProbability.isFinite ? min(max(reorderProbability, 0), 1) : 0
            self.reorderDelayMicroseconds = max(0, reorderDelayMicroseconds)
            self.seed = seed
            self.capacityBitsPerSecond = capacityBitsPerSecond.map { max(1_000, $0) }
            self.queueLimitMicroseconds = max(0, queueLimitMicroseconds)
        }

        /// No loss, no delay, no reordering.
        public static let transparent = Configuration()
    }

    /// What happened to the datagrams offered so far.
    public struct Statistics: Sendable, Hashable {
        public var offered = 0
        public var dropped = 0
        /// Of `dropped`, those the bottleneck's queue had no room for.
        public var droppedByQueue = 0
        /// Kept datagrams that were held back to be overtaken.
        public var reordered = 0
        /// Datagrams handed out by `releaseDue`.
        public var released = 0
        /// The most datagrams waiting at once.
        public var maximumQueued = 0

        public init() {}

        /// `dropped / offered`, 0 before anything was offered.
        public var realisedLoss: Double { offered == 0 ? 0 : Double(dropped) / Double(offered) }
    }

    private struct Queued: Sendable {
        var due: Int64
        var bytes: [UInt8]
    }

    public var configuration: Configuration
    public private(set) var statistics = Statistics()
    private var random: SplitMix64
    /// `.spread` credit: target drops minus actual drops so far (stays in (−1, 1]).
    private var lossCredit = 0.0
    /// Sorted by due time; equal times keep offer order.
    private var queue: [Queued] = []
    /// When the bottleneck finishes serializing what it has accepted.
    private var linkFreeMicroseconds: Int64 = .min

    public init(configuration: Configuration) {
        self.configuration = configuration
        random = SplitMix64(seed: configuration.seed)
    }

    /// Offers one datagram at `nowMicroseconds`. Returns false when it was dropped.
    @discardableResult
    public mutating func offer(_ datagram: some Collection<UInt8>, nowMicroseconds now: Int64) -> Bool {
        statistics.offered += 1
        if shouldDrop() {
            statistics.dropped += 1
            return false
        }
        var departure = now
        if let capacity = configuration.capacityBitsPerSecond {
            let start = max(now, linkFreeMicroseconds)
            guard start - now <= configuration.queueLimitMicroseconds else {
                statistics.dropped += 1
                statistics.droppedByQueue += 1
                return false
            }
            linkFreeMicroseconds = start + Int64(datagram.count) * 8 * 1_000_000 / Int64(capacity)
            departure = linkFreeMicroseconds
        }
        var due = saturatingAdd(departure, configuration.oneWayDelayMicroseconds)
        if configuration.reorderProbability > 0, chance(configuration.reorderProbability) {
            due = saturatingAdd(due, configuration.reorderDelayMicroseconds)
            statistics.reordered += 1
        }
        // Almost always due last: walk back from the end to the insertion point.
        var index = queue.endIndex
        while index > queue.startIndex, queue[index - 1].due > due { index -= 1 }
        queue.insert(Queued(due: due, bytes: Array(datagram)), at: index)
        statistics.maximumQueued = max(statistics.maximumQueued, queue.count)
        return true
    }

    /// Hands every datagram due at or before `nowMicroseconds` to `deliver`, in due order.
    /// Returns how many were released.
    @discardableResult
    public mutating func releaseDue<Failure: Error>(nowMicroseconds now: Int64,
                                                    _ deliver: ([UInt8]) throws(Failure) -> Void) throws(Failure) -> Int {
        var count = 0
        while let first = queue.first, first.due <= now {
            queue.removeFirst()
            statistics.released += 1
            count += 1
            try deliver(first.bytes)
        }
        return count
    }

    /// When the next queued datagram is due; nil when nothing waits.
    public var nextDueMicroseconds: Int64? { queue.first?.due }

    /// Datagrams waiting in the delay queue.
    public var queuedCount: Int { queue.count }

    /// How long a datagram offered at `nowMicroseconds` would wait for the bottleneck (its
    /// queueing delay; 0 without a capacity or with the link idle).
    public func backlogMicroseconds(nowMicroseconds now: Int64) -> Int64 {
        configuration.capacityBitsPerSecond == nil || linkFreeMicroseconds <= now ? 0 : linkFreeMicroseconds - now
    }

    private mutating func shouldDrop() -> Bool {
        let probability = configuration.lossProbability
        guard probability > 0 else { return false }
        switch configuration.lossModel {
        case .independent:
            return chance(probability)
        case .spread:
            // Drop when the owed drops reach a random threshold in (0, 1]: the credit stays in
            // (−1, 1], so drops never drift more than two from probability × offered.
            lossCredit += probability
            let threshold = 1 - unitInterval()  // (0, 1]
            guard lossCredit >= threshold else { return false }
            lossCredit -= 1
            return true
        }
    }

    private mutating func chance(_ probability: Double) -> Bool { unitInterval() < probability }

    /// A uniform draw from [0, 1) with 53 random bits.
    private mutating func unitInterval() -> Double { Double(random.next() >> 11) / Double(UInt64(1) << 53) }

    private func saturatingAdd(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? Int64.max : sum
    }
}
