/// Opus RTP payloads (RFC 7587): one Opus packet per RTP packet, 48 kHz RTP clock regardless of
/// the coded bandwidth (RFC 7587 §4.1).
public enum OpusRTP {
    /// The RTP clock rate for Opus (RFC 7587 §4.1).
    public static let clockRate: UInt32 = 48_000
}

/// Turns Opus packets into RTP payloads and timestamps (RFC 7587 §4.2): the payload is the packet
/// itself, and the timestamp advances by the packet's duration in 48 kHz samples.
public struct OpusPacketizer: Sendable {
    /// The RTP timestamp the next packet will carry.
    public private(set) var nextTimestamp: UInt32

    /// A packetizer whose first packet carries `initialTimestamp`.
    public init(initialTimestamp: UInt32) {
        self.nextTimestamp = initialTimestamp
    }

    /// A packetizer with a random initial timestamp (RFC 3550 §5.1).
    public init<Generator: RandomNumberGenerator>(using generator: inout Generator) {
        self.init(initialTimestamp: UInt32.random(in: 0...UInt32.max, using: &generator))
    }

    /// Validates `opusPacket` and returns the payload view, its RTP timestamp and duration, then
    /// advances the timestamp by the duration (mod 2^32, RFC 3550 §5.1).
    /// Throws `PacketizerError.emptyFrame` or `.invalidMedia`.
    public mutating func packetize(_ opusPacket: ArraySlice<UInt8>) throws(PacketizerError) -> (payload: ArraySlice<UInt8>, timestamp: UInt32, samples: Int) {
        guard !opusPacket.isEmpty else { throw .emptyFrame }
        let info: OpusPacketInfo
        do { info = try OpusPacketInfo(parsing: opusPacket) } catch { throw .invalidMedia(error) }
        let timestamp = nextTimestamp
        // samples ≤ 5760 (120 ms), and the 32-bit RTP timestamp wraps by design.
        nextTimestamp = timestamp &+ UInt32(info.samples)
        return (opusPacket, timestamp, info.samples)
    }

    /// Same as `packetize(_:)` for a whole array.
    public mutating func packetize(_ opusPacket: [UInt8]) throws(PacketizerError) -> (payload: ArraySlice<UInt8>, timestamp: UInt32, samples: Int) {
        try packetize(opusPacket[...])
    }
}

/// Extracts Opus packets from RTP payloads (RFC 7587 §4.2), rejecting empty or badly framed
/// payloads with `WireError`.
public enum OpusDepacketizer {
    /// The Opus packet in `payload` (a view, no copy) with its TOC and duration (RFC 7587 §4.2,
    /// RFC 6716 §3.1). Throws `WireError`.
    public static func depacketize(_ payload: ArraySlice<UInt8>) throws(WireError) -> (packet: ArraySlice<UInt8>, info: OpusPacketInfo) {
        let info = try OpusPacketInfo(parsing: payload)
        return (payload, info)
    }
}
