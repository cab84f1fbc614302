/// A STUN message (RFC 8489 §5–6): a 20-byte header (type, length, magic cookie, transaction ID)
/// and TLV attributes padded to 4 bytes. MESSAGE-INTEGRITY (HMAC-SHA1, §14.5) and FINGERPRINT
/// (CRC-32 XOR 0x5354554E, §14.7) are not kept among `attributes`: `serialized` appends them and
/// `checkIntegrity` / `checkFingerprint` verify them on the received bytes.
public struct STUNMessage: Sendable, Hashable {
    public var type: STUNMessageType
    public var transactionID: STUNTransactionID
    /// The attributes in order, up to MESSAGE-INTEGRITY (what follows it is ignored, §14.5).
    public var attributes: [STUNAttribute]

    /// The magic cookie (RFC 8489 §5), also the XOR mask of mapped addresses.
    public static let magicCookie: UInt32 = 0x2112_A442
    public static let headerLength = 20
    /// XORed into the CRC-32 of FINGERPRINT (RFC 8489 §14.7).
    public static let fingerprintXOR: UInt32 = 0x5354_554E

    public init(type: STUNMessageType, transactionID: STUNTransactionID, attributes: [STUNAttribute] = []) {
        self.type = type
        self.transactionID = transactionID
        self.attributes = attributes
    }

    /// Whether `bytes` is a STUN message rather than DTLS or (S)RTP on a shared port: first
    /// byte 0–3 (RFC 7983 §7), the magic cookie, and a length that matches the datagram.
    public static func isSTUN(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.count >= headerLength, bytes[bytes.startIndex] <= 3 else { return false }
        let base = bytes.startIndex
        let cookie = UInt32(bytes[base + 4]) << 24 | UInt32(bytes[base + 5]) << 16 | UInt32(bytes[base + 6]) << 8 | UInt32(bytes[base + 7])
        let length = Int(bytes[base + 2]) << 8 | Int(bytes[base + 3])
        return cookie == magicCookie && length + headerLength == bytes.count
    }

    // MARK: - Parsing

    /// Parses one message that fills `bytes` exactly. Throws `WireError` for a bad header, a
    /// length that is not the datagram's, a truncated or malformed attribute, or an attribute
    /// after FINGERPRINT. Unknown attributes are kept (`STUNAttribute.unknown`).
    public init(parsing bytes: ArraySlice<UInt8>) throws(WireError) {
        let layout = try Self.layout(of: bytes)
        type = layout.type
        transactionID = layout.transactionID
        var attributes: [STUNAttribute] = []
        for entry in layout.attributes {
            if entry.type == STUNAttribute.Code.messageIntegrity { break }
            if entry.type == STUNAttribute.Code.fingerprint { continue }  // always last
            attributes.append(try STUNAttribute.parse(type: entry.type, value: bytes[entry.value], transactionID: layout.transactionID))
        }
        self.attributes = attributes
    }

    public init(parsing bytes: [UInt8]) throws(WireError) {
        try self.init(parsing: bytes[...])
    }

    /// Where each attribute sits in a message: its type, the offset of its header, its value.
    struct Layout {
        struct Entry {
            var type: UInt16
            var offset: Int
            var value: Range<Int>
        }
        var type: STUNMessageType
        var transactionID: STUNTransactionID
        var attributes: [Entry]
    }

    /// Walks the header and attribute TLVs of `bytes` (indices are `bytes`' own).
    static func layout(of bytes: ArraySlice<UInt8>) throws(WireError) -> Layout {
        var reader = ByteReader(bytes)
        let typeField = try reader.readUInt16("STUN message type")
        guard let type = STUNMessageType(field: typeField) else {
            throw .invalidValue(field: "STUN message type (top bits)", value: Int(typeField))
        }
        let length = Int(try reader.readUInt16("STUN message length"))
        let cookie = try reader.readUInt32("STUN magic cookie")
        guard cookie == magicCookie else { throw .invalidValue(field: "STUN magic cookie", value: Int(cookie)) }
        let transactionID = STUNTransactionID(Array(try reader.readSlice(STUNTransactionID.length, "STUN transaction ID")))!
        guard length % 4 == 0 else { throw .invalidValue(field: "STUN message length (multiple of 4)", value: length) }
        guard length == reader.remaining else {
            throw .invalidValue(field: "STUN message length (datagram has \(reader.remaining) after the header)", value: length)
        }
        var entries: [Layout.Entry] = []
        var sawFingerprint = false
        while reader.remaining > 0 {
            guard !sawFingerprint else { throw .invalidValue(field: "STUN attribute after FINGERPRINT", value: reader.remaining) }
            let offset = bytes.startIndex + reader.consumed
            let attributeType = try reader.readUInt16("STUN attribute type")
            let valueLength = Int(try reader.readUInt16("STUN attribute length"))
            let valueStart = bytes.startIndex + reader.consumed
            try reader.skip(valueLength, "STUN attribute value")
            let padding = (4 - valueLength % 4) % 4
            try reader.skip(padding, "STUN attribute padding")
            switch attributeType {
            case STUNAttribute.Code.messageIntegrity where valueLength != SHA1.digestLength:
                throw .invalidValue(field: "STUN MESSAGE-INTEGRITY length", value: valueLength)
            case STUNAttribute.Code.fingerprint where valueLength != 4:
                throw .invalidValue(field: "STUN FINGERPRINT length", value: valueLength)
            case STUNAttribute.Code.fingerprint:
                sawFingerprint = true
            default:
                break
            }
            entries.append(.init(type: attributeType, offset: offset, value: valueStart..<(valueStart + valueLength)))
        }
        return Layout(type: type, transactionID: transactionID, attributes: entries)
    }

