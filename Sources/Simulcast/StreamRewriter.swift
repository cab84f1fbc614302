/// The header fields of one forwarded VP8 RTP packet that `StreamRewriter` reads (RFC 3550
/// §5.1 sequence number and timestamp; RFC 7741 §4.2 PictureID, TL0PICIDX, TID).
public struct SourcePacket: Sendable, Hashable {
    /// Which incoming stream the packet belongs to (its SSRC, or its spatial index).
    public var sourceId: UInt32
    /// RTP sequence number (RFC 3550 §5.1), 16-bit, wrapping.
    public var sequenceNumber: UInt16
    /// RTP timestamp on the 90 kHz clock, 32-bit, wrapping.
    public var timestamp: UInt32
    /// 15-bit PictureID (the M bit form, RFC 7741 §4.2); higher bits are ignored.
    public var pictureId: UInt16
    /// TL0PICIDX (RFC 7741 §4.2): running index of TL0 frames, 8-bit, wrapping.
    public var tl0PicIdx: UInt8
    /// TID (RFC 7741 §4.2).
    public var temporalId: UInt8
    /// The packet belongs to a key frame.
    public var isKeyFrame: Bool
    /// The packet starts a frame (S bit with partition index 0).
    public var isFirstPacketOfFrame: Bool
    /// The packet starts the switch to a new source (`ForwardingDecision.startsNewSource`).
    public var startsNewSource: Bool
    /// Arrival time in milliseconds on the caller's monotonic clock.
    public var arrivalMilliseconds: Int64

    public init(sourceId: UInt32, sequenceNumber: UInt16, timestamp: UInt32, pictureId: UInt16,
                tl0PicIdx: UInt8, temporalId: UInt8, isKeyFrame: Bool, isFirstPacketOfFrame: Bool,
                startsNewSource: Bool = false, arrivalMilliseconds: Int64) {
        self.sourceId = sourceId
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.pictureId = pictureId
        self.tl0PicIdx = tl0PicIdx
        self.temporalId = temporalId
        self.isKeyFrame = isKeyFrame
        self.isFirstPacketOfFrame = isFirstPacketOfFrame
        self.startsNewSource = startsNewSource
        self.arrivalMilliseconds = arrivalMilliseconds
    }
}

/// The rewritten header fields to write into the packet sent to the subscriber.
public struct RewrittenHeader: Sendable, Hashable {
    /// Sequence number on the subscriber's stream.
    public var sequenceNumber: UInt16
    /// RTP timestamp on the subscriber's stream.
    public var timestamp: UInt32
    /// 15-bit PictureID.
    public var pictureId: UInt16
    /// TL0PICIDX on the subscriber's stream.
    public var tl0PicIdx: UInt8

    public init(sequenceNumber: UInt16, timestamp: UInt32, pictureId: UInt16, tl0PicIdx: UInt8) {
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.pictureId = pictureId
        self.tl0PicIdx = tl0PicIdx
    }
}

/// Why `StreamRewriter` refused a packet.
public enum RewriteDropReason: Sendable, Hashable {
    /// No source has started yet (the first packet must start a source).
    case notStarted
    /// A packet of a source the rewriter already switched away from, arriving late.
    case lateFromPreviousSource
    /// A packet of a source that is neither current nor recently switched away from.
    case notCurrentSource
    /// The packet's sequence number or picture was reported dropped, or precedes the switch.
    case leftOut
    /// So far behind the current source's newest packet that it cannot be mapped exactly.
    case tooOld
}

/// The outcome for one packet.
public enum RewriteResult: Sendable, Hashable {
    case forward(RewrittenHeader)
    case drop(RewriteDropReason)
}

/// Where a subscriber-side sequence number came from: for answering a NACK (RFC 4585 §6.2.1)
/// from the forwarder's packet history and re-sending with the same rewritten header.
public struct RewrittenPacketOrigin: Sendable, Hashable {
    /// The source the packet was forwarded from.
    public var sourceId: UInt32
    /// Its sequence number in that source (the key into the forwarder's packet history).
    public var originalSequenceNumber: UInt16
    /// The header it was sent with; a retransmission reuses it (RFC 4588 carries the same).
    public var header: RewrittenHeader
}

