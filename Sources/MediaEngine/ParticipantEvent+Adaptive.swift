import Simulcast

extension ParticipantEvent {
    /// The event an adaptive-subscription pause or resume of `key` (a participant id, or
    /// `RoomNode.screenShareKey` of one) is told as (docs/adaptive-subscriptions.md), in a hosted
    /// room and in a Janus room alike.
    init(adaptive event: AdaptiveSubscriptionEvent, screenShareOwner owner: String?) {
        switch (event.kind, owner) {
        case let (.paused(reason), nil): self = .subscriptionPaused(publisherId: event.participantId, reason: reason)
        case let (.resumed(reason), nil): self = .subscriptionResumed(publisherId: event.participantId, reason: reason)
        case let (.paused(reason), owner?): self = .screenShareSubscriptionPaused(publisherId: owner, reason: reason)
        case let (.resumed(reason), owner?): self = .screenShareSubscriptionResumed(publisherId: owner, reason: reason)
        }
    }
}
