/// Generic NACK (RFC 4585 §6.2.1, RTPFB FMT 1): lost RTP sequence numbers as PID+BLP items.
public struct GenericNACK: Sendable, Equatable {
    /// SSRC of the packet sender (the receiver asking for retransmission).
    public var senderSSRC: UInt32
    /// SSRC of the media source whose packets were lost.
    public var mediaSSRC: UInt32
    /// FCI entries in wire order.
    public var items: [NACKItem]

    /// Creates a NACK from explicit FCI entries.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32, items: [NACKItem]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.items = items
    }

    /// Creates a NACK for `lostSequenceNumbers` (see `NACKItem.items(forLost:)`).
    public init(senderSSRC: UInt32, mediaSSRC: UInt32, lostSequenceNumbers: [UInt16]) {
        self.init(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC,
                  items: NACKItem.items(forLost: lostSequenceNumbers))
    }

    /// Every sequence number the items report lost, in item order (PID, then BLP bits 0…15).
    public var lostSequenceNumbers: [UInt16] {
        var lost: [UInt16] = []
        for item in items { item.appendLost(to: &lost) }
        return lost
    }

    /// Every sequence number the items report lost, each once (a NACK may name one packet in
    /// several items; a responder must not resend it once per mention), in ascending order.
    /// `scratch` is reused, so answering NACKs allocates little once it has grown.
    public func uniqueLostSequenceNumbers(into scratch: inout [UInt16]) {
        scratch.removeAll(keepingCapacity: true)
        for item in items { item.appendLost(to: &scratch) }
        guard scratch.count > 1 else { return }
        scratch.sort()
        var kept = 1
        for index in 1..<scratch.count where scratch[index] != scratch[kept - 1] {
            scratch[kept] = scratch[index]
            kept += 1
        }
        scratch.removeSubrange(kept...)
    }
}

/// One generic NACK FCI entry (RFC 4585 §6.2.1): packet ID plus a bitmask of the 16 following
/// sequence numbers also lost (bit i set ⇒ PID+i+1 lost, modulo 2^16).
public struct NACKItem: Sendable, Equatable, Hashable {
    /// PID: a lost sequence number.
    public var packetID: UInt16
    /// BLP: bitmask of following lost packets.
    public var lostBitmask: UInt16

    /// Creates an entry from its fields.
    public init(packetID: UInt16, lostBitmask: UInt16 = 0) {
        self.packetID = packetID
        self.lostBitmask = lostBitmask
    }

    /// Packs lost sequence numbers, given in ascending order modulo 2^16 (so 65535 may be
    /// followed by 0), into as few entries as that order allows. Duplicates of numbers already
    /// covered are dropped; out-of-order numbers start a new entry, so nothing is ever lost.
    public static func items(forLost lost: some Sequence<UInt16>) -> [NACKItem] {
        var items: [NACKItem] = []
        for sequence in lost {
            if let last = items.last {
                let distance = sequence &- last.packetID   // modulo 2^16 by design
                if distance == 0 { continue }
                if distance <= 16 {
                    items[items.count - 1].lostBitmask |= 1 << (distance - 1)
                    continue
                }
            }
            items.append(NACKItem(packetID: sequence))
        }
        return items
    }

    /// The sequence numbers this entry reports lost.
    public var lostSequenceNumbers: [UInt16] {
        var lost: [UInt16] = []
        appendLost(to: &lost)
        return lost
    }

    func appendLost(to lost: inout [UInt16]) {
        lost.append(packetID)
        for bit in 0..<16 where lostBitmask & (1 << bit) != 0 {
            lost.append(packetID &+ UInt16(bit + 1))   // wraps modulo 2^16 by design
        }
    }
}

extension GenericNACK {
    static func parseBody(_ reader: inout ByteReader) throws(WireError) -> GenericNACK {
        let sender = try reader.readUInt32("NACK sender SSRC")
        let media = try reader.readUInt32("NACK media SSRC")
        guard reader.remaining % 4 == 0 else {
            throw .invalidValue(field: "NACK FCI length", value: reader.remaining)
        }
        var items: [NACKItem] = []
        items.reserveCapacity(reader.remaining / 4)
        while reader.remaining > 0 {
            let pid = try reader.readUInt16("NACK PID")
            let blp = try reader.readUInt16("NACK BLP")
            items.append(NACKItem(packetID: pid, lostBitmask: blp))
        }
        return GenericNACK(senderSSRC: sender, mediaSSRC: media, items: items)
    }

    func serializeBody(into out: inout [UInt8]) {
        out.appendUInt32(senderSSRC)
        out.appendUInt32(mediaSSRC)
        for item in items {
            out.appendUInt16(item.packetID)
            out.appendUInt16(item.lostBitmask)
        }
    }
}
