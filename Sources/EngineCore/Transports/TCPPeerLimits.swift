/// What a server's TCP side (`UDPAndTCPTransport`) allows strangers and peers: how many
/// connections, how long one may take to prove who it is, how long a proven one may stay silent,
/// and how long accepting pauses when the process runs out of descriptors. Every connection a
/// stranger can open costs a descriptor and some memory until one of these limits ends it.
public struct TCPPeerLimits: Sendable, Equatable {
    /// Connections held at once, proven or not; one over it is closed as soon as it is accepted.
    public var maximumConnections: Int
    /// Connections held at once that have not proven themselves yet; a new one over it closes
    /// the oldest such connection (so a flood of idle strangers cannot lock out a participant
    /// whose check arrives right after it connects).
    public var maximumUnverifiedConnections: Int
    /// How long a connection has to send a verified STUN check (`STUNBindingCheck`) before it is
    /// closed: a connection that stalls, drips or sends anything else is gone after this.
    public var verificationTimeoutMilliseconds: Int64
    /// How long a proven connection may go without one whole datagram (media, feedback or a
    /// keep-alive check) before it is closed.
    public var idleTimeoutMilliseconds: Int64
    /// How long the listener is left alone after `accept` failed for want of descriptors or
    /// memory (EMFILE, ENFILE, ENOBUFS, ENOMEM), while UDP and the connections keep being served.
    public var acceptBackoffMilliseconds: Int64

    public init(maximumConnections: Int = 256, maximumUnverifiedConnections: Int = 16,
                verificationTimeoutMilliseconds: Int64 = 2_000, idleTimeoutMilliseconds: Int64 = 15_000,
                acceptBackoffMilliseconds: Int64 = 100) {
        self.maximumConnections = max(1, maximumConnections)
        self.maximumUnverifiedConnections = max(1, min(maximumUnverifiedConnections, self.maximumConnections))
        self.verificationTimeoutMilliseconds = max(1, verificationTimeoutMilliseconds)
        self.idleTimeoutMilliseconds = max(1, idleTimeoutMilliseconds)
        self.acceptBackoffMilliseconds = max(1, acceptBackoffMilliseconds)
    }
}

/// What a server's TCP side did with the connections it was offered, counted.
public struct TCPPeerCounters: Sendable, Equatable {
    /// Connections accepted (before any check).
    public var accepted = 0
    /// Connections whose credentialed STUN check verified.
    public var verified = 0
    /// Connections closed because they broke (peer closed, error, lost framing).
    public var broken = 0
    /// Connections closed at once because `maximumConnections` were held.
    public var refusedOverCap = 0
    /// Unverified connections closed to make room for a newer one, or to free a descriptor.
    public var evictedUnverified = 0
    /// Connections closed for not proving themselves in time, or for going silent once proven.
    public var verificationTimeouts = 0
    public var idleTimeouts = 0
    /// STUN checks on a connection that did not verify (unknown username, bad integrity): the
    /// connection is closed.
    public var failedChecks = 0
    /// Datagrams from connections not proven yet, dropped unread.
    public var unverifiedDatagramsDropped = 0
    /// `accept` calls that failed, and those for want of descriptors or memory (backed off).
    public var acceptFailures = 0
    public var acceptFailuresForResources = 0
    /// Sends refused because the destination's connection is unknown or not proven.
    public var sendsRefused = 0

    public init() {}
}
