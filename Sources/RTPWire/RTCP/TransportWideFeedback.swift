/// Transport-wide congestion control feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01
/// §3.1, RTPFB FMT 15): arrival status and receive-time deltas for a range of transport-wide
/// sequence numbers.
///
/// The chunks are kept exactly as parsed, so any encoder's choice of run-length versus status
/// vector chunks round-trips byte-exact; `packetResults()` gives the per-packet view and
/// `init(senderSSRC:mediaSSRC:referenceTime:feedbackPacketCount:packets:)` builds from it.
public struct TransportWideFeedback: Sendable, Equatable {
    /// Smallest and largest value of the 24-bit signed reference time.
    public static let referenceTimeRange: ClosedRange<Int32> = -0x80_0000...0x7F_FFFF

    /// SSRC of the packet sender.
    public var senderSSRC: UInt32
    /// SSRC of the media source (unused by the scheme; commonly the first media SSRC or 0).
    public var mediaSSRC: UInt32
    /// Transport-wide sequence number of the first packet reported.
    public var baseSequenceNumber: UInt16
    /// Number of packets whose status this feedback reports.
    public var packetStatusCount: UInt16
    /// Reference time, a 24-bit signed value in multiples of 64 ms.
    public var referenceTime: Int32
    /// Feedback packet count, incremented per feedback sent (detects lost feedback).
    public var feedbackPacketCount: UInt8
    /// Packet status chunks in wire order.
    public var chunks: [PacketStatusChunk]
    /// Receive deltas in 250 µs units, one per received packet, in order. Packets with the
    /// small-delta symbol need 0…255; large-delta ones take any 16-bit signed value.
    public var receiveDeltas: [Int16]

    /// Creates a feedback packet from its raw fields.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32, baseSequenceNumber: UInt16,
                packetStatusCount: UInt16, referenceTime: Int32, feedbackPacketCount: UInt8,
                chunks: [PacketStatusChunk], receiveDeltas: [Int16]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.baseSequenceNumber = baseSequenceNumber
        self.packetStatusCount = packetStatusCount
        self.referenceTime = referenceTime
        self.feedbackPacketCount = feedbackPacketCount
        self.chunks = chunks
        self.receiveDeltas = receiveDeltas
    }

    /// A packet status symbol (§3.1.1).
    public enum StatusSymbol: UInt8, Sendable, Equatable {
        /// 00: packet not received.
        case notReceived = 0
        /// 01: received, one-octet unsigned delta.
        case receivedSmallDelta = 1
        /// 10: received, two-octet signed delta (large or negative).
        case receivedLargeDelta = 2

        /// Whether the packet was received (and therefore has a receive delta).
        public var isReceived: Bool { self != .notReceived }
    }

    /// A 16-bit packet status chunk (§3.1.3, §3.1.4).
    public enum PacketStatusChunk: Sendable, Equatable {
        /// Run length chunk: `count` (13 bits) packets sharing one symbol.
        case runLength(StatusSymbol, count: UInt16)
        /// Status vector chunk with 14 one-bit symbols (not received / small delta only).
        case oneBitVector([StatusSymbol])
        /// Status vector chunk with 7 two-bit symbols.
        case twoBitVector([StatusSymbol])

        /// Number of packets the chunk describes.
        public var symbolCount: Int {
            switch self {
            case let .runLength(_, count): return Int(count)
            case let .oneBitVector(symbols), let .twoBitVector(symbols): return symbols.count
            }
        }
    }

    /// One reported packet: its sequence number and, if it arrived, its receive delta.
    public struct PacketResult: Sendable, Equatable, Hashable {
        /// Transport-wide sequence number.
        public var sequenceNumber: UInt16
        /// Receive delta in 250 µs units relative to the previous received packet (the first
        /// one relative to the reference time); `nil` if the packet was not received.
        public var receiveDelta: Int16?

        /// Creates a result from its fields.
        public init(sequenceNumber: UInt16, receiveDelta: Int16?) {
            self.sequenceNumber = sequenceNumber
            self.receiveDelta = receiveDelta
        }

        /// Whether the packet arrived.
        public var isReceived: Bool { receiveDelta != nil }
    }
}

// MARK: - Per-packet view

extension TransportWideFeedback {
    /// The status symbols of the first `packetStatusCount` packets (fewer if the chunks are short).
    public var statusSymbols: [StatusSymbol] {
        let wanted = Int(packetStatusCount)
        var symbols: [StatusSymbol] = []
        symbols.reserveCapacity(wanted)
        for chunk in chunks where symbols.count < wanted {
            switch chunk {
            case let .runLength(symbol, count):
                let take = min(Int(count), wanted - symbols.count)
                symbols.append(contentsOf: repeatElement(symbol, count: take))
            case let .oneBitVector(vector), let .twoBitVector(vector):
                symbols.append(contentsOf: vector.prefix(wanted - symbols.count))
            }
        }
        return symbols
    }

