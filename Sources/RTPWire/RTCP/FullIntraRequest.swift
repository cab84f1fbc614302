/// Full intra request, FIR (RFC 5104 §4.3.1, PSFB FMT 4).
public struct FullIntraRequest: Sendable, Equatable {
    /// SSRC of the packet sender.
    public var senderSSRC: UInt32
    /// Media source SSRC field; RFC 5104 §4.3.1.2 says it is unused and set to 0.
    public var mediaSSRC: UInt32
    /// One entry per media sender asked for a decoder refresh.
    public var entries: [FIREntry]

    /// Creates a FIR from its fields.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32 = 0, entries: [FIREntry]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.entries = entries
    }
}

/// One FIR FCI entry (RFC 5104 §4.3.1.1): target SSRC, command sequence number, 24 reserved bits.
public struct FIREntry: Sendable, Equatable, Hashable {
    /// SSRC of the media sender that should send a decoder refresh point.
    public var ssrc: UInt32
    /// Command sequence number, incremented per new request to that sender.
    public var sequenceNumber: UInt8

    /// Creates an entry from its fields.
    public init(ssrc: UInt32, sequenceNumber: UInt8) {
        self.ssrc = ssrc
        self.sequenceNumber = sequenceNumber
    }
}

extension FullIntraRequest {
    static func parseBody(_ reader: inout ByteReader) throws(WireError) -> FullIntraRequest {
        let sender = try reader.readUInt32("FIR sender SSRC")
        let media = try reader.readUInt32("FIR media SSRC")
        guard reader.remaining % 8 == 0 else {
            throw .invalidValue(field: "FIR FCI length", value: reader.remaining)
        }
        var entries: [FIREntry] = []
        entries.reserveCapacity(reader.remaining / 8)
        while reader.remaining > 0 {
            let ssrc = try reader.readUInt32("FIR entry SSRC")
            let sequence = try reader.readUInt8("FIR sequence number")
            // Reserved: senders set 0, receivers ignore (RFC 5104 §4.3.1.1).
            try reader.skip(3, "FIR reserved")
            entries.append(FIREntry(ssrc: ssrc, sequenceNumber: sequence))
        }
        return FullIntraRequest(senderSSRC: sender, mediaSSRC: media, entries: entries)
    }

    func serializeBody(into out: inout [UInt8]) {
        out.appendUInt32(senderSSRC)
        out.appendUInt32(mediaSSRC)
        for entry in entries {
            out.appendUInt32(entry.ssrc)
            out.appendUInt8(entry.sequenceNumber)
            out.appendUInt24(0)
        }
    }
}
