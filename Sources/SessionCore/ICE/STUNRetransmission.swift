/// When a STUN client resends a request and when it gives up (RFC 8489 §6.2.1, §6.2.2): over
/// UDP the request goes out at 0, RTO, 3 RTO, 7 RTO, ... doubling (RTO 500 ms), 7 sends in all
/// (Rc), and after the last the client waits 16 RTO (Rm) for an answer, 39.5 s in all; over a
/// reliable transport (TCP) it is sent once and the client waits Ti = 39.5 s. Times in
/// microseconds on the caller's clock.
public struct STUNRetransmission: Sendable, Hashable {
    public static let initialRTO: Int64 = 500_000
    public static let maximumSends = 7
    /// Rm: the last wait, in RTOs.
    public static let lastWaitMultiplier: Int64 = 16
    /// Ti: the wait on a reliable transport.
    public static let reliableTimeout: Int64 = 39_500_000

    public let reliable: Bool
    /// Sends so far (1 after the first).
    public private(set) var sends = 1
    /// When to send again, or (after the last send) to give up.
    public private(set) var nextDeadline: Int64

    /// The request was first sent at `now`.
    public init(reliable: Bool, sentAt now: Int64) {
        self.reliable = reliable
        nextDeadline = now + (reliable ? Self.reliableTimeout : Self.initialRTO)
    }

    /// At or after `nextDeadline`: true to send the request again (the next deadline is set),
    /// false to give up (no answer will be waited for any longer).
    public mutating func resendDue(now: Int64) -> Bool {
        guard !reliable, sends < Self.maximumSends else { return false }
        sends += 1
        nextDeadline = now + (sends == Self.maximumSends ? Self.lastWaitMultiplier * Self.initialRTO : Self.initialRTO << Int64(sends - 1))
        return true
    }
}