    /// One result per reported packet, sequence numbers counting up from the base (mod 2^16).
    /// Throws if the chunks describe fewer packets than the status count or the number of
    /// deltas does not match the received packets (possible only for hand-built values).
    public func packetResults() throws(WireError) -> [PacketResult] {
        let symbols = statusSymbols
        guard symbols.count == Int(packetStatusCount) else {
            throw .invalidValue(field: "TWCC packets described by chunks", value: symbols.count)
        }
        var results: [PacketResult] = []
        results.reserveCapacity(symbols.count)
        var deltaIndex = 0
        var sequence = baseSequenceNumber
        for symbol in symbols {
            var delta: Int16?
            if symbol.isReceived {
                guard deltaIndex < receiveDeltas.count else {
                    throw .invalidValue(field: "TWCC receive delta count", value: receiveDeltas.count)
                }
                delta = receiveDeltas[deltaIndex]
                deltaIndex += 1
            }
            results.append(PacketResult(sequenceNumber: sequence, receiveDelta: delta))
            sequence &+= 1   // transport-wide sequence numbers wrap modulo 2^16
        }
        guard deltaIndex == receiveDeltas.count else {
            throw .invalidValue(field: "TWCC receive delta count", value: receiveDeltas.count)
        }
        return results
    }

    /// Builds feedback for `packets`, whose sequence numbers must ascend modulo 2^16 (each less
    /// than 2^15 ahead of the previous); gaps are reported as not received. A received packet
    /// gets the small-delta symbol when its delta is 0…255, the large one otherwise.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32, referenceTime: Int32, feedbackPacketCount: UInt8,
                packets: [PacketResult]) throws(WireError) {
        var symbols: [StatusSymbol] = []
        var deltas: [Int16] = []
        var previous: UInt16?
        for packet in packets {
            if let previous {
                let step = packet.sequenceNumber &- previous   // modulo 2^16 by design
                guard step != 0, step < 0x8000 else {
                    throw .outOfRange(field: "TWCC sequence number order", value: Int(packet.sequenceNumber))
                }
                symbols.append(contentsOf: repeatElement(.notReceived, count: Int(step) - 1))
            }
            previous = packet.sequenceNumber
            if let delta = packet.receiveDelta {
                symbols.append((0...255).contains(delta) ? .receivedSmallDelta : .receivedLargeDelta)
                deltas.append(delta)
            } else {
                symbols.append(.notReceived)
            }
            guard symbols.count <= Int(UInt16.max) else {
                throw .outOfRange(field: "TWCC packet status count", value: symbols.count)
            }
        }
        self.init(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC,
                  baseSequenceNumber: packets.first?.sequenceNumber ?? 0,
                  packetStatusCount: UInt16(symbols.count), referenceTime: referenceTime,
                  feedbackPacketCount: feedbackPacketCount,
                  chunks: TransportWideFeedback.encodeChunks(symbols), receiveDeltas: deltas)
    }

    /// Greedy chunking: long runs become run-length chunks, otherwise the densest vector that
    /// can hold the next symbols.
    static func encodeChunks(_ symbols: [StatusSymbol]) -> [PacketStatusChunk] {
        var chunks: [PacketStatusChunk] = []
        var index = 0
        while index < symbols.count {
            let symbol = symbols[index]
            var run = 1
            while index + run < symbols.count, run < 0x1FFF, symbols[index + run] == symbol { run += 1 }
            let remaining = symbols.count - index
            let next14 = symbols[index..<min(index + 14, symbols.count)]
            if run >= 14 || run == remaining {
                chunks.append(.runLength(symbol, count: UInt16(run)))
                index += run
            } else if !next14.contains(.receivedLargeDelta) {
                var vector = Array(next14)
                vector.append(contentsOf: repeatElement(.notReceived, count: 14 - vector.count))
                chunks.append(.oneBitVector(vector))
                index += next14.count
            } else if run >= 7 {
                chunks.append(.runLength(symbol, count: UInt16(run)))
                index += run
            } else {
                var vector = Array(symbols[index..<min(index + 7, symbols.count)])
                let used = vector.count
                vector.append(contentsOf: repeatElement(.notReceived, count: 7 - used))
                chunks.append(.twoBitVector(vector))
                index += used
            }
        }
        return chunks
    }
}

// MARK: - Wire format

extension TransportWideFeedback {
    static func parseChunk(_ word: UInt16) throws(WireError) -> PacketStatusChunk {
        func symbol(_ bits: UInt16) throws(WireError) -> StatusSymbol {
            guard let symbol = StatusSymbol(rawValue: UInt8(truncatingIfNeeded: bits)) else {
                throw .invalidValue(field: "TWCC status symbol", value: Int(bits))
            }
            return symbol
        }
        if word & 0x8000 == 0 {
            return .runLength(try symbol((word >> 13) & 0x3), count: word & 0x1FFF)
        }
        if word & 0x4000 == 0 {
            var vector: [StatusSymbol] = []
            vector.reserveCapacity(14)
            for shift in stride(from: 13, through: 0, by: -1) {
                vector.append(word >> UInt16(shift) & 1 == 0 ? .notReceived : .receivedSmallDelta)
            }
            return .oneBitVector(vector)
        }
        var vector: [StatusSymbol] = []
        vector.reserveCapacity(7)
        for shift in stride(from: 12, through: 0, by: -2) {
            vector.append(try symbol(word >> UInt16(shift) & 0x3))
        }
        return .twoBitVector(vector)
    }

