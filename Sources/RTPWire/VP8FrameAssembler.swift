/// Reassembles VP8 frames from RTP packets (RFC 7741 §4.4–4.5) arriving in any order, with
/// duplicates and losses, in bounded memory.
///
/// **Framing.** Sequence numbers are extended to 64 bits relative to the highest seen, so a frame
/// may straddle the 16-bit wrap. A frame is the run of consecutive sequence numbers, all with the
/// same RTP timestamp, that starts at a packet with S = 1 and PID = 0 and ends at a packet with
/// the marker bit set, or at a packet whose successor is present and has another timestamp or
/// starts a frame. A frame is reported only when every packet of that run is present, so a frame
/// missing a packet is never reported. PictureIDs are only reported, never used for framing, so
/// their 15-bit wrap needs no handling.
///
/// **Decodability** is judged against the frames already reported decodable, in report order (the
/// order a decoder would be fed):
/// - a key frame is decodable, and a newer one starts a new epoch;
/// - other frames are decodable only if they follow the epoch's key frame in sequence order and:
///   - a TL0 frame (TID 0 or absent, with TL0PICIDX t) needs the TL0 frame with TL0PICIDX t−1
///     reported decodable in this epoch;
///   - a TID > 0 frame with Y = 1 needs the TL0 frame with its TL0PICIDX reported decodable;
///   - a TID > 0 frame with Y = 0 additionally needs every sequence number between that TL0
///     frame and itself to belong to frames reported decodable (conservative: covers any
///     reference to earlier lower-or-equal layer frames);
///   - without TL0PICIDX, the frame ending just before it must have been reported decodable.
/// A frame completed before its references is reported complete but not decodable; later frames
/// that depend on it are then not decodable either, until the next key frame.
///
/// **Memory.** Buffered packets are views of the caller's bytes (nothing copied until a frame
/// completes), held in a ring indexed by sequence number (no hashing per packet; the ring doubles,
/// up to `maxPacketAge` slots, only when a packet still waiting would be overwritten); a completed
/// frame's bytes are gathered into one buffer the assembler reuses, so steady-state insertion
/// allocates nothing. Packets more than `maxPacketAge` sequence numbers behind the highest, or older than
/// the newest decodable key frame, are dropped; at most `maxHistory` reported frames are remembered.
/// After `restartThreshold` consecutive packets beyond the age window the assembler resets, so a sender whose
/// sequence numbers jump by more than 2^15 is followed rather than ignored forever.
public struct VP8FrameAssembler: Sendable {
    /// One slot of the ring: the packet with extended sequence number `sequence`, if `stored`.
    private struct Slot: Sendable {
        var sequence: Int64 = .min
        var stored = false
        var timestamp: UInt32 = 0
        var marker = false
        var startOfFrame = false
        var descriptor = VP8PayloadDescriptor(startOfPartition: false)
        var data: ArraySlice<UInt8> = []
    }

    private struct FrameRecord: Sendable {
        var first: Int64
        var last: Int64
        var decodable: Bool
        var tl0PicIdx: UInt8?
        var temporalId: UInt8?
    }

    /// How far (in sequence numbers) behind the highest packet a packet may be and still be kept.
    public let maxPacketAge: Int
    /// The most packets one frame may span; longer runs are never completed.
    public let maxPacketsPerFrame: Int
    /// How many reported frames are remembered for duplicate detection and decodability.
    public let maxHistory: Int

    /// The ring of waiting packets: a power-of-two count of slots, packet `seq` in slot `seq & mask`.
    private var slots: [Slot] = []
    private var mask = 0
    private var storedCount = 0
    private var highest: Int64?
    private var firstSeen: Int64 = 0
    private var keyFloor: Int64?
    private var history: [FrameRecord] = []
    private var lastEvictionFloor: Int64?
    /// Every stored packet's sequence number is at least this (packets below it were evicted).
    private var evictedBelow: Int64 = .min
    private var consecutiveStalePackets = 0
    /// Where completed frames' bytes are gathered; handed out as `VP8AssembledFrame.data` and
    /// reused once the receiver has let go of the previous frame.
    private var frameBuffer: [UInt8] = []
    /// Slots the ring starts with; it grows by doubling when a waiting packet would be overwritten.
    static let initialSlots = 64

    /// After this many consecutive packets at least `maxPacketAge` behind the highest, the sender is
    /// assumed to have restarted its sequence numbers (e.g. a jump of more than 2^15) and the
    /// assembler starts afresh with the packet that crossed the threshold.
    public static let restartThreshold = 64

