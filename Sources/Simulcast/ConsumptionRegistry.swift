/// One `ConsumptionPolicy` per subscriber, answering the forwarder's question "who gets this
/// packet?" (docs/adaptive-subscriptions.md). A subscriber not registered receives nothing.
public struct ConsumptionRegistry: Sendable, Hashable {
    private var policies: [String: ConsumptionPolicy] = [:]

    public init() {}

    /// Registers a subscriber (replacing any earlier registration under the same id).
    public mutating func addSubscriber(_ subscriberId: String, autoConsume: Bool) {
        policies[subscriberId] = ConsumptionPolicy(autoConsume: autoConsume)
    }

    /// Forgets a subscriber.
    public mutating func removeSubscriber(_ subscriberId: String) {
        policies[subscriberId] = nil
    }

    /// The policy of one subscriber, nil when it is not registered.
    public func policy(of subscriberId: String) -> ConsumptionPolicy? { policies[subscriberId] }

    /// `subscriberId` consumes the given kinds of `participantId`. False if the subscriber is unknown.
    @discardableResult
    public mutating func consume(subscriber subscriberId: String, participant participantId: String,
                                 _ kinds: Set<ConsumableTrackKind> = Set(ConsumableTrackKind.allCases)) -> Bool {
        guard policies[subscriberId] != nil else { return false }
        policies[subscriberId]?.consume(participantId, kinds)
        return true
    }

    /// `subscriberId` stops consuming the given kinds of `participantId`; nobody else is affected.
    /// False if the subscriber is unknown.
    @discardableResult
    public mutating func stopConsuming(subscriber subscriberId: String, participant participantId: String,
                                       _ kinds: Set<ConsumableTrackKind> = Set(ConsumableTrackKind.allCases)) -> Bool {
        guard policies[subscriberId] != nil else { return false }
        policies[subscriberId]?.stopConsuming(participantId, kinds)
        return true
    }

    /// Whether media of `kind` from `participantId` is forwarded to `subscriberId`. A participant
    /// is never forwarded its own media.
    public func shouldForward(_ kind: ConsumableTrackKind, from participantId: String, to subscriberId: String) -> Bool {
        guard subscriberId != participantId, let policy = policies[subscriberId] else { return false }
        return policy.isConsuming(kind, of: participantId)
    }

    /// Every subscriber that receives media of `kind` from `participantId`, sorted by id.
    public func subscribers(receiving kind: ConsumableTrackKind, from participantId: String) -> [String] {
        policies.keys.filter { shouldForward(kind, from: participantId, to: $0) }.sorted()
    }

    /// A participant left: every subscriber forgets its choices about it.
    public mutating func participantLeft(_ participantId: String) {
        for subscriberId in Array(policies.keys) { policies[subscriberId]?.participantLeft(participantId) }
        policies[participantId] = nil
    }
}
