/// One RFC 8285 header extension element: a local identifier and a view of its data.
///
/// When parsed, `data` shares the caller's storage (no copy).
public struct RTPHeaderExtensionElement: Sendable, Equatable {
    /// The local identifier (RFC 8285 §4.2: 1...14 in the one-byte form; §4.3: 1...255 in the
    /// two-byte form).
    public var id: UInt8
    /// The element's data bytes (RFC 8285 §4.2: 1...16 bytes one-byte form; §4.3: 0...255 two-byte form).
    public var data: ArraySlice<UInt8>

    /// An element with the given identifier and data.
    public init(id: UInt8, data: ArraySlice<UInt8>) {
        self.id = id
        self.data = data
    }

    /// An element with the given identifier and data.
    public init(id: UInt8, data: [UInt8]) {
        self.init(id: id, data: data[...])
    }
}

/// The form of an RTP header extension block, selected by its 16-bit "defined by profile" field.
public enum RTPHeaderExtensionForm: Sendable, Equatable {
    /// RFC 8285 §4.2 one-byte header (profile `0xBEDE`).
    case oneByte
    /// RFC 8285 §4.3 two-byte header (profile `0x100` followed by 4 "appbits").
    case twoByte(appBits: UInt8)
    /// Any other RFC 3550 §5.3.1 extension: kept as opaque bytes, no elements.
    case other(profile: UInt16)

    /// The 16-bit "defined by profile" value that identifies this form on the wire (RFC 3550 §5.3.1).
    public var profile: UInt16 {
        switch self {
        case .oneByte: return RTPHeaderExtensions.oneByteProfile
        case let .twoByte(appBits): return RTPHeaderExtensions.twoByteProfileBase | UInt16(appBits & 0x0F)
        case let .other(profile): return profile
        }
    }

    /// The form named by a "defined by profile" value (RFC 8285 §4.2, §4.3).
    public init(profile: UInt16) {
        if profile == RTPHeaderExtensions.oneByteProfile {
            self = .oneByte
        } else if profile & 0xFFF0 == RTPHeaderExtensions.twoByteProfileBase {
            self = .twoByte(appBits: UInt8(truncatingIfNeeded: profile & 0x0F))
        } else {
            self = .other(profile: profile)
        }
    }
}

/// An RTP header extension block (RFC 3550 §5.3.1) holding RFC 8285 elements.
///
/// The block is stored as its raw body (a view of the caller's bytes when parsed) and was validated
/// when created, so iterating `elements` cannot fail. Serializing writes the body back unchanged,
/// which makes parse → serialize → parse exact.
public struct RTPHeaderExtensions: Sendable, Equatable {
    /// "Defined by profile" value of the one-byte form (RFC 8285 §4.2).
    public static let oneByteProfile: UInt16 = 0xBEDE
    /// "Defined by profile" value of the two-byte form with appbits 0 (RFC 8285 §4.3).
    public static let twoByteProfileBase: UInt16 = 0x1000
    /// The one-byte form's identifier that ends parsing of the block (RFC 8285 §4.2).
    public static let oneByteStopID: UInt8 = 15

    /// How the block's elements are encoded.
    public let form: RTPHeaderExtensionForm
    /// The block body after the 4-byte profile/length word; always a multiple of 4 bytes long.
    public let body: ArraySlice<UInt8>

    /// Validates and wraps a block body read from the wire (RFC 8285 §4.2–4.3).
    /// Throws `WireError` if an element runs past the end of the body.
    public init(profile: UInt16, body: ArraySlice<UInt8>) throws(WireError) {
        guard body.count % 4 == 0 else {
            throw .invalidValue(field: "RTP header extension length", value: body.count)
        }
        let form = RTPHeaderExtensionForm(profile: profile)
        var cursor = ElementCursor(form: form, body: body)
        while try cursor.next() != nil {}
        self.form = form
        self.body = body
    }

    /// Builds a block from elements, choosing the one-byte form when every id is in 1...14 and every
    /// length in 1...16, and the two-byte form otherwise (RFC 8285 §4.1: one block uses one form, so
    /// a single element that needs the two-byte form moves the whole block there).
    /// Throws `WireError.outOfRange` for id 0, or data longer than 255 bytes.
    public init(elements: [RTPHeaderExtensionElement]) throws(WireError) {
        var oneByteFits = true
        for element in elements where !(1...14).contains(element.id) || !(1...16).contains(element.data.count) {
            oneByteFits = false
        }
        try self.init(elements: elements, form: oneByteFits ? .oneByte : .twoByte(appBits: 0))
    }