    static func chunkWord(_ chunk: PacketStatusChunk) throws(WireError) -> UInt16 {
        switch chunk {
        case let .runLength(symbol, count):
            guard count <= 0x1FFF else { throw .outOfRange(field: "TWCC run length", value: Int(count)) }
            return UInt16(symbol.rawValue) << 13 | count
        case let .oneBitVector(vector):
            guard vector.count == 14 else { throw .outOfRange(field: "TWCC one-bit vector size", value: vector.count) }
            var word: UInt16 = 0x8000
            for (position, symbol) in vector.enumerated() {
                switch symbol {
                case .notReceived: break
                case .receivedSmallDelta: word |= 1 << UInt16(13 - position)
                case .receivedLargeDelta: throw .outOfRange(field: "TWCC one-bit vector symbol", value: 2)
                }
            }
            return word
        case let .twoBitVector(vector):
            guard vector.count == 7 else { throw .outOfRange(field: "TWCC two-bit vector size", value: vector.count) }
            var word: UInt16 = 0xC000
            for (position, symbol) in vector.enumerated() {
                word |= UInt16(symbol.rawValue) << UInt16(12 - 2 * position)
            }
            return word
        }
    }

    static func parseBody(_ reader: inout ByteReader) throws(WireError) -> TransportWideFeedback {
        let sender = try reader.readUInt32("TWCC sender SSRC")
        let media = try reader.readUInt32("TWCC media SSRC")
        let base = try reader.readUInt16("TWCC base sequence number")
        let statusCount = try reader.readUInt16("TWCC packet status count")
        let reference24 = try reader.readUInt24("TWCC reference time")
        let reference = Int32(bitPattern: reference24 << 8) >> 8   // sign-extend 24 → 32 bits
        let feedbackCount = try reader.readUInt8("TWCC feedback packet count")

        var chunks: [PacketStatusChunk] = []
        var described = 0
        while described < Int(statusCount) {
            let chunk = try parseChunk(try reader.readUInt16("TWCC packet status chunk"))
            described += chunk.symbolCount
            chunks.append(chunk)
        }
        var feedback = TransportWideFeedback(
            senderSSRC: sender, mediaSSRC: media, baseSequenceNumber: base, packetStatusCount: statusCount,
            referenceTime: reference, feedbackPacketCount: feedbackCount, chunks: chunks, receiveDeltas: [])
        for symbol in feedback.statusSymbols {
            switch symbol {
            case .notReceived: break
            case .receivedSmallDelta:
                feedback.receiveDeltas.append(Int16(try reader.readUInt8("TWCC small receive delta")))
            case .receivedLargeDelta:
                feedback.receiveDeltas.append(Int16(bitPattern: try reader.readUInt16("TWCC large receive delta")))
            }
        }
        // Zero octets pad the deltas to the 32-bit boundary.
        guard reader.remaining <= 3 else {
            throw .invalidValue(field: "TWCC octets after receive deltas", value: reader.remaining)
        }
        return feedback
    }

    /// Writes everything up to the last delta; the packet writer pads to the 32-bit boundary.
    func serializeBody(into out: inout [UInt8]) throws(WireError) {
        guard TransportWideFeedback.referenceTimeRange.contains(referenceTime) else {
            throw .outOfRange(field: "TWCC reference time", value: Int(referenceTime))
        }
        // The parser stops reading chunks once they cover the status count, so a chunk list with
        // more chunks than that (or too few) would not read back the same.
        var described = 0
        for chunk in chunks {
            guard described < Int(packetStatusCount) else {
                throw .outOfRange(field: "TWCC chunks beyond packet status count", value: chunks.count)
            }
            described += chunk.symbolCount
        }
        guard described >= Int(packetStatusCount) else {
            throw .outOfRange(field: "TWCC packets described by chunks", value: described)
        }
        let symbols = statusSymbols
        let received = symbols.lazy.filter(\.isReceived).count
        guard received == receiveDeltas.count else {
            throw .outOfRange(field: "TWCC receive delta count", value: receiveDeltas.count)
        }

        out.appendUInt32(senderSSRC)
        out.appendUInt32(mediaSSRC)
        out.appendUInt16(baseSequenceNumber)
        out.appendUInt16(packetStatusCount)
        out.appendUInt24(UInt32(bitPattern: referenceTime) & 0xFF_FFFF)
        out.appendUInt8(feedbackPacketCount)
        for chunk in chunks { out.appendUInt16(try TransportWideFeedback.chunkWord(chunk)) }
        var deltaIndex = 0
        for symbol in symbols where symbol.isReceived {
            let delta = receiveDeltas[deltaIndex]   // in range: counts checked above
            deltaIndex += 1
            if symbol == .receivedSmallDelta {
                guard (0...255).contains(delta) else {
                    throw .outOfRange(field: "TWCC small receive delta", value: Int(delta))
                }
                out.appendUInt8(UInt8(delta))
            } else {
                out.appendUInt16(UInt16(bitPattern: delta))
            }
        }
    }
}
