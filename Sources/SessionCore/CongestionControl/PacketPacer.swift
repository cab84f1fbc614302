/// The paced sender of a congested link (libwebrtc's pacer): packets wait here and leave at the
/// pacing rate (a multiple of the send-side estimate), in bursts of at most `burstMilliseconds`,
/// so a key frame of dozens of packets does not hit the bottleneck at once. Audio and
/// retransmissions leave before video. Storage is fixed at `capacity` packets of at most
/// `maximumPacketSize` bytes, allocated once: enqueueing and draining allocate nothing. When it is
/// full a packet is refused (the caller sends it unpaced and counts it). Time is a parameter.
public struct PacketPacer: Sendable {
    public enum Priority: Sendable, Equatable {
        /// Audio and retransmissions: first out.
        case urgent
        case video
    }

    public struct Configuration: Sendable, Equatable {
        public var capacity: Int
        public var maximumPacketSize: Int
        /// The longest burst the budget allows, milliseconds of the pacing rate.
        public var burstMilliseconds: Double

        public init(capacity: Int = 1_024, maximumPacketSize: Int = 1_600, burstMilliseconds: Double = 5) {
            self.capacity = max(8, capacity)
            self.maximumPacketSize = max(64, maximumPacketSize)
            self.burstMilliseconds = max(1, burstMilliseconds)
        }
    }

    /// One packet as it leaves: its bytes are valid only during the call.
    public struct Departure {
        public var bytes: UnsafeRawBufferPointer
        public var ssrc: UInt32
        /// The transport-wide sequence number it carries, if it is one to report as sent.
        public var transportSequenceNumber: UInt16?
        /// How long it waited, microseconds.
        public var waitedMicroseconds: Int64
    }

    public let configuration: Configuration
    /// Bits per second the queue drains at.
    public var bitsPerSecond: UInt64
    /// Bytes and packets waiting.
    public private(set) var queuedBytes = 0
    public var queuedPackets: Int { urgent.count + video.count }
    /// Packets refused because the queue was full.
    public private(set) var refused = 0

    private var storage: [UInt8]
    private var lengths: [Int]
    private var ssrcs: [UInt32]
    private var sequences: [Int32]
    private var enqueued: [Int64]
    private var free: [Int]
    private var urgent: SlotRing
    private var video: SlotRing
    private var budgetBytes = 0.0
    private var lastDrainMicroseconds: Int64?

    public init(bitsPerSecond: UInt64, configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.bitsPerSecond = bitsPerSecond
        storage = Array(repeating: 0, count: configuration.capacity * configuration.maximumPacketSize)
        lengths = Array(repeating: 0, count: configuration.capacity)
        ssrcs = Array(repeating: 0, count: configuration.capacity)
        sequences = Array(repeating: -1, count: configuration.capacity)
        enqueued = Array(repeating: 0, count: configuration.capacity)
        free = Array((0..<configuration.capacity).reversed())
        urgent = SlotRing(capacity: configuration.capacity)
        video = SlotRing(capacity: configuration.capacity)
    }

    /// How long what waits would take to leave at the pacing rate, milliseconds.
    public var queuedMilliseconds: Double {
        bitsPerSecond == 0 ? 0 : Double(queuedBytes) * 8 / Double(bitsPerSecond) * 1_000
    }

    /// Queues a copy of `bytes`; false when full or too large (then send it yourself).
    public mutating func enqueue(_ bytes: UnsafeRawBufferPointer, ssrc: UInt32, transportSequenceNumber: UInt16?,
                                 priority: Priority, nowMicroseconds: Int64) -> Bool {
        guard bytes.count <= configuration.maximumPacketSize, let slot = free.popLast() else {
            refused += 1
            return false
        }
        let offset = slot * configuration.maximumPacketSize
        storage.withUnsafeMutableBytes { destination in
            UnsafeMutableRawBufferPointer(rebasing: destination[offset..<offset + bytes.count]).copyMemory(from: bytes)
        }
        lengths[slot] = bytes.count
        ssrcs[slot] = ssrc
        sequences[slot] = transportSequenceNumber.map { Int32($0) } ?? -1
        enqueued[slot] = nowMicroseconds
        queuedBytes += bytes.count
        if priority == .urgent { urgent.push(slot) } else { video.push(slot) }
        return true
    }

    /// Hands `send` every packet the budget allows at `nowMicroseconds`, urgent ones first.
    /// When `drain` next lets a packet leave (µs): nil while nothing is queued; else when the
    /// budget, in debt after the last drain, is repaid at `bitsPerSecond` (`Int64.min`: never drained, at once).
    public var nextDepartureMicroseconds: Int64? {
        guard queuedPackets > 0 else { return nil }
        guard let last = lastDrainMicroseconds else { return .min }
        guard budgetBytes < 0 else { return last }
        guard bitsPerSecond > 0 else { return nil }  // a paused pacer: a rate change comes with a pass
        let perMicrosecond = Double(bitsPerSecond) / 8 / 1_000_000
        return last + Int64((-budgetBytes / perMicrosecond).rounded(.up))
    }

    public mutating func drain<Failure: Error>(nowMicroseconds now: Int64,
                                               _ send: (Departure) throws(Failure) -> Void) throws(Failure) {
        let elapsed = lastDrainMicroseconds.map { max(0, now - $0) } ?? 0
        lastDrainMicroseconds = now
        let perMicrosecond = Double(bitsPerSecond) / 8 / 1_000_000
        let cap = max(Double(configuration.maximumPacketSize), perMicrosecond * configuration.burstMilliseconds * 1_000)
        budgetBytes = min(budgetBytes + perMicrosecond * Double(elapsed), cap)
        // Nothing waits: an idle link does not bank a burst.
        if queuedPackets == 0 { budgetBytes = min(budgetBytes, 0) }
        // A packet may leave while the budget is not in debt (the one that overdraws it repays
        // before the next).
        while budgetBytes >= 0 {
            guard let slot = urgent.pop() ?? video.pop() else { break }
            let length = lengths[slot]
            let offset = slot * configuration.maximumPacketSize
            budgetBytes -= Double(length)
            queuedBytes -= length
            free.append(slot)
            let sequence = sequences[slot]
            let waited = now - enqueued[slot]
            let result: Result<Void, Failure> = storage.withUnsafeBytes { bytes in
                Result { () throws(Failure) in
                    try send(Departure(bytes: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]), ssrc: ssrcs[slot],
                                       transportSequenceNumber: sequence >= 0 ? UInt16(sequence) : nil,
                                       waitedMicroseconds: waited))
                }
            }
            try result.get()
        }
    }
}

/// A FIFO of slot indices in a fixed ring.
private struct SlotRing: Sendable {
    private var slots: [Int]
    private var head = 0
    private(set) var count = 0

    init(capacity: Int) {
        slots = Array(repeating: 0, count: capacity)
    }

    mutating func push(_ slot: Int) {
        slots[(head + count) % slots.count] = slot
        count += 1
    }

    mutating func pop() -> Int? {
        guard count > 0 else { return nil }
        defer {
            head = (head + 1) % slots.count
            count -= 1
        }
        return slots[head]
    }
}
