/// Writes RFC 8285 elements straight into an outgoing packet buffer, for the send hot path where
/// building an `RTPHeaderExtensions` block (one array per packet) would allocate.
///
/// Obtained from `RTPHeader.serialize(into:padding:extensionForm:writeExtensions:)`; the form is
/// fixed up front, so an element that does not fit it throws instead of switching forms (use
/// `RTPHeaderExtensions(elements:)` for the automatic one-byte/two-byte choice of RFC 8285 §4.1).
public struct RTPHeaderExtensionAppender: ~Copyable {
    /// The form every element is written in (RFC 8285 §4.2 or §4.3).
    public let form: RTPHeaderExtensionForm
    var buffer: [UInt8] = []

    init(form: RTPHeaderExtensionForm) {
        self.form = form
    }

    /// Appends one element with `id` whose data `writeData` appends (RFC 8285 §4.2–4.3). On error
    /// nothing is left in the buffer. Throws `WireError.outOfRange` for an id or length the form
    /// cannot carry.
    public mutating func append(id: UInt8, writeData: (inout [UInt8]) -> Void) throws(WireError) {
        let start = buffer.count
        switch form {
        case .oneByte:
            guard (1...14).contains(id) else {
                throw .outOfRange(field: "one-byte header extension id", value: Int(id))
            }
            buffer.append(0)
            writeData(&buffer)
            let length = buffer.count - start - 1
            guard (1...16).contains(length) else {
                buffer.removeLast(buffer.count - start)
                throw .outOfRange(field: "one-byte header extension length", value: length)
            }
            buffer[start] = id << 4 | UInt8(length - 1)  // length - 1 is 0...15 by the guard.
        case .twoByte:
            guard id != 0 else { throw .outOfRange(field: "two-byte header extension id", value: 0) }
            buffer.append(id)
            buffer.append(0)
            writeData(&buffer)
            let length = buffer.count - start - 2
            guard length <= 255 else {
                buffer.removeLast(buffer.count - start)
                throw .outOfRange(field: "two-byte header extension length", value: length)
            }
            buffer[start + 1] = UInt8(length)
        case .other:
            throw .unsupported("appending elements to a non-RFC 8285 header extension profile")
        }
    }

    /// Appends one element with raw data (RFC 8285 §4.2–4.3).
    public mutating func append(id: UInt8, data: ArraySlice<UInt8>) throws(WireError) {
        try append(id: id) { $0.append(contentsOf: data) }
    }

    /// Appends a typed value under the id `map` negotiated for its kind (RFC 8285 §5).
    /// Throws `WireError.unsupported` when the kind is not negotiated.
    public mutating func append<Value: RTPHeaderExtensionValue>(_ value: Value, map: RTPHeaderExtensionMap) throws(WireError) {
        guard let id = map.id(for: Value.kind) else {
            throw .unsupported("header extension \(Value.kind.uri) is not negotiated")
        }
        try append(id: id) { value.appendExtensionData(to: &$0) }
    }
}

extension RTPHeader {
    /// Appends this header with a header extension block whose elements `writeExtensions` appends
    /// directly into `buffer` (RFC 3550 §5.3.1, RFC 8285), ignoring `self.extensions`. The block is
    /// zero-padded to 32 bits and its length patched afterwards; with capacity reserved nothing
    /// allocates. On error `buffer` is restored to its original length.
    public func serialize(into buffer: inout [UInt8], padding: Bool = false,
                          extensionForm: RTPHeaderExtensionForm,
                          writeExtensions: (inout RTPHeaderExtensionAppender) throws(WireError) -> Void) throws(WireError) {
        let originalCount = buffer.count
        var header = self
        header.extensions = nil
        try header.serialize(into: &buffer, padding: padding)
        buffer[originalCount] |= 0x10  // X bit
        buffer.appendUInt16(extensionForm.profile)
        let lengthOffset = buffer.count
        buffer.appendUInt16(0)
        let bodyStart = buffer.count

        var appender = RTPHeaderExtensionAppender(form: extensionForm)
        swap(&appender.buffer, &buffer)  // hand the storage over without copying
        var failure: WireError?
        do { try writeExtensions(&appender) } catch { failure = error }
        swap(&appender.buffer, &buffer)
        if let failure {
            buffer.removeLast(buffer.count - originalCount)
            throw failure
        }
        while (buffer.count - bodyStart) % 4 != 0 { buffer.append(0) }
        let words = (buffer.count - bodyStart) / 4
        guard words <= Int(UInt16.max) else {
            buffer.removeLast(buffer.count - originalCount)
            throw .outOfRange(field: "RTP header extension length", value: words * 4)
        }
        buffer.setUInt16(UInt16(words), at: lengthOffset)
    }
}