    // MARK: - Serializing

    /// The message on the wire: attributes padded with `padding` bytes (RFC 8489 says zero; the
    /// RFC 5769 vectors use spaces), then MESSAGE-INTEGRITY under `integrityKey` (short-term
    /// credentials: the peer's ice-pwd, RFC 8445 §7.2.2) and FINGERPRINT if asked.
    /// Throws for a value that cannot be written or a message longer than 65,535 bytes.
    public func serialized(integrityKey: [UInt8]? = nil, fingerprint: Bool = false, padding: UInt8 = 0) throws(WireError) -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(128)
        buffer.appendUInt16(type.field)
        buffer.appendUInt16(0)  // length, set as attributes are added
        buffer.appendUInt32(Self.magicCookie)
        buffer += transactionID.bytes
        for attribute in attributes {
            let start = buffer.count
            buffer.appendUInt16(attribute.type)
            buffer.appendUInt16(0)
            try attribute.serializeValue(into: &buffer, transactionID: transactionID)
            let valueLength = buffer.count - start - 4
            guard valueLength <= Int(UInt16.max) else { throw .outOfRange(field: "STUN attribute length", value: valueLength) }
            buffer.setUInt16(UInt16(valueLength), at: start + 2)
            buffer += [UInt8](repeating: padding, count: (4 - valueLength % 4) % 4)
        }
        if let integrityKey {
            try Self.setLength(buffer.count - Self.headerLength + 4 + SHA1.digestLength, in: &buffer)
            let mac = SHA1.hmac(key: integrityKey, message: buffer)
            buffer.appendUInt16(STUNAttribute.Code.messageIntegrity)
            buffer.appendUInt16(UInt16(SHA1.digestLength))
            buffer += mac
        }
        if fingerprint {
            try Self.setLength(buffer.count - Self.headerLength + 8, in: &buffer)
            let crc = CRC32.checksum(buffer) ^ Self.fingerprintXOR
            buffer.appendUInt16(STUNAttribute.Code.fingerprint)
            buffer.appendUInt16(4)
            buffer.appendUInt32(crc)
        }
        try Self.setLength(buffer.count - Self.headerLength, in: &buffer)
        return buffer
    }

    // MARK: - Integrity and fingerprint

    /// What a check of MESSAGE-INTEGRITY or FINGERPRINT found.
    public enum Check: Sendable, Equatable {
        case valid
        case invalid
        /// The message does not carry the attribute (or is not a parseable STUN message).
        case absent
    }

    /// Verifies MESSAGE-INTEGRITY (RFC 8489 §14.5): HMAC-SHA1 under `key` over the message up to
    /// the attribute, with the header's length counting up to its end.
    public static func checkIntegrity(_ bytes: ArraySlice<UInt8>, key: [UInt8]) -> Check {
        guard let layout = try? layout(of: bytes),
              let entry = layout.attributes.first(where: { $0.type == STUNAttribute.Code.messageIntegrity }) else { return .absent }
        var covered = Array(bytes[bytes.startIndex..<entry.offset])
        guard (try? setLength(covered.count - headerLength + 4 + SHA1.digestLength, in: &covered)) != nil else { return .invalid }
        let expected = SHA1.hmac(key: key, message: covered)
        // Constant time: every byte is compared whatever the first difference.
        var difference: UInt8 = 0
        for (index, byte) in bytes[entry.value].enumerated() { difference |= byte ^ expected[index] }
        return difference == 0 ? .valid : .invalid
    }

    /// Verifies FINGERPRINT (RFC 8489 §14.7): CRC-32 of everything before it, XOR 0x5354554E.
    public static func checkFingerprint(_ bytes: ArraySlice<UInt8>) -> Check {
        guard let layout = try? layout(of: bytes), let entry = layout.attributes.last,
              entry.type == STUNAttribute.Code.fingerprint else { return .absent }
        var reader = ByteReader(bytes[entry.value])
        guard let carried = try? reader.readUInt32("STUN FINGERPRINT") else { return .invalid }
        let computed = CRC32.checksum(bytes[bytes.startIndex..<entry.offset]) ^ fingerprintXOR
        return carried == computed ? .valid : .invalid
    }

    // MARK: - Bytes

    private static func setLength(_ length: Int, in buffer: inout [UInt8]) throws(WireError) {
        guard length <= Int(UInt16.max) else { throw .outOfRange(field: "STUN message length", value: length) }
        buffer.setUInt16(UInt16(length), at: 2)
    }
}
