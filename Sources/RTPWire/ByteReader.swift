/// A bounds-checked big-endian reader over a view of the caller's bytes (no copy).
/// Every read either succeeds or throws `WireError.truncated`; nothing here can trap.
public struct ByteReader: Sendable {
    /// The bytes being read; indices are those of the caller's storage.
    public let bytes: ArraySlice<UInt8>
    /// Index of the next unread byte (in `bytes`' index space).
    public private(set) var index: Int

    public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.index = bytes.startIndex
    }

    public init(_ bytes: [UInt8]) {
        self.init(bytes[...])
    }

    /// Bytes not yet read.
    public var remaining: Int { bytes.endIndex - index }

    /// Bytes already read.
    public var consumed: Int { index - bytes.startIndex }

    @inline(__always)
    private func require(_ count: Int, _ field: String) throws(WireError) {
        guard count >= 0, remaining >= count else {
            throw .truncated(field: field, needed: count, available: remaining)
        }
    }

    public mutating func readUInt8(_ field: String) throws(WireError) -> UInt8 {
        try require(1, field)
        defer { index += 1 }
        return bytes[index]
    }

    public mutating func readUInt16(_ field: String) throws(WireError) -> UInt16 {
        try require(2, field)
        defer { index += 2 }
        return UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
    }

    public mutating func readUInt24(_ field: String) throws(WireError) -> UInt32 {
        try require(3, field)
        defer { index += 3 }
        return UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
    }

    public mutating func readUInt32(_ field: String) throws(WireError) -> UInt32 {
        try require(4, field)
        defer { index += 4 }
        return UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16
            | UInt32(bytes[index + 2]) << 8 | UInt32(bytes[index + 3])
    }

    public mutating func readUInt64(_ field: String) throws(WireError) -> UInt64 {
        let high = try readUInt32(field)
        let low = try readUInt32(field)
        return UInt64(high) << 32 | UInt64(low)
    }

    /// A view of the next `count` bytes (shares the caller's storage).
    public mutating func readSlice(_ count: Int, _ field: String) throws(WireError) -> ArraySlice<UInt8> {
        try require(count, field)
        defer { index += count }
        return bytes[index..<(index + count)]
    }

    /// Everything not yet read, as a view.
    public mutating func readRest() -> ArraySlice<UInt8> {
        defer { index = bytes.endIndex }
        return bytes[index...]
    }

    public mutating func skip(_ count: Int, _ field: String) throws(WireError) {
        try require(count, field)
        index += count
    }

    /// The next byte without consuming it.
    public func peekUInt8(_ field: String) throws(WireError) -> UInt8 {
        try require(1, field)
        return bytes[index]
    }
}
