/// Big-endian appends onto a caller-owned byte array. Reserve capacity once and reuse the
/// array across packets to keep hot paths free of allocations.
extension Array where Element == UInt8 {
    @inline(__always) public mutating func appendUInt8(_ value: UInt8) { append(value) }

    @inline(__always) public mutating func appendUInt16(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    @inline(__always) public mutating func appendUInt24(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    @inline(__always) public mutating func appendUInt32(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value >> 24))
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    @inline(__always) public mutating func appendUInt64(_ value: UInt64) {
        appendUInt32(UInt32(truncatingIfNeeded: value >> 32))
        appendUInt32(UInt32(truncatingIfNeeded: value))
    }

    /// Overwrites two bytes at `offset` (used to patch length fields after the body is written).
    @inline(__always) public mutating func setUInt16(_ value: UInt16, at offset: Int) {
        self[offset] = UInt8(truncatingIfNeeded: value >> 8)
        self[offset + 1] = UInt8(truncatingIfNeeded: value)
    }
}