    /// An assembler with the given bounds, each clamped to 1...32768 (half the sequence space).
    public init(maxPacketAge: Int = 2048, maxPacketsPerFrame: Int = 1024, maxHistory: Int = 512) {
        self.maxPacketAge = min(max(1, maxPacketAge), 32768)
        self.maxPacketsPerFrame = min(max(1, maxPacketsPerFrame), 32768)
        self.maxHistory = min(max(1, maxHistory), 32768)
    }

    /// Number of packets currently buffered (waiting for their frame to complete).
    public var bufferedPacketCount: Int { storedCount }

    /// Lowest extended sequence number still accepted.
    private var floor: Int64 {
        guard let highest else { return Int64.min }
        // maxPacketAge ≤ 2^15 and highest moves at most 2^15 per packet from a 16-bit start: no overflow.
        let ageFloor = highest - Int64(maxPacketAge) + 1
        if let keyFloor { return max(ageFloor, keyFloor) }
        return ageFloor
    }

    /// Feeds a parsed RTP packet. See `insert(sequenceNumber:timestamp:marker:payload:)`.
    public mutating func insert(_ packet: RTPPacket) throws(WireError) -> [VP8AssembledFrame] {
        try insert(sequenceNumber: packet.header.sequenceNumber, timestamp: packet.header.timestamp,
                   marker: packet.header.marker, payload: packet.payload)
    }

    /// Feeds a parsed RTP packet, handing each frame it completes to `completed` (oldest first).
    /// See `insert(sequenceNumber:timestamp:marker:payload:completed:)`.
    public mutating func insert(_ packet: RTPPacket, completed: (VP8AssembledFrame) -> Void) throws(WireError) {
        try insert(sequenceNumber: packet.header.sequenceNumber, timestamp: packet.header.timestamp,
                   marker: packet.header.marker, payload: packet.payload, completed: completed)
    }

    /// Feeds one packet's RTP fields and VP8 payload (descriptor + data) and returns the frames it
    /// completed, oldest first. Duplicates and packets that are too old return no frames.
    /// Throws `WireError` if the payload descriptor is malformed or no VP8 data follows it
    /// (RFC 7741 §4.1: a packet carries part of a frame; the packet is then ignored).
    public mutating func insert(sequenceNumber: UInt16, timestamp: UInt32, marker: Bool,
                                payload: ArraySlice<UInt8>) throws(WireError) -> [VP8AssembledFrame] {
        var frames: [VP8AssembledFrame] = []
        try insert(sequenceNumber: sequenceNumber, timestamp: timestamp, marker: marker, payload: payload) { frames.append($0) }
        return frames
    }

    /// Like `insert(sequenceNumber:timestamp:marker:payload:)`, handing each completed frame to
    /// `completed` instead of returning an array: nothing is allocated per packet or per frame
    /// once warm, as long as `completed` lets go of the frame's `data` before the next one (the
    /// bytes live in a buffer the assembler reuses; a frame kept longer keeps its bytes, and the
    /// next frame then gets a buffer of its own).
    public mutating func insert(sequenceNumber: UInt16, timestamp: UInt32, marker: Bool, payload: ArraySlice<UInt8>,
                                completed: (VP8AssembledFrame) -> Void) throws(WireError) {
        let (descriptor, data) = try VP8PayloadDescriptor.parse(payload)
        guard !data.isEmpty else { throw .truncated(field: "VP8 payload data", needed: 1, available: 0) }
        if let highest {
            let candidate = highest + Int64(Int16(bitPattern: sequenceNumber &- UInt16(truncatingIfNeeded: highest)))
            // Only packets beyond the age window count toward a restart, not retransmissions that
            // merely predate the newest key frame.
            if candidate <= highest - Int64(maxPacketAge) {
                consecutiveStalePackets += 1
                guard consecutiveStalePackets >= VP8FrameAssembler.restartThreshold else { return }
                var fresh = VP8FrameAssembler(maxPacketAge: maxPacketAge, maxPacketsPerFrame: maxPacketsPerFrame,
                                              maxHistory: maxHistory)
                swap(&fresh.frameBuffer, &frameBuffer)
                self = fresh
            } else {
                consecutiveStalePackets = 0
            }
        }
        let seq: Int64
        if let highest {
            seq = highest + Int64(Int16(bitPattern: sequenceNumber &- UInt16(truncatingIfNeeded: highest)))
        } else {
            seq = Int64(sequenceNumber)
            firstSeen = seq
        }
        // A reported packet is never beyond the highest: only a late one needs the history.
        guard seq >= floor, !isStored(seq), highest.map({ seq > $0 }) ?? true || !isReported(seq) else { return }
        firstSeen = min(firstSeen, seq)
        store(Slot(sequence: seq, stored: true, timestamp: timestamp, marker: marker, startOfFrame: descriptor.isStartOfFrame,
                   descriptor: descriptor, data: data))
        if highest.map({ seq > $0 }) ?? true {
            highest = seq
            evict()
        }
        if let frame = tryComplete(around: seq - 1) { completed(frame) }
        if let frame = tryComplete(around: seq) { completed(frame) }
    }

