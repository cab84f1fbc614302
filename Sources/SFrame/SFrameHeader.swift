/// The SFrame header (RFC 9605 §4.3): a config byte `|X| K |Y| C |`, then the KID and the CTR
/// when they do not fit in 3 bits, each as a big-endian integer of the fewest bytes (1...8).
public struct SFrameHeader: Sendable, Hashable {
    public var keyID: UInt64
    public var counter: UInt64

    public init(keyID: UInt64, counter: UInt64) {
        self.keyID = keyID
        self.counter = counter
    }

    /// Bytes the header takes on the wire.
    public var encodedLength: Int { 1 + Self.extraBytes(keyID) + Self.extraBytes(counter) }

    /// Appends the header to `buffer`.
    public func encode(into buffer: inout [UInt8]) {
        let kidBytes = Self.extraBytes(keyID), ctrBytes = Self.extraBytes(counter)
        let kidField = kidBytes == 0 ? UInt8(keyID) : 0x8 | UInt8(kidBytes - 1)
        let ctrField = ctrBytes == 0 ? UInt8(counter) : 0x8 | UInt8(ctrBytes - 1)
        buffer.append(kidField << 4 | ctrField)
        Self.appendBigEndian(keyID, bytes: kidBytes, to: &buffer)
        Self.appendBigEndian(counter, bytes: ctrBytes, to: &buffer)
    }

    /// The header as bytes.
    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encodedLength)
        encode(into: &bytes)
        return bytes
    }

    /// Reads the header at the start of `bytes`; returns it and its length. Throws
    /// `SFrameError.truncated` when the bytes end inside it.
    public static func parse(_ bytes: some Collection<UInt8>) throws(SFrameError) -> (header: SFrameHeader, length: Int) {
        guard let config = bytes.first else { throw .truncated(needed: 1, available: 0) }
        let kidExtended = config & 0x80 != 0, ctrExtended = config & 0x08 != 0
        let kidBytes = kidExtended ? Int((config >> 4) & 0x7) + 1 : 0
        let ctrBytes = ctrExtended ? Int(config & 0x7) + 1 : 0
        let length = 1 + kidBytes + ctrBytes
        guard bytes.count >= length else { throw .truncated(needed: length, available: bytes.count) }
        var iterator = bytes.dropFirst().makeIterator()
        func read(_ count: Int) -> UInt64 {
            var value: UInt64 = 0
            for _ in 0..<count { value = value << 8 | UInt64(iterator.next() ?? 0) }
            return value
        }
        let keyID = kidExtended ? read(kidBytes) : UInt64((config >> 4) & 0x7)
        let counter = ctrExtended ? read(ctrBytes) : UInt64(config & 0x7)
        return (SFrameHeader(keyID: keyID, counter: counter), length)
    }

    /// Bytes after the config byte for `value`: 0 when it fits in 3 bits, else the fewest
    /// bytes that hold it.
    static func extraBytes(_ value: UInt64) -> Int {
        value < 8 ? 0 : (UInt64.bitWidth - value.leadingZeroBitCount + 7) / 8
    }

    static func appendBigEndian(_ value: UInt64, bytes: Int, to buffer: inout [UInt8]) {
        for index in stride(from: bytes - 1, through: 0, by: -1) { buffer.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }
}
