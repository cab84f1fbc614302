internal import EngineCore

/// One direction of a simulated link for `VirtualTimeEngine` (RFC 8867's test-case vocabulary):
/// a fixed one-way delay, seeded random loss, and optionally a bottleneck's capacity with a
/// tail-drop queue. Every datagram the simulated network carries also pays 28 bytes of IPv4 +
/// UDP header against the capacity, as on a real link.
public struct VirtualNetworkConditions: Sendable, Hashable {
    /// Fixed one-way delay.
    public var oneWayDelay: Duration
    /// Probability (0...1) that a datagram is lost.
    public var lossProbability: Double
    /// The link's rate (nil: unlimited) and how long a datagram may queue for it before it is dropped.
    public var capacityBitsPerSecond: Int?
    public var queueLimit: Duration
    /// Seed of the loss decisions (the same seed loses the same datagrams).
    public var seed: UInt64

    public init(oneWayDelay: Duration = .microseconds(200), lossProbability: Double = 0, capacityBitsPerSecond: Int? = nil,
                queueLimit: Duration = .milliseconds(300), seed: UInt64 = 1) {
        self.oneWayDelay = oneWayDelay
        self.lossProbability = lossProbability
        self.capacityBitsPerSecond = capacityBitsPerSecond
        self.queueLimit = queueLimit
        self.seed = seed
    }

    /// What a call on one machine sees: 0.2 ms each way, nothing lost.
    public static let loopback = VirtualNetworkConditions()

    var impairment: NetworkImpairment.Configuration {
        NetworkImpairment.Configuration(lossProbability: lossProbability, oneWayDelayMicroseconds: oneWayDelay.microseconds,
                                        seed: seed, capacityBitsPerSecond: capacityBitsPerSecond,
                                        queueLimitMicroseconds: queueLimit.microseconds)
    }
}

extension Duration {
    /// Whole microseconds (rounded down).
    var microseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
