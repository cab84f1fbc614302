/// RTP, RTCP, STUN and DTLS over a connection-oriented transport (RFC 4571 §2, used by ICE-TCP
/// in RFC 6544 and by TURN-TCP paths): every packet is preceded by its length as a 16-bit
/// big-endian integer. `StreamFramer` writes that prefix; `StreamDeframer` takes the stream in
/// whatever pieces the socket hands over and gives back whole packets.
public enum StreamFramer {
    /// The largest packet a 16-bit length can carry.
    public static let maximumPacketSize = Int(UInt16.max)

    /// Appends the 2-byte length and `packet` to `buffer`. Throws `WireError.outOfRange` for a
    /// packet longer than 65,535 bytes (and appends nothing).
    public static func append(_ packet: UnsafeRawBufferPointer, to buffer: inout [UInt8]) throws(WireError) {
        guard packet.count <= maximumPacketSize else { throw .outOfRange(field: "RFC 4571 packet length", value: packet.count) }
        buffer.append(UInt8(packet.count >> 8))
        buffer.append(UInt8(truncatingIfNeeded: packet.count))
        buffer.append(contentsOf: packet)
    }

    /// `append(_:to:)` for an array.
    public static func append(_ packet: [UInt8], to buffer: inout [UInt8]) throws(WireError) {
        guard packet.count <= maximumPacketSize else { throw .outOfRange(field: "RFC 4571 packet length", value: packet.count) }
        buffer.append(UInt8(packet.count >> 8))
        buffer.append(UInt8(truncatingIfNeeded: packet.count))
        buffer.append(contentsOf: packet)
    }
}

/// Reassembles RFC 4571 packets from a byte stream in a buffer of at most `capacity` bytes, which
/// bounds what one connection can hold before its reader takes packets. The buffer starts empty
/// and grows (doubling, from room for one whole packet) only while the bytes held need more room,
/// so a connection that never sends holds none. A length above `maximumPacketSize` means the
/// stream is not (or no longer) framed: `nextPacket` throws and the connection must be dropped,
/// since no later byte can be trusted to start a packet. Empty packets (length 0) are skipped. No
/// allocation once the buffer has grown to what the stream needs.
public struct StreamDeframer {
    /// How messages are delimited on the stream.
    public enum Framing: Sendable, Equatable {
        /// RFC 4571: each packet after its 16-bit length.
        case lengthPrefixed
        /// TURN over TCP (RFC 8656 §3.1): STUN messages (their 20-byte header's length field) and
        /// ChannelData messages (§12.4, 4-byte header, padded to a multiple of 4 bytes on a stream,
        /// §12.5) back to back, with no prefix. A packet handed out is the whole STUN message, or a
        /// ChannelData message without its padding.
        case stunAndChannelData
    }

    public let maximumPacketSize: Int
    public let framing: Framing
    /// The most bytes the buffer grows to.
    public let capacity: Int
    private var storage: [UInt8] = []
    /// Bytes of `storage[start..<end]` not yet handed out.
    private var start = 0
    private var end = 0

    public init(maximumPacketSize: Int = 1500, capacity: Int = 64 * 1024, framing: Framing = .lengthPrefixed) {
        self.framing = framing
        self.maximumPacketSize = min(max(1, maximumPacketSize), StreamFramer.maximumPacketSize)
        self.capacity = max(capacity, self.maximumPacketSize + 2)
    }

    /// Bytes the buffer holds room for now (0 until the first bytes arrive).
    public var allocatedBytes: Int { storage.count }

    /// Bytes held that are not yet a whole packet (or not yet taken).
    public var bufferedBytes: Int { end - start }

