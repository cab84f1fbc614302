/// Source description, SDES (RFC 3550 §6.5): up to 31 chunks, each an SSRC/CSRC and its items.
public struct SourceDescription: Sendable, Equatable {
    /// The chunks, in wire order.
    public var chunks: [SDESChunk]

    /// Creates an SDES packet from its chunks.
    public init(chunks: [SDESChunk]) {
        self.chunks = chunks
    }

    /// The CNAME (RFC 3550 §6.5.1) announced for `ssrc`, if any chunk carries one.
    public func cname(for ssrc: UInt32) -> String? {
        for chunk in chunks where chunk.ssrc == ssrc {
            if let name = chunk.cname { return name }
        }
        return nil
    }
}

/// One SDES chunk (RFC 3550 §6.5): an SSRC/CSRC followed by items, a terminating null octet
/// and null padding to the next 32-bit boundary.
public struct SDESChunk: Sendable, Equatable {
    /// The source the items describe.
    public var ssrc: UInt32
    /// Items in wire order (the terminating null item is implicit).
    public var items: [SDESItem]

    /// Creates a chunk from its fields.
    public init(ssrc: UInt32, items: [SDESItem]) {
        self.ssrc = ssrc
        self.items = items
    }

    /// A chunk carrying just a CNAME item (RFC 3550 §6.5.1).
    public static func cname(ssrc: UInt32, _ cname: String) -> SDESChunk {
        SDESChunk(ssrc: ssrc, items: [SDESItem(type: .cname, value: Array(cname.utf8))])
    }

    /// The first CNAME item decoded as UTF-8 (invalid sequences are replaced), if present.
    public var cname: String? {
        for item in items where item.type == .cname {
            return String(decoding: item.value, as: UTF8.self)
        }
        return nil
    }
}

/// One SDES item (RFC 3550 §6.5): type, 8-bit length, value (UTF-8 text for most types).
public struct SDESItem: Sendable, Equatable {
    /// Item type; never `.end` in a stored item.
    public var type: SDESItemType
    /// Item value, at most 255 octets.
    public var value: [UInt8]

    /// Creates an item from its fields.
    public init(type: SDESItemType, value: [UInt8]) {
        self.type = type
        self.value = value
    }
}

/// SDES item type codes (RFC 3550 §6.5, §12.2).
public struct SDESItemType: RawRepresentable, Sendable, Hashable {
    /// The 8-bit type code.
    public var rawValue: UInt8
    /// Creates a type from its code.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// END: terminates the item list of a chunk (§6.5).
    public static let end = SDESItemType(rawValue: 0)
    /// CNAME: canonical end-point identifier (§6.5.1).
    public static let cname = SDESItemType(rawValue: 1)
    /// NAME: user name (§6.5.2).
    public static let name = SDESItemType(rawValue: 2)
    /// EMAIL (§6.5.3).
    public static let email = SDESItemType(rawValue: 3)
    /// PHONE (§6.5.4).
    public static let phone = SDESItemType(rawValue: 4)
    /// LOC: geographic location (§6.5.5).
    public static let location = SDESItemType(rawValue: 5)
    /// TOOL: application or tool name (§6.5.6).
    public static let tool = SDESItemType(rawValue: 6)
    /// NOTE: notice/status (§6.5.7).
    public static let note = SDESItemType(rawValue: 7)
    /// PRIV: private extension, value kept raw (§6.5.8).
    public static let privateExtension = SDESItemType(rawValue: 8)
}

extension SourceDescription {
    static func parseBody(count: UInt8, _ reader: inout ByteReader) throws(WireError) -> SourceDescription {
        var chunks: [SDESChunk] = []
        chunks.reserveCapacity(Int(count))
        for _ in 0..<count {
            let chunkStart = reader.consumed
            let ssrc = try reader.readUInt32("SDES chunk SSRC")
            var items: [SDESItem] = []
            while true {
                let type = try reader.readUInt8("SDES item type")
                if type == SDESItemType.end.rawValue { break }
                let length = try reader.readUInt8("SDES item length")
                let value = try reader.readSlice(Int(length), "SDES item value")
                items.append(SDESItem(type: SDESItemType(rawValue: type), value: Array(value)))
            }
            // Null octets up to the next 32-bit boundary of the chunk; both operands are small
            // non-negative byte counts, so the arithmetic cannot overflow.
            let used = reader.consumed - chunkStart
            try reader.skip((4 - used % 4) % 4, "SDES chunk padding")
            chunks.append(SDESChunk(ssrc: ssrc, items: items))
        }
        guard reader.remaining == 0 else {
            throw .invalidValue(field: "SDES octets after the last of SC chunks", value: reader.remaining)
        }
        return SourceDescription(chunks: chunks)
    }

    func headerCount() throws(WireError) -> UInt8 {
        guard chunks.count <= 31 else { throw .outOfRange(field: "SDES source count", value: chunks.count) }
        return UInt8(chunks.count)
    }

    func serializeBody(into out: inout [UInt8]) throws(WireError) {
        for chunk in chunks {
            let chunkStart = out.count
            out.appendUInt32(chunk.ssrc)
            for item in chunk.items {
                guard item.type != .end else { throw .outOfRange(field: "SDES item type", value: 0) }
                guard item.value.count <= 255 else {
                    throw .outOfRange(field: "SDES item length", value: item.value.count)
                }
                out.appendUInt8(item.type.rawValue)
                out.appendUInt8(UInt8(item.value.count))
                out.append(contentsOf: item.value)
            }
            out.appendUInt8(SDESItemType.end.rawValue)
            let used = out.count - chunkStart
            for _ in 0..<((4 - used % 4) % 4) { out.appendUInt8(0) }
        }
    }
}
