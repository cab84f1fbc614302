/// Decides whether a NACKed packet may be resent (RFC 4585 §6.2.1 answered by retransmission),
/// so that feedback can never amplify into a flood, as libwebrtc's sender does:
/// - a packet is resent at most once per round-trip time (`minimumIntervalMilliseconds` while the
///   RTT is unknown): a repeat within it, e.g. the same sequence number twice in one NACK or in
///   NACKs sent back to back, is refused as `tooSoon`;
/// - at most `maximumResendsPerPacket` times in all (`exhausted`);
/// - retransmitted bytes stay within `mediaShare` of the media bytes sent over the last
///   `windowMilliseconds` (plus `allowanceBytes`, so a quiet stream can still repair a loss)
///   (`overBudget`).
/// Refusals are counted per reason. Per-packet state sits in a fixed ring indexed by sequence
/// number (no allocation after init); a new packet stored under a sequence number starts fresh.
/// Time is a parameter (milliseconds on any monotonic clock).
public struct RetransmissionBudget: Sendable {
    /// Settings of a budget.
    public struct Configuration: Sendable, Equatable {
        /// Least time between two resends of one packet while the RTT is unknown.
        public var minimumIntervalMilliseconds: Int64
        public var maximumResendsPerPacket: Int
        /// Retransmitted bytes allowed per media byte sent, over the window.
        public var mediaShare: Double
        public var windowMilliseconds: Int64
        /// Bytes allowed on top of the share within any window.
        public var allowanceBytes: Int

        /// Defaults: 100 ms without an RTT, 3 resends per packet, 50 % of the media rate over 1 s,
        /// plus 3,000 bytes.
        public init(minimumIntervalMilliseconds: Int64 = 100, maximumResendsPerPacket: Int = 3,
                    mediaShare: Double = 0.5, windowMilliseconds: Int64 = 1000, allowanceBytes: Int = 3000) {
            self.minimumIntervalMilliseconds = max(0, minimumIntervalMilliseconds)
            self.maximumResendsPerPacket = max(0, maximumResendsPerPacket)
            self.mediaShare = mediaShare.isFinite ? max(0, mediaShare) : 0
            self.windowMilliseconds = max(10, windowMilliseconds)
            self.allowanceBytes = max(0, allowanceBytes)
        }
    }

    /// What the budget says about one request.
    public enum Decision: Sendable, Equatable {
        case resend
        case tooSoon
        case exhausted
        case overBudget
    }

    /// Requests refused, per reason.
    public struct Refusals: Sendable, Equatable {
        public var tooSoon = 0
        public var exhausted = 0
        public var overBudget = 0
        public var total: Int { tooSoon + exhausted + overBudget }
        public init() {}
    }

    public let configuration: Configuration
    /// Requests refused so far.
    public private(set) var refusals = Refusals()
    private var media: ByteRateWindow
    private var resent: ByteRateWindow
    private var slotSequence: [UInt16]
    private var slotResends: [Int]
    private var slotLastResend: [Int64]

    /// - Parameter capacity: packets tracked (the sender's history size).
    public init(configuration: Configuration = Configuration(), capacity: Int) {
        self.configuration = configuration
        media = ByteRateWindow(windowMilliseconds: configuration.windowMilliseconds, bucketCount: 10)
        resent = ByteRateWindow(windowMilliseconds: configuration.windowMilliseconds, bucketCount: 10)
        let count = max(1, capacity)
        slotSequence = Array(repeating: 0, count: count)
        slotResends = Array(repeating: 0, count: count)
        slotLastResend = Array(repeating: .min, count: count)
    }

    /// A new media packet went out under `sequenceNumber` with `bytes` on the wire.
    public mutating func mediaSent(sequenceNumber: UInt16, bytes: Int, nowMilliseconds: Int64) {
        media.add(bytes: bytes, nowMilliseconds: nowMilliseconds)
        let slot = Int(sequenceNumber) % slotSequence.count
        slotSequence[slot] = sequenceNumber
        slotResends[slot] = 0
        slotLastResend[slot] = .min
    }

    /// Whether the packet `sequenceNumber` of `bytes` may be resent now; records the resend if so.
    /// `roundTripMilliseconds` (if known) replaces the minimum interval.
    public mutating func admit(sequenceNumber: UInt16, bytes: Int, roundTripMilliseconds: Int64?,
                               nowMilliseconds: Int64) -> Decision {
        let slot = Int(sequenceNumber) % slotSequence.count
        if slotSequence[slot] != sequenceNumber {
            // Not sent through this budget (e.g. rebuilt from another history): start its state.
            slotSequence[slot] = sequenceNumber
            slotResends[slot] = 0
            slotLastResend[slot] = .min
        }
        let interval = roundTripMilliseconds.map { max(1, $0) } ?? configuration.minimumIntervalMilliseconds
        let last = slotLastResend[slot]
        if last != .min {
            let (elapsed, overflow) = nowMilliseconds.subtractingReportingOverflow(last)
            if !overflow, elapsed < interval {
                refusals.tooSoon += 1
                return .tooSoon
            }
        }
        guard slotResends[slot] < configuration.maximumResendsPerPacket else {
            refusals.exhausted += 1
            return .exhausted
        }
        let allowed = Double(media.bytes(nowMilliseconds: nowMilliseconds)) * configuration.mediaShare
            + Double(configuration.allowanceBytes)
        guard Double(resent.bytes(nowMilliseconds: nowMilliseconds)) + Double(max(0, bytes)) <= allowed else {
            refusals.overBudget += 1
            return .overBudget
        }
        resent.add(bytes: bytes, nowMilliseconds: nowMilliseconds)
        slotResends[slot] += 1
        slotLastResend[slot] = nowMilliseconds
        return .resend
    }
}