    /// Sequence numbers between the oldest still-useful one and the highest received that have
    /// not arrived and are not part of a reported frame: candidates for a NACK (RFC 4585 §6.2.1).
    /// At most `limit` values, oldest first.
    public func missingSequenceNumbers(limit: Int = 256) -> [UInt16] {
        guard let highest, limit > 0 else { return [] }
        let ranges = history.map { ($0.first, $0.last) }.sorted { $0.0 < $1.0 }
        var rangeIndex = 0
        var result: [UInt16] = []
        var seq = max(floor, firstSeen)
        while seq <= highest && result.count < limit {
            while rangeIndex < ranges.count && ranges[rangeIndex].1 < seq { rangeIndex += 1 }
            if rangeIndex < ranges.count && ranges[rangeIndex].0 <= seq {
                seq = ranges[rangeIndex].1 + 1
                continue
            }
            if !isStored(seq) { result.append(UInt16(truncatingIfNeeded: seq)) }
            seq += 1
        }
        return result
    }

    private func isReported(_ seq: Int64) -> Bool {
        history.contains { $0.first <= seq && seq <= $0.last }
    }

    /// Whether packet `seq` waits in the ring.
    private func isStored(_ seq: Int64) -> Bool {
        guard !slots.isEmpty else { return false }
        let index = Int(truncatingIfNeeded: seq) & mask
        return slots[index].stored && slots[index].sequence == seq
    }

    /// Puts `slot` in the ring. A packet below the floor (as it stands once this one is in) in
    /// its place is dropped; one still waiting makes the ring grow first. Waiting packets span
    /// at most `maxPacketAge` sequence numbers, so the ring never outgrows that.
    private mutating func store(_ slot: Slot) {
        let floor = max(self.floor, slot.sequence - Int64(maxPacketAge) + 1)
        var index = Int(truncatingIfNeeded: slot.sequence) & mask
        if slots.isEmpty || (slots[index].stored && slots[index].sequence >= floor) {
            resize(including: slot.sequence, keepingFrom: floor)
            index = Int(truncatingIfNeeded: slot.sequence) & mask
        }
        if slots[index].stored { storedCount -= 1 }
        slots[index] = slot
        storedCount += 1
    }

    /// Moves every packet waiting at or above `floor` into a ring (a power of two, at least twice
    /// the old one) wide enough for them and for `sequence`; older ones are dropped.
    private mutating func resize(including sequence: Int64, keepingFrom floor: Int64) {
        var lowest = sequence, highest = sequence
        for slot in slots where slot.stored && slot.sequence >= floor {
            lowest = min(lowest, slot.sequence)
            highest = max(highest, slot.sequence)
        }
        var count = max(Self.initialSlots, slots.count * 2)
        while Int64(count) <= highest - lowest { count *= 2 }
        var old: [Slot] = Array(repeating: Slot(), count: count)
        swap(&old, &slots)
        mask = count - 1
        storedCount = 0
        for slot in old where slot.stored && slot.sequence >= floor {
            slots[Int(truncatingIfNeeded: slot.sequence) & mask] = slot
            storedCount += 1
        }
    }

    /// Removes packet `seq` from the ring (it must be stored), returning its bytes.
    private mutating func take(_ seq: Int64) -> ArraySlice<UInt8> {
        let index = Int(truncatingIfNeeded: seq) & mask
        slots[index].stored = false
        storedCount -= 1
        var data: ArraySlice<UInt8> = []
        swap(&data, &slots[index].data)
        return data
    }

    /// Drops state below the floor. Amortized: the packet scan runs once the floor has moved by 64
    /// (so at most `maxPacketAge + 64` packets are ever buffered) or a key frame raised it.
    private mutating func evict(force: Bool = false) {
        let floor = self.floor
        if !force, let lastEvictionFloor, floor < lastEvictionFloor + 64 { return }
        lastEvictionFloor = floor
        // Slot by slot when the stretch below the floor is shorter than the ring, else by a scan;
        // the bytes are let go of (they may be a pooled receive buffer).
        if evictedBelow != .min, floor - evictedBelow <= Int64(slots.count) {
            var seq = evictedBelow
            while seq < floor {
                if isStored(seq) { _ = take(seq) }
                seq += 1
            }
        } else {
            for index in slots.indices where slots[index].stored && slots[index].sequence < floor { _ = take(slots[index].sequence) }
        }
        evictedBelow = max(evictedBelow, floor)
        history.removeAll { $0.last < floor }
        if history.count > maxHistory { history.removeFirst(history.count - maxHistory) }
    }

