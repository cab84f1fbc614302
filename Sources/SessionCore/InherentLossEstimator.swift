import Glibc

/// Tells loss a link has whatever the sending rate (Wi-Fi, cellular, a lossy radio hop) from loss
/// the sender causes by sending too much (the idea behind libwebrtc's loss-based estimator v2: a
/// link's loss is an inherent part plus a part that grows once the rate passes the capacity; only
/// the second is congestion).
///
/// The estimator keeps the inherent loss and the sending rate at which it was last confirmed.
/// Each interval's loss is judged against them:
/// - queueing delay at the same time (`queueing == true`, e.g. GCC's over-use signal): all of the
///   loss is congestion, and nothing is learned from it (a downward correction excepted);
/// - within the binomial noise of the inherent loss: random; learned, and the rate confirmed;
/// - above it while the sending rate grew more than `rateGrowth` since the last confirmation: the
///   loss grew with the rate, the excess is congestion (not learned);
/// - above it at about the confirmed rate: the link itself got lossier. Learned quickly when the
///   caller knows there is no queueing (`queueing == false`), slowly when it cannot tell (`nil`, a
///   receiver that sees only sequence numbers), so a capacity drop still shows as excess loss for
///   a while.
/// The inherent loss stays within `0...maximumInherentLoss`: a link losing more than that is
/// treated as congested whatever the cause, and an interval losing more than twice that (a
/// collapse) teaches nothing. Time-free; no allocation.
public struct InherentLossEstimator: Sendable, Equatable {
    /// The most loss taken as the link's own (15 %).
    public static let maximumInherentLoss = 0.15
    /// A sending rate more than this factor above the confirmed one counts as grown.
    public static let rateGrowth = 1.1

    /// The loss the link shows whatever the rate (0…`maximumInherentLoss`).
    public private(set) var inherentLoss = 0.0
    /// The sending rate at which `inherentLoss` was last confirmed (bits per second).
    public private(set) var confirmedBitsPerSecond: Double?

    public init() {}

    /// Judges the loss `lossFraction` (0…1) of one interval of `packets` packets (nil: unknown)
    /// sent at `sendingBitsPerSecond` (nil: unknown), with `queueing` what the caller knows of the
    /// queueing delay meanwhile. Returns the part of the loss that is congestion (0…1).
    public mutating func congestionLoss(lossFraction loss: Double, packets: Int?, sendingBitsPerSecond sending: Double?,
                                        queueing: Bool?) -> Double {
        let excess = max(0, loss - inherentLoss)
        if queueing == true {
            if loss < inherentLoss { learn(loss, rate: 0.3) }
            return loss
        }
        // Two standard deviations of a binomial count around the inherent loss (a floor of 1 %
        // keeps a loss-free history from calling the first lost packet congestion).
        let noise = packets.map { count -> Double in
            let p = max(inherentLoss, 0.01)
            return 2 * (p * (1 - p) / Double(max(1, count))).squareRoot()
        } ?? 0.02
        if loss <= inherentLoss + noise {
            learn(loss, rate: 0.2)
            if let sending { confirmedBitsPerSecond = sending }
            return max(0, loss - inherentLoss)
        }
        let grew = sending.map { now in confirmedBitsPerSecond.map { now > $0 * Self.rateGrowth } ?? false } ?? false
        // Loss that grew with the rate, or far more than any lossy link shows: congestion.
        if grew || loss > 2 * Self.maximumInherentLoss { return excess }
        learn(loss, rate: queueing == false ? 0.3 : 0.05)
        if let sending, confirmedBitsPerSecond == nil { confirmedBitsPerSecond = sending }
        return excess
    }

    private mutating func learn(_ loss: Double, rate: Double) {
        inherentLoss = min(max(inherentLoss + rate * (loss - inherentLoss), 0), Self.maximumInherentLoss)
    }
}
