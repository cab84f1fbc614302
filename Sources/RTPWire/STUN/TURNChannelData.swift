/// TURN's ChannelData message (RFC 8656 §12.4): application data to or from a peer bound to a
/// channel, behind a 4-byte header instead of a STUN Send or Data indication's 36 or more.
///
///     0                   1                   2                   3
///     |         Channel Number        |            Length             |
///     |                       Application Data ...                    |
///
/// Channel numbers are 0x4000–0x4FFF (§12), so the first byte (64–79) tells ChannelData apart
/// from STUN, DTLS and RTP on one socket (RFC 7983 §7). Over TCP a message is padded to a
/// multiple of 4 bytes (§12.5); over UDP the padding is optional and the length says where the
/// data ends.
public enum TURNChannelData {
    public static let channelNumbers: ClosedRange<UInt16> = 0x4000...0x4FFF
    public static let headerLength = 4

    /// Whether `bytes` starts like a ChannelData message (RFC 7983: first byte 64–79).
    public static func isChannelData(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard let first = bytes.first else { return false }
        return (64...79).contains(first)
    }

    /// The channel and the data of one message (trailing padding is ignored).
    public static func parse(_ bytes: ArraySlice<UInt8>) throws(WireError) -> (channel: UInt16, data: ArraySlice<UInt8>) {
        var reader = ByteReader(bytes)
        let channel = try reader.readUInt16("TURN ChannelData channel")
        guard channelNumbers.contains(channel) else { throw .outOfRange(field: "TURN ChannelData channel", value: Int(channel)) }
        let length = Int(try reader.readUInt16("TURN ChannelData length"))
        let start = bytes.startIndex + headerLength
        guard length <= bytes.count - headerLength else {
            throw .truncated(field: "TURN ChannelData", needed: length, available: bytes.count - headerLength)
        }
        return (channel, bytes[start..<(start + length)])
    }

    /// Appends a message carrying `data` on `channel` (padded to 4 bytes when `padded`, as TCP needs).
    public static func write(channel: UInt16, data: UnsafeRawBufferPointer, padded: Bool, into buffer: inout [UInt8]) throws(WireError) {
        guard channelNumbers.contains(channel) else { throw .outOfRange(field: "TURN ChannelData channel", value: Int(channel)) }
        guard data.count <= Int(UInt16.max) else { throw .outOfRange(field: "TURN ChannelData length", value: data.count) }
        buffer.appendUInt16(channel)
        buffer.appendUInt16(UInt16(data.count))
        buffer.append(contentsOf: data)
        if padded { buffer.append(contentsOf: repeatElement(0, count: (4 - data.count % 4) % 4)) }
    }
}
