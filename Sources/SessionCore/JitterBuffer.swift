import RTPWire

/// A packet-level jitter buffer for one video SSRC: puts RTP packets back in sequence order and
/// releases them in that order, waiting at most `maxDelayMilliseconds` for a missing packet.
///
/// - Sequence numbers are unwrapped to 64 bits (`SequenceNumberUnwrapper`), so wraps are seamless.
/// - Packets live in a ring of `capacity` slots indexed by extended sequence number; memory is
///   bounded and slots are reused.
/// - `release` hands out every packet from the release point onwards until the first missing
///   one. A gap is given up when the packet after it has waited `maxDelayMilliseconds`; the
///   release point then jumps over the gap and the missing packets become *late* (ignored if
///   they still arrive). A packet so far ahead that it does not fit the ring forces the oldest
///   packets out in order (they are released, not dropped).
///
/// Time is a parameter (milliseconds on any monotonic clock).
public struct JitterBuffer: Sendable {
    /// Settings of a jitter buffer.
    public struct Configuration: Sendable, Equatable {
        /// Longest time a packet waits for a missing predecessor before the gap is given up.
        public var maxDelayMilliseconds: Int64
        /// Ring size in packets (the most packets held at once), at least 16.
        public var capacity: Int

        /// Settings with the given bounds (defaults: 150 ms, 1024 packets).
        public init(maxDelayMilliseconds: Int64 = 150, capacity: Int = 1024) {
            self.maxDelayMilliseconds = max(0, maxDelayMilliseconds)
            self.capacity = max(16, capacity)
        }
    }

    /// What happened to an inserted packet.
    public enum InsertResult: Sendable, Equatable {
        /// Stored, waiting for release.
        case buffered
        /// Already held.
        case duplicate
        /// Older than the release point (already released or given up): dropped.
        case late
        /// Older than the first packet of the stream (reordered at start-up) and within
        /// `startupReorderWindow` of it: not held, since nothing before the first packet can be
        /// released in order any more; the caller may pass it straight to the frame assembler,
        /// which completes the frame it belongs to if nothing of it was released incomplete.
        case beforeStart
    }

    /// The settings in use.
    public let configuration: Configuration
    /// The ring, three arrays wide (so that checking a slot copies no packet): the extended
    /// sequence number held at each position (`.min`: none), its arrival time, its packet.
    private var heldSequences: [Int64]
    private var arrivals: [Int64]
    private var packets: [RTPPacket?]
    private var unwrapper = SequenceNumberUnwrapper()
    /// Extended sequence number of the next packet to release; nil before the first packet.
    public private(set) var nextToRelease: Int64?
    /// Highest extended sequence number inserted.
    public private(set) var highestSequence: Int64?
    /// Packets currently held.
    public private(set) var count = 0
    /// Packets given up on (skipped over after waiting the maximum delay, or forced out).
    public private(set) var packetsGivenUp: Int64 = 0
    /// Packets that arrived after their release point had passed.
    public private(set) var latePackets: Int64 = 0
    private var firstSequence: Int64?
    private var consecutiveLatePackets = 0
    /// Times the buffer restarted because the sender's sequence numbers jumped backwards.
    public private(set) var restarts = 0
    /// After this many consecutive late packets the sender is assumed to have restarted its
    /// sequence numbers (a backwards jump) and the buffer starts afresh with the next one.
    public static let restartThreshold = 64
    /// How far before the first packet a packet may be and still be reported `.beforeStart`.
    public static let startupReorderWindow: Int64 = 64

