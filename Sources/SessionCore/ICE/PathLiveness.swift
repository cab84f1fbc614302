/// Whether the selected ICE pair still carries anything (issue 29 item 3): every datagram that
/// arrives on it counts, media, RTCP or STUN alike. A path silent for `probeAfterMilliseconds`
/// gets a consent check at once (RFC 7675 §5.1: a Binding request on the selected pair; a live
/// path answers within a round trip even when no media flows on it), repeated every
/// `probeIntervalMilliseconds` while the silence lasts; silent for `silentAfterMilliseconds`, it
/// is `.silent` (the room is reconnecting); the first datagram after that makes it `.live` again.
///
/// No I/O and no clock: the owner hands in how many datagrams arrived so far and the time
/// (milliseconds on any monotonic clock) at each `poll`, and sends the probes it asks for.
public struct PathLiveness: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Silent this long: the first probe goes out.
        public var probeAfterMilliseconds: Int64
        /// While the silence lasts, a probe this often.
        public var probeIntervalMilliseconds: Int64
        /// Silent this long: the path is `.silent`.
        public var silentAfterMilliseconds: Int64

        public init(probeAfterMilliseconds: Int64 = 1_000, probeIntervalMilliseconds: Int64 = 1_000,
                    silentAfterMilliseconds: Int64 = 2_500) {
            self.probeAfterMilliseconds = max(1, probeAfterMilliseconds)
            self.probeIntervalMilliseconds = max(1, probeIntervalMilliseconds)
            self.silentAfterMilliseconds = max(self.probeAfterMilliseconds, silentAfterMilliseconds)
        }
    }

    public enum State: Sendable, Hashable {
        /// Something arrived within `silentAfterMilliseconds`.
        case live
        /// Nothing arrived for `silentAfterMilliseconds` or longer.
        case silent
    }

    /// What one `poll` found.
    public struct Outcome: Sendable, Equatable {
        /// Send a consent check on the selected pair now.
        public var probe = false
        /// The state changed at this poll (the new one).
        public var changed: State?
    }

    public let configuration: Configuration
    public private(set) var state: State = .live
    /// When a datagram last arrived (as seen at the poll after it).
    public private(set) var lastReceivedMilliseconds: Int64
    private var datagramsSeen: Int
    private var nextProbeAt: Int64

    /// A path that has just carried something (its pair was selected at `nowMilliseconds`).
    public init(configuration: Configuration = Configuration(), nowMilliseconds: Int64, datagramsReceived: Int) {
        self.configuration = configuration
        lastReceivedMilliseconds = nowMilliseconds
        datagramsSeen = datagramsReceived
        nextProbeAt = nowMilliseconds + configuration.probeAfterMilliseconds
    }

    /// Notes what arrived since the last poll (`datagramsReceived` counts every datagram the
    /// path ever carried) and says whether to probe and whether the state changed.
    public mutating func poll(nowMilliseconds now: Int64, datagramsReceived: Int) -> Outcome {
        var outcome = Outcome()
        if datagramsReceived != datagramsSeen {
            datagramsSeen = datagramsReceived
            lastReceivedMilliseconds = now
            nextProbeAt = now + configuration.probeAfterMilliseconds
            if state == .silent {
                state = .live
                outcome.changed = .live
            }
            return outcome
        }
        if now >= nextProbeAt {
            outcome.probe = true
            nextProbeAt = now + configuration.probeIntervalMilliseconds
        }
        if state == .live, now - lastReceivedMilliseconds >= configuration.silentAfterMilliseconds {
            state = .silent
            outcome.changed = .silent
        }
        return outcome
    }

    /// When the next poll has something to do without a datagram arriving: the next probe or
    /// the moment the path turns silent (milliseconds).
    public var nextDeadlineMilliseconds: Int64 {
        state == .live ? min(nextProbeAt, lastReceivedMilliseconds + configuration.silentAfterMilliseconds) : nextProbeAt
    }

    /// How long nothing has arrived, at `nowMilliseconds`.
    public func silenceMilliseconds(nowMilliseconds now: Int64) -> Int64 { max(0, now - lastReceivedMilliseconds) }
}
