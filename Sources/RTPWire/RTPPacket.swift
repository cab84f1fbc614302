/// An RTP packet (RFC 3550 §5.1): header, a payload view and the padding length.
///
/// Parsing does not copy: `payload` is a view of the caller's bytes.
public struct RTPPacket: Sendable, Equatable {
    /// The fixed header, CSRCs and extensions.
    public var header: RTPHeader
    /// The payload bytes, excluding padding (RFC 3550 §5.1).
    public var payload: ArraySlice<UInt8>
    /// Number of padding bytes including the final count byte; 0 means the "P" bit is clear
    /// (RFC 3550 §5.1). Padding bytes are written as zeros and are not part of the value.
    public var paddingLength: UInt8

    /// A packet with the given header, payload and padding.
    public init(header: RTPHeader, payload: ArraySlice<UInt8>, paddingLength: UInt8 = 0) {
        self.header = header
        self.payload = payload
        self.paddingLength = paddingLength
    }

    /// A packet with the given header, payload and padding.
    public init(header: RTPHeader, payload: [UInt8], paddingLength: UInt8 = 0) {
        self.init(header: header, payload: payload[...], paddingLength: paddingLength)
    }

    /// Parses a whole packet (RFC 3550 §5.1), validating the version and the padding count
    /// (1...bytes after the header). Throws `WireError`; never traps.
    public init(parsing bytes: ArraySlice<UInt8>) throws(WireError) {
        var reader = ByteReader(bytes)
        let (header, hasPadding) = try RTPHeader.parse(&reader)
        var rest = reader.readRest()
        var paddingLength: UInt8 = 0
        if hasPadding {
            guard let last = rest.last else {
                throw .truncated(field: "RTP padding count", needed: 1, available: 0)
            }
            guard last >= 1, Int(last) <= rest.count else {
                throw .invalidValue(field: "RTP padding count", value: Int(last))
            }
            paddingLength = last
            rest = rest.dropLast(Int(last))
        }
        self.header = header
        self.payload = rest
        self.paddingLength = paddingLength
    }

    /// Parses a whole packet (RFC 3550 §5.1). Throws `WireError`.
    public init(parsing bytes: [UInt8]) throws(WireError) {
        try self.init(parsing: bytes[...])
    }

    /// Bytes this packet occupies on the wire.
    public var encodedLength: Int { header.encodedLength + payload.count + Int(paddingLength) }

    /// Appends the packet to `buffer` (RFC 3550 §5.1). With capacity reserved this does not
    /// allocate. Throws `WireError.outOfRange` for fields that do not fit.
    public func serialize(into buffer: inout [UInt8]) throws(WireError) {
        try header.serialize(into: &buffer, padding: paddingLength > 0)
        buffer.append(contentsOf: payload)
        Self.appendPadding(paddingLength, to: &buffer)
    }

    /// Appends `count` bytes of RTP padding (RFC 3550 §5.1: zeros, the last byte the count) to a
    /// packet whose header has the P bit set; nothing for 0.
    public static func appendPadding(_ count: UInt8, to buffer: inout [UInt8]) {
        guard count > 0 else { return }
        buffer.append(contentsOf: repeatElement(0, count: Int(count) - 1))
        buffer.append(count)
    }

    /// The packet as a fresh array (convenience; allocates).
    public func serialized() throws(WireError) -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(encodedLength)
        try serialize(into: &buffer)
        return buffer
    }
}