/// Makes the packets forwarded to one subscriber from several simulcast sources look like ONE
/// continuous VP8 stream (docs/receiving.md): sequence numbers, timestamps, PictureID and TL0PICIDX stay
/// contiguous across source switches and across frames left out on purpose (dropped temporal
/// layers), so that every gap the subscriber sees is a real loss it can NACK.
///
/// - Within a source every field is the input minus a per-source offset, so reordering and
///   wraps pass through unchanged (16-bit sequence, 32-bit timestamp, 15-bit PictureID, 8-bit
///   TL0PICIDX); packets are never held back or reordered.
/// - `packetLeftOut` removes a deliberately dropped packet's sequence number (and its frame's
///   PictureID) from the output numbering. Packets that are simply missing leave gaps.
/// - On a switch (`startsNewSource`): sequence number and PictureID continue at the last
///   forwarded + 1; the timestamp continues from the last forwarded plus the wall time elapsed
///   since that packet (× 90 for the 90 kHz clock, RFC 7741 §4.1; at least 1 tick); TL0PICIDX
///   continues at the last forwarded + 1 from the new source's first TL0 frame.
/// - Packets of a source switched away from are refused (`.lateFromPreviousSource`) and counted.
///
/// Memory is bounded: the left-out history and the NACK map are fixed-size rings allocated once.
public struct StreamRewriter: Sendable {
    /// How many recent output sequence numbers `origin(ofSequenceNumber:)` remembers.
    public let nackHistoryCapacity: Int

    /// The source being forwarded; nil before the first switch.
    public private(set) var currentSource: UInt32?
    /// Packets refused because they came from a source switched away from.
    public private(set) var lateFromPreviousSourceCount = 0
    /// Number of switches performed (including the first start).
    public private(set) var switchCount = 0

    private var sequence = ContinuousCounter(bits: 16, leftOutCapacity: 512)
    private var picture = ContinuousCounter(bits: 15, leftOutCapacity: 128)
    private var timestampOffset: UInt32 = 0
    private var tl0Offset: UInt8 = 0
    private var previousSources: [UInt32] = []
    /// Fields of the newest forwarded packet (by sequence), the base for the next switch.
    private var lastTimestamp: UInt32 = 0
    private var lastTl0PicIdx: UInt8 = 0
    private var lastArrival: Int64 = 0
    /// The current source's first TL0 frame has not been seen yet.
    private var awaitingFirstTL0 = false
    private var nackRing: [RewrittenPacketOrigin?]

    /// - Parameter nackHistoryCapacity: rounded up to a power of two, at least 16, at most 32768.
    public init(nackHistoryCapacity: Int = 1024) {
        var capacity = 16
        while capacity < min(max(nackHistoryCapacity, 16), 32_768) { capacity <<= 1 }
        self.nackHistoryCapacity = capacity
        nackRing = Array(repeating: nil, count: capacity)
    }

    /// Rewrites one packet chosen for forwarding.
    public mutating func rewrite(_ packet: SourcePacket) -> RewriteResult {
        if packet.startsNewSource {
            return startSource(with: packet)
        }
        guard let current = currentSource else { return .drop(.notStarted) }
        guard packet.sourceId == current else {
            if previousSources.contains(packet.sourceId) {
                lateFromPreviousSourceCount += 1
                return .drop(.lateFromPreviousSource)
            }
            return .drop(.notCurrentSource)
        }
        let isNewest = (sequence.extend(UInt64(packet.sequenceNumber)) ?? 0) > (sequence.highestInput ?? 0)
        let sequenceOut: Int64, pictureOut: Int64
        switch sequence.map(UInt64(packet.sequenceNumber)) {
        case .output(let value): sequenceOut = value
        case .leftOut: return .drop(.leftOut)
        case .tooOld: return .drop(.tooOld)
        case .notStarted: return .drop(.notStarted)
        }
        switch picture.map(UInt64(packet.pictureId)) {
        case .output(let value): pictureOut = value
        case .leftOut: return .drop(.leftOut)
        case .tooOld: return .drop(.tooOld)
        case .notStarted: return .drop(.notStarted)
        }
        if awaitingFirstTL0, packet.temporalId == 0 {
            // The new source's first TL0 frame: TL0PICIDX continues +1 from the old source.
            awaitingFirstTL0 = false
            tl0Offset = packet.tl0PicIdx &- (lastTl0PicIdx &+ 1)
        }
        let header = RewrittenHeader(sequenceNumber: UInt16(truncatingIfNeeded: sequence.truncated(sequenceOut)),
                                     timestamp: packet.timestamp &- timestampOffset,
                                     pictureId: UInt16(truncatingIfNeeded: picture.truncated(pictureOut)),
                                     tl0PicIdx: packet.tl0PicIdx &- tl0Offset)
        if isNewest { remember(header, arrival: packet.arrivalMilliseconds) }
        record(header, from: packet)
        return .forward(header)
    }

