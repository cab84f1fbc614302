/// What the TCP side of a hosted room's node did with the connections it was offered (issue 25):
/// for demos and tests that probe it as a stranger would (package-visible, not client API).
package struct TCPConnectionSummary: Sendable, Equatable {
    /// Connections accepted, and those that proved a participant's credentials.
    package var accepted: Int
    package var proven: Int
    /// Connections closed without proving themselves: too slow, a failed check, evicted by newer
    /// strangers, or over the connection cap.
    package var closedUnproven: Int
    /// Datagrams from unproven connections, dropped unread.
    package var droppedUnproven: Int
    /// `accept` failures for want of descriptors or memory (EMFILE, ENFILE, ...), each backed off.
    package var acceptFailuresForResources: Int
    /// Sends to a TCP destination that had not proven itself, refused.
    package var sendsRefused: Int
}