    /// An empty buffer.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        heldSequences = Array(repeating: .min, count: configuration.capacity)
        arrivals = Array(repeating: 0, count: configuration.capacity)
        packets = Array(repeating: nil, count: configuration.capacity)
    }

    private func index(_ sequence: Int64) -> Int {
        // capacity ≥ 16 > 0; the remainder of a negative value is mapped into range.
        let remainder = Int(sequence % Int64(configuration.capacity))
        return remainder < 0 ? remainder + configuration.capacity : remainder
    }

    /// The extended sequence number `sequenceNumber` would get, without inserting anything.
    public func extendedSequenceNumber(for sequenceNumber: UInt16) -> Int64 {
        unwrapper.peek(sequenceNumber)
    }

    /// Stores `packet` (arrived at `arrivalMilliseconds`). Returns what happened and the packet's
    /// extended sequence number. May release packets into `overflow` when the packet is too far
    /// ahead for the ring (oldest first).
    public mutating func insert(_ packet: RTPPacket, arrivalMilliseconds: Int64,
                                overflow: (RTPPacket) -> Void = { _ in }) -> (result: InsertResult, sequence: Int64) {
        let sequence = unwrapper.unwrap(packet.header.sequenceNumber)
        guard let next = nextToRelease, let highest = highestSequence else {
            firstSequence = sequence
            nextToRelease = sequence
            highestSequence = sequence
            store(packet, sequence: sequence, arrivalMilliseconds: arrivalMilliseconds)
            return (.buffered, sequence)
        }
        if sequence < next {
            if let firstSequence, sequence < firstSequence, firstSequence - sequence <= Self.startupReorderWindow {
                return (.beforeStart, sequence)
            }
            latePackets += 1
            consecutiveLatePackets += 1
            if consecutiveLatePackets >= Self.restartThreshold {
                let restarts = self.restarts + 1
                self = JitterBuffer(configuration: configuration)
                self.restarts = restarts
            }
            return (.late, sequence)
        }
        consecutiveLatePackets = 0
        if isHeld(sequence) {
            return (.duplicate, sequence)
        }
        let capacity = Int64(configuration.capacity)
        if sequence - next >= capacity {
            // Make room: everything below `newNext` leaves, in order.
            let newNext = sequence - capacity + 1
            var cursor = next
            // Only the held range (≤ capacity slots) needs visiting; beyond `highest` is empty.
            while cursor < newNext && cursor <= highest {
                if let packet = take(cursor) { overflow(packet) } else { packetsGivenUp += 1 }
                cursor += 1
            }
            if newNext > cursor { packetsGivenUp += newNext - cursor }
            nextToRelease = newNext
        }
        store(packet, sequence: sequence, arrivalMilliseconds: arrivalMilliseconds)
        if sequence > highest { highestSequence = sequence }
        return (.buffered, sequence)
    }

    private mutating func store(_ packet: RTPPacket, sequence: Int64, arrivalMilliseconds: Int64) {
        let position = index(sequence)
        if heldSequences[position] == .min { count += 1 }
        heldSequences[position] = sequence
        arrivals[position] = arrivalMilliseconds
        packets[position] = packet
    }

    /// Moves packet `sequence` out of the ring (nil if it is not held).
    private mutating func take(_ sequence: Int64) -> RTPPacket? {
        let position = index(sequence)
        guard heldSequences[position] == sequence else { return nil }
        heldSequences[position] = .min
        count -= 1
        var packet: RTPPacket?
        swap(&packet, &packets[position])
        return packet
    }

    /// Releases, in sequence order, every packet that is ready at `nowMilliseconds`: the run
    /// starting at the release point, continuing over a gap once the packet after it has waited
    /// the maximum delay. Returns the number of packets given up on in this call.
    @discardableResult
    public mutating func release(nowMilliseconds: Int64, _ deliver: (RTPPacket) -> Void) -> Int64 {
        guard var next = nextToRelease, let highest = highestSequence else { return 0 }
        var givenUp: Int64 = 0
        while next <= highest {
            if let packet = take(next) {
                deliver(packet)
                next += 1
                continue
            }
            // A gap at `next`: find the first held packet after it (one exists: `highest` is held
            // or was released, and everything released is below `next`).
            var after = next + 1
            while after <= highest && !isHeld(after) { after += 1 }
            guard after <= highest else {
                next = highest + 1
                break
            }
            guard nowMilliseconds - arrivals[index(after)] >= configuration.maxDelayMilliseconds else { break }
            givenUp += after - next
            next = after
        }
        nextToRelease = next
        packetsGivenUp += givenUp
        return givenUp
    }

    /// When `release` next has something to do (ms): a gap at the release point is given up
    /// on once the first held packet after it has waited the maximum delay (`Int64.min`: a
    /// packet is ready now); nil when nothing is held.
    public var nextReleaseMilliseconds: Int64? {
        guard count > 0, let next = nextToRelease, let highest = highestSequence else { return nil }
        if isHeld(next) { return .min }
        var after = next + 1
        while after <= highest && !isHeld(after) { after += 1 }
        guard after <= highest else { return nil }
        return arrivals[index(after)] + configuration.maxDelayMilliseconds
    }

    /// Moves the release point forward to `sequence` (held, and above the release point),
    /// dropping what is held before it: used when a key frame makes the older packets useless.
    /// Returns the number of packets skipped (held or missing).
    @discardableResult
    public mutating func skip(to sequence: Int64) -> Int64 {
        guard let next = nextToRelease, let highest = highestSequence, sequence > next, sequence <= highest else { return 0 }
        var cursor = next
        while cursor < sequence {
            _ = take(cursor)
            cursor += 1
        }
        nextToRelease = sequence
        packetsGivenUp += sequence - next
        return sequence - next
    }

    private func isHeld(_ sequence: Int64) -> Bool {
        heldSequences[index(sequence)] == sequence
    }

    /// Extended sequence numbers between the release point and the highest packet that are not
    /// held: the packets the buffer is waiting for, oldest first, at most `limit`.
    public func missingSequences(limit: Int = 512) -> [Int64] {
        guard let next = nextToRelease, let highest = highestSequence, limit > 0 else { return [] }
        var result: [Int64] = []
        var cursor = next
        while cursor <= highest && result.count < limit {
            if !isHeld(cursor) { result.append(cursor) }
            cursor += 1
        }
        return result
    }

    /// Drops everything held and forgets the stream (e.g. on an SSRC change).
    public mutating func reset() {
        let restarts = self.restarts
        self = JitterBuffer(configuration: configuration)
        self.restarts = restarts
    }
}