    /// Reports a packet of the current source that is deliberately not forwarded (e.g. a frame
    /// of a dropped temporal layer), so its sequence number, and its frame's PictureID, are
    /// removed from the output instead of showing up as a loss. Call it in arrival order, like
    /// `rewrite`. Returns false if the report was ignored (other source, or the value is behind
    /// packets already seen, in which case it stays a gap).
    @discardableResult
    public mutating func packetLeftOut(sourceId: UInt32, sequenceNumber: UInt16, pictureId: UInt16) -> Bool {
        guard sourceId == currentSource else { return false }
        let removed = sequence.leaveOut(UInt64(sequenceNumber))
        // Every packet of a left-out frame carries its PictureID; only the first one counts.
        if removed { picture.leaveOut(UInt64(pictureId)) }
        return removed
    }

    /// Where the subscriber's sequence number `rewritten` came from, while it is among the last
    /// `nackHistoryCapacity` forwarded packets.
    public func origin(ofSequenceNumber rewritten: UInt16) -> RewrittenPacketOrigin? {
        guard let entry = nackRing[Int(rewritten) & (nackHistoryCapacity - 1)],
              entry.header.sequenceNumber == rewritten else { return nil }
        return entry
    }

    // MARK: - Internals

    private mutating func startSource(with packet: SourcePacket) -> RewriteResult {
        let hadSource = currentSource != nil
        if let old = currentSource, old != packet.sourceId {
            previousSources.removeAll { $0 == old || $0 == packet.sourceId }
            previousSources.append(old)
            if previousSources.count > 8 { previousSources.removeFirst() }
        }
        previousSources.removeAll { $0 == packet.sourceId }
        currentSource = packet.sourceId
        switchCount += 1
        let sequenceOut = sequence.startSource(UInt64(packet.sequenceNumber))
        let pictureOut = picture.startSource(UInt64(packet.pictureId))
        if hadSource {
            // Elapsed wall time on the 90 kHz clock, clamped to an hour so it cannot overflow.
            let elapsed = min(max(0, elapsedMilliseconds(from: lastArrival, to: packet.arrivalMilliseconds)), 3_600_000)
            let step = UInt32(truncatingIfNeeded: max(1, elapsed * 90))
            timestampOffset = packet.timestamp &- (lastTimestamp &+ step)
            if packet.temporalId == 0 {
                tl0Offset = packet.tl0PicIdx &- (lastTl0PicIdx &+ 1)
                awaitingFirstTL0 = false
            } else {
                tl0Offset = packet.tl0PicIdx &- lastTl0PicIdx
                awaitingFirstTL0 = true
            }
        } else {
            timestampOffset = 0
            tl0Offset = 0
            awaitingFirstTL0 = false
        }
        let header = RewrittenHeader(sequenceNumber: UInt16(truncatingIfNeeded: sequence.truncated(sequenceOut)),
                                     timestamp: packet.timestamp &- timestampOffset,
                                     pictureId: UInt16(truncatingIfNeeded: picture.truncated(pictureOut)),
                                     tl0PicIdx: packet.tl0PicIdx &- tl0Offset)
        remember(header, arrival: packet.arrivalMilliseconds)
        record(header, from: packet)
        return .forward(header)
    }

    private mutating func remember(_ header: RewrittenHeader, arrival: Int64) {
        lastTimestamp = header.timestamp
        lastTl0PicIdx = header.tl0PicIdx
        lastArrival = arrival
    }

    private mutating func record(_ header: RewrittenHeader, from packet: SourcePacket) {
        nackRing[Int(header.sequenceNumber) & (nackHistoryCapacity - 1)] =
            RewrittenPacketOrigin(sourceId: packet.sourceId, originalSequenceNumber: packet.sequenceNumber, header: header)
    }
}