    /// Builds a block in an explicit form (RFC 8285 §4.2 or §4.3), padding the body with zero bytes
    /// to a multiple of 4. Throws `WireError.outOfRange` if an element does not fit the form, and
    /// `WireError.unsupported` for `.other` forms.
    public init(elements: [RTPHeaderExtensionElement], form: RTPHeaderExtensionForm) throws(WireError) {
        var bytes: [UInt8] = []
        switch form {
        case .oneByte:
            for element in elements {
                guard (1...14).contains(element.id) else {
                    throw .outOfRange(field: "one-byte header extension id", value: Int(element.id))
                }
                guard (1...16).contains(element.data.count) else {
                    throw .outOfRange(field: "one-byte header extension length", value: element.data.count)
                }
                // (count - 1) is 0...15 by the guard above.
                bytes.append(element.id << 4 | UInt8(element.data.count - 1))
                bytes.append(contentsOf: element.data)
            }
        case .twoByte:
            for element in elements {
                guard element.id != 0 else {
                    throw .outOfRange(field: "two-byte header extension id", value: 0)
                }
                guard element.data.count <= 255 else {
                    throw .outOfRange(field: "two-byte header extension length", value: element.data.count)
                }
                bytes.append(element.id)
                bytes.append(UInt8(element.data.count))
                bytes.append(contentsOf: element.data)
            }
        case .other:
            throw .unsupported("building elements for a non-RFC 8285 header extension profile")
        }
        while bytes.count % 4 != 0 { bytes.append(0) }
        guard bytes.count / 4 <= Int(UInt16.max) else {
            throw .outOfRange(field: "RTP header extension length", value: bytes.count)
        }
        self.form = form
        self.body = bytes[...]
    }

    /// The elements in wire order, skipping padding and stopping at a one-byte id 15
    /// (RFC 8285 §4.2). Allocates an array; use `forEachElement` or `element(id:)` on hot paths.
    public var elements: [RTPHeaderExtensionElement] {
        var result: [RTPHeaderExtensionElement] = []
        forEachElement { result.append($0) }
        return result
    }

    /// Calls `body` for each element in wire order without allocating (RFC 8285 §4.2–4.3).
    public func forEachElement(_ visit: (RTPHeaderExtensionElement) -> Void) {
        var cursor = ElementCursor(form: form, body: body)
        // The body was validated at init, so `next()` cannot throw here; stop defensively if it did.
        while let element = try? cursor.next() { visit(element) }
    }

    /// The data of the first element with this id, or nil (RFC 8285 §5: ids are unique in a packet).
    public func element(id: UInt8) -> ArraySlice<UInt8>? {
        var cursor = ElementCursor(form: form, body: body)
        while let element = try? cursor.next() {
            if element.id == id { return element.data }
        }
        return nil
    }

    /// Bytes this block occupies in an RTP header: the 4-byte profile/length word plus the body.
    public var encodedLength: Int { 4 + body.count }

    /// Appends the profile/length word and the body (RFC 3550 §5.3.1).
    /// Throws `WireError.outOfRange` if the body is not a multiple of 4 bytes or too long.
    public func serialize(into buffer: inout [UInt8]) throws(WireError) {
        guard body.count % 4 == 0, body.count / 4 <= Int(UInt16.max) else {
            throw .outOfRange(field: "RTP header extension length", value: body.count)
        }
        buffer.appendUInt16(form.profile)
        buffer.appendUInt16(UInt16(body.count / 4))
        buffer.append(contentsOf: body)
    }
}

/// Walks RFC 8285 elements in a block body; throws on an element that overruns the body.
struct ElementCursor {
    let form: RTPHeaderExtensionForm
    var reader: ByteReader
    var stopped = false

    init(form: RTPHeaderExtensionForm, body: ArraySlice<UInt8>) {
        self.form = form
        self.reader = ByteReader(body)
    }

    mutating func next() throws(WireError) -> RTPHeaderExtensionElement? {
        if stopped { return nil }
        switch form {
        case .other:
            return nil
        case .oneByte:
            while reader.remaining > 0 {
                let header = try reader.readUInt8("one-byte extension header")
                if header == 0 { continue }  // padding
                let id = header >> 4
                if id == RTPHeaderExtensions.oneByteStopID {
                    stopped = true
                    return nil
                }
                if id == 0 {
                    throw .invalidValue(field: "one-byte extension id 0 with nonzero length", value: Int(header))
                }
                let length = Int(header & 0x0F) + 1
                let data = try reader.readSlice(length, "one-byte extension data")
                return RTPHeaderExtensionElement(id: id, data: data)
            }
            return nil
        case .twoByte:
            while reader.remaining > 0 {
                let id = try reader.readUInt8("two-byte extension id")
                if id == 0 { continue }  // padding
                let length = Int(try reader.readUInt8("two-byte extension length"))
                let data = try reader.readSlice(length, "two-byte extension data")
                return RTPHeaderExtensionElement(id: id, data: data)
            }
            return nil
        }
    }
}