    /// Completes the frame containing `seq`, if all its packets are present.
    private mutating func tryComplete(around seq: Int64) -> VP8AssembledFrame? {
        guard isStored(seq) else { return nil }
        let timestamp = slots[Int(truncatingIfNeeded: seq) & mask].timestamp
        var steps = 0
        // Walk forward to the frame's end first: packets usually arrive in order, so until the
        // last one is here this stops at the first step and the backward walk never runs.
        var last = seq
        while true {
            let index = Int(truncatingIfNeeded: last) & mask
            if slots[index].marker { break }
            guard isStored(last + 1) else { return nil }
            let next = Int(truncatingIfNeeded: last + 1) & mask
            if slots[next].timestamp != timestamp || slots[next].startOfFrame { break }
            last += 1
            steps += 1
            if steps >= maxPacketsPerFrame { return nil }
        }
        var first = seq
        while true {
            guard isStored(first) else { return nil }
            let index = Int(truncatingIfNeeded: first) & mask
            guard slots[index].timestamp == timestamp else { return nil }
            if slots[index].startOfFrame { break }
            first -= 1
            steps += 1
            if steps >= maxPacketsPerFrame { return nil }
        }
        return emit(first: first, last: last)
    }

    private mutating func emit(first: Int64, last: Int64) -> VP8AssembledFrame? {
        let headIndex = Int(truncatingIfNeeded: first) & mask
        let descriptor = slots[headIndex].descriptor
        let headTimestamp = slots[headIndex].timestamp
        let keyFrame = VP8PayloadHeader.isKeyFrame(slots[headIndex].data) ?? false
        var data: [UInt8] = []
        swap(&data, &frameBuffer)  // reused when the previous frame's holder has let go of it
        data.removeAll(keepingCapacity: true)
        for seq in first...last { data.append(contentsOf: take(seq)) }  // every one proven present
        frameBuffer = data
        let temporalId = descriptor.temporalID
        let layerSync = descriptor.layerSync
        let decodable = isDecodable(first: first, keyFrame: keyFrame, tl0PicIdx: descriptor.tl0PicIdx,
                                    temporalId: temporalId, layerSync: layerSync)
        if keyFrame && (keyFloor.map { first > $0 } ?? true) {
            keyFloor = first
            evict(force: true)
        }
        history.append(FrameRecord(first: first, last: last, decodable: decodable,
                                   tl0PicIdx: descriptor.tl0PicIdx, temporalId: temporalId))
        if history.count > maxHistory { history.removeFirst(history.count - maxHistory) }
        return VP8AssembledFrame(data: data, keyFrame: keyFrame, decodable: decodable,
                                 pictureID: descriptor.pictureID?.value, tl0PicIdx: descriptor.tl0PicIdx,
                                 temporalId: temporalId, layerSync: layerSync, timestamp: headTimestamp,
                                 firstSequenceNumber: UInt16(truncatingIfNeeded: first),
                                 lastSequenceNumber: UInt16(truncatingIfNeeded: last))
    }

    private func isDecodable(first: Int64, keyFrame: Bool, tl0PicIdx: UInt8?, temporalId: UInt8?,
                             layerSync: Bool) -> Bool {
        if keyFrame { return true }
        guard let keyFloor, first > keyFloor else { return false }
        // The epoch: frames reported since its key frame and before this one. Searched in place
        // (no filtered copies: this runs once per frame).
        func inEpoch(_ record: FrameRecord) -> Bool { record.first >= keyFloor && record.first < first }
        guard let tl0PicIdx else {
            return history.contains { inEpoch($0) && $0.last == first - 1 && $0.decodable }
        }
        let isTL0 = (temporalId ?? 0) == 0
        let wanted = isTL0 ? tl0PicIdx &- 1 : tl0PicIdx  // 8-bit wrap is the intent
        var base: FrameRecord?
        for record in history where inEpoch(record) && (record.temporalId ?? 0) == 0 && record.tl0PicIdx == wanted {
            if base.map({ record.first > $0.first }) ?? true { base = record }
        }
        guard let base, base.decodable else { return false }
        if isTL0 || layerSync { return true }
        // Every sequence number between the TL0 frame and this one must be covered by decodable
        // frames: walk the epoch's frames after the TL0 frame in sequence order, each step
        // finding the one that starts where the covered run ends.
        var expected = base.last + 1
        while expected < first {
            guard let next = history.first(where: { inEpoch($0) && $0.first == expected }) else { break }
            guard next.decodable else { return false }
            expected = next.last + 1
        }
        // A frame after the TL0 frame that starts past the covered run leaves a gap.
        if history.contains(where: { inEpoch($0) && $0.first > base.last && $0.first >= expected }) { return false }
        return expected == first
    }
}