    /// Lets `read` fill the free space at the end of the buffer (e.g. with `recv`); `read`
    /// returns how many bytes it wrote (≤ 0: none). Returns that count. Moves what is held to the
    /// front first when the free space is short of a whole packet.
    public mutating func fill(_ read: (UnsafeMutableRawBufferPointer) -> Int) -> Int {
        if storage.count - end < maximumPacketSize + 2, start > 0 {
            storage.withUnsafeMutableBytes { bytes in
                bytes.baseAddress!.copyMemory(from: bytes.baseAddress! + start, byteCount: end - start)
            }
            (start, end) = (0, end - start)
        }
        if storage.isEmpty {
            // The first bytes are read on the stack: a stream that sends none costs no buffer.
            return withUnsafeTemporaryAllocation(byteCount: maximumPacketSize + 2, alignment: 1) { scratch in
                let written = min(read(scratch), scratch.count)
                guard written > 0 else { return max(0, written) }
                storage = [UInt8](repeating: 0, count: maximumPacketSize + 2)
                storage.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: scratch.baseAddress!, byteCount: written) }
                end = written
                return written
            }
        }
        if storage.count - end < maximumPacketSize + 2, storage.count < capacity {
            storage.append(contentsOf: repeatElement(0, count: min(capacity, storage.count * 2) - storage.count))
        }
        let written = storage.withUnsafeMutableBytes { bytes in
            read(UnsafeMutableRawBufferPointer(rebasing: bytes[end...]))
        }
        if written > 0 { end += min(written, storage.count - end) }
        return max(0, written)
    }

    /// Appends `bytes` (for streams not read straight from a socket); returns how many fit.
    @discardableResult
    public mutating func append(_ bytes: UnsafeRawBufferPointer) -> Int {
        fill { free in
            let count = min(free.count, bytes.count)
            if count > 0 { free.baseAddress!.copyMemory(from: bytes.baseAddress!, byteCount: count) }
            return count
        }
    }

    /// Calls `body` with the next whole packet, if one is buffered, and returns its result; nil
    /// when the next packet is not complete yet. Throws `WireError.outOfRange` for a length above
    /// `maximumPacketSize` (the stream is lost).
    public mutating func nextPacket<Result>(_ body: (UnsafeRawBufferPointer) -> Result) throws(WireError) -> Result? {
        if framing == .stunAndChannelData { return try nextTURNMessage(body) }
        while end - start >= 2 {
            let length = Int(storage[start]) << 8 | Int(storage[start + 1])
            guard length <= maximumPacketSize else {
                throw .outOfRange(field: "RFC 4571 packet length", value: length)
            }
            guard end - start >= 2 + length else { return nil }
            let first = start + 2
            start = first + length
            if start == end { (start, end) = (0, 0) }
            guard length > 0 else { continue }
            return storage.withUnsafeBytes { bytes in body(UnsafeRawBufferPointer(rebasing: bytes[first..<(first + length)])) }
        }
        return nil
    }

    /// `nextPacket` for `.stunAndChannelData`: the first byte tells the kind (RFC 7983: 0–3 STUN,
    /// 64–79 ChannelData); anything else means the stream lost its framing.
    private mutating func nextTURNMessage<Result>(_ body: (UnsafeRawBufferPointer) -> Result) throws(WireError) -> Result? {
        guard end - start >= 4 else { return nil }
        let first = storage[start]
        let length = Int(storage[start + 2]) << 8 | Int(storage[start + 3])
        let (message, occupied): (Int, Int)
        switch first {
        case 0...3: (message, occupied) = (20 + length, 20 + length)
        case 64...79: (message, occupied) = (4 + length, 4 + (length + 3) / 4 * 4)
        default: throw .invalidValue(field: "TURN stream message's first byte", value: Int(first))
        }
        guard message <= maximumPacketSize else { throw .outOfRange(field: "TURN stream message length", value: message) }
        guard end - start >= occupied else { return nil }
        let from = start
        start += occupied
        if start == end { (start, end) = (0, 0) }
        return storage.withUnsafeBytes { bytes in body(UnsafeRawBufferPointer(rebasing: bytes[from..<(from + message)])) }
    }
}
