/// The fixed RTP header, CSRC list and optional header extension (RFC 3550 §5.1, §5.3.1).
public struct RTPHeader: Sendable, Equatable {
    /// The only RTP version this implementation speaks (RFC 3550 §5.1 "V").
    public static let version: UInt8 = 2
    /// Bytes of the fixed header before CSRCs (RFC 3550 §5.1).
    public static let fixedLength = 12

    /// Marker bit "M" (RFC 3550 §5.1); for video, set on the last packet of a frame.
    public var marker: Bool
    /// Payload type "PT", 0...127 (RFC 3550 §5.1).
    public var payloadType: UInt8
    /// Sequence number (RFC 3550 §5.1).
    public var sequenceNumber: UInt16
    /// Media timestamp (RFC 3550 §5.1).
    public var timestamp: UInt32
    /// Synchronization source (RFC 3550 §5.1).
    public var ssrc: UInt32
    /// Contributing sources, at most 15 (RFC 3550 §5.1 "CC" and CSRC list).
    public var csrcs: [UInt32]
    /// The header extension block ("X" bit, RFC 3550 §5.3.1 / RFC 8285), if any.
    public var extensions: RTPHeaderExtensions?

    /// A header with the given fields.
    public init(marker: Bool = false, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32,
                ssrc: UInt32, csrcs: [UInt32] = [], extensions: RTPHeaderExtensions? = nil) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.extensions = extensions
    }

    /// Reads a header (RFC 3550 §5.1) from `reader`, leaving it at the first payload byte.
    /// Returns the header and whether the "P" (padding) bit was set. Throws `WireError`.
    public static func parse(_ reader: inout ByteReader) throws(WireError) -> (header: RTPHeader, hasPadding: Bool) {
        let first = try reader.readUInt8("RTP V/P/X/CC")
        let version = first >> 6
        guard version == RTPHeader.version else {
            throw .invalidValue(field: "RTP version", value: Int(version))
        }
        let hasPadding = first & 0x20 != 0
        let hasExtension = first & 0x10 != 0
        let csrcCount = Int(first & 0x0F)
        let second = try reader.readUInt8("RTP M/PT")
        let sequenceNumber = try reader.readUInt16("RTP sequence number")
        let timestamp = try reader.readUInt32("RTP timestamp")
        let ssrc = try reader.readUInt32("RTP SSRC")
        var csrcs: [UInt32] = []
        if csrcCount > 0 {
            guard reader.remaining >= 4 * csrcCount else {
                throw .truncated(field: "RTP CSRC list", needed: 4 * csrcCount, available: reader.remaining)
            }
            csrcs.reserveCapacity(csrcCount)
            for _ in 0..<csrcCount { csrcs.append(try reader.readUInt32("RTP CSRC")) }
        }
        var extensions: RTPHeaderExtensions?
        if hasExtension {
            let profile = try reader.readUInt16("RTP extension profile")
            let words = Int(try reader.readUInt16("RTP extension length"))
            let body = try reader.readSlice(4 * words, "RTP extension body")
            extensions = try RTPHeaderExtensions(profile: profile, body: body)
        }
        let header = RTPHeader(marker: second & 0x80 != 0, payloadType: second & 0x7F,
                               sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc,
                               csrcs: csrcs, extensions: extensions)
        return (header, hasPadding)
    }

    /// Bytes this header occupies on the wire (RFC 3550 §5.1).
    public var encodedLength: Int {
        RTPHeader.fixedLength + 4 * csrcs.count + (extensions?.encodedLength ?? 0)
    }

    /// Appends the header (RFC 3550 §5.1) with the "P" bit set to `padding`.
    /// Throws `WireError.outOfRange` for a payload type above 127 or more than 15 CSRCs.
    public func serialize(into buffer: inout [UInt8], padding: Bool = false) throws(WireError) {
        guard payloadType <= 0x7F else {
            throw .outOfRange(field: "RTP payload type", value: Int(payloadType))
        }
        guard csrcs.count <= 15 else {
            throw .outOfRange(field: "RTP CSRC count", value: csrcs.count)
        }
        var first = RTPHeader.version << 6 | UInt8(csrcs.count)
        if padding { first |= 0x20 }
        if extensions != nil { first |= 0x10 }
        buffer.appendUInt8(first)
        buffer.appendUInt8((marker ? 0x80 : 0) | payloadType)
        buffer.appendUInt16(sequenceNumber)
        buffer.appendUInt32(timestamp)
        buffer.appendUInt32(ssrc)
        for csrc in csrcs { buffer.appendUInt32(csrc) }
        if let extensions { try extensions.serialize(into: &buffer) }
    }
}
