/// Receiver estimated maximum bitrate, REMB (draft-alvestrand-rmcat-remb-03 §2.2): an
/// application-layer feedback message (RFC 4585 §6.4, PSFB FMT 15) with identifier "REMB",
/// a bitrate as 6-bit exponent and 18-bit mantissa, and the SSRCs it applies to.
public struct ReceiverEstimatedMaxBitrate: Sendable, Equatable {
    /// The unique identifier "REMB" in ASCII.
    public static let identifier: UInt32 = 0x5245_4D42
    /// Largest mantissa the 18-bit field holds.
    public static let maxMantissa: UInt32 = (1 << 18) - 1

    /// SSRC of the packet sender.
    public var senderSSRC: UInt32
    /// Media source SSRC field; the draft says it is always 0.
    public var mediaSSRC: UInt32
    /// BR Exp: 6-bit exponent.
    public var exponent: UInt8
    /// BR Mantissa: 18-bit mantissa; bitrate = mantissa << exponent bits per second.
    public var mantissa: UInt32
    /// SSRCs the estimate applies to (at most 255).
    public var ssrcs: [UInt32]

    /// Creates a REMB from raw exponent and mantissa (kept as-is so any encoding round-trips).
    public init(senderSSRC: UInt32, mediaSSRC: UInt32 = 0, exponent: UInt8, mantissa: UInt32, ssrcs: [UInt32]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.exponent = exponent
        self.mantissa = mantissa
        self.ssrcs = ssrcs
    }

    /// Creates a REMB for `bitrate` bits per second, choosing the smallest exponent whose
    /// mantissa fits 18 bits; the encoded value is `bitrate` rounded down to that precision.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32 = 0, bitrate: UInt64, ssrcs: [UInt32]) {
        var exponent: UInt8 = 0
        while bitrate >> UInt64(exponent) > UInt64(ReceiverEstimatedMaxBitrate.maxMantissa) {
            exponent += 1   // at most 46 for any UInt64
        }
        self.init(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, exponent: exponent,
                  mantissa: UInt32(truncatingIfNeeded: bitrate >> UInt64(exponent)), ssrcs: ssrcs)
    }

    /// The bitrate in bits per second, `mantissa << exponent`, saturating at `UInt64.max`.
    public var bitrate: UInt64 {
        let mantissa = UInt64(self.mantissa)
        guard exponent < 64 else { return mantissa == 0 ? 0 : .max }
        guard mantissa <= UInt64.max >> UInt64(exponent) else { return .max }
        return mantissa << UInt64(exponent)
    }
}

extension ReceiverEstimatedMaxBitrate {
    /// Whether an application-layer feedback FCI starts with the "REMB" identifier.
    static func matches(_ body: ArraySlice<UInt8>) -> Bool {
        var reader = ByteReader(body)
        guard (try? reader.skip(8, "feedback SSRCs")) != nil,
              let id = try? reader.readUInt32("REMB identifier") else { return false }
        return id == identifier
    }

    static func parseBody(_ reader: inout ByteReader) throws(WireError) -> ReceiverEstimatedMaxBitrate {
        let sender = try reader.readUInt32("REMB sender SSRC")
        let media = try reader.readUInt32("REMB media SSRC")
        let id = try reader.readUInt32("REMB identifier")
        guard id == identifier else { throw .invalidValue(field: "REMB identifier", value: Int(id)) }
        let count = try reader.readUInt8("REMB SSRC count")
        let bitrateField = try reader.readUInt24("REMB bitrate")
        guard reader.remaining == Int(count) * 4 else {
            throw .invalidValue(field: "REMB octets for \(count) SSRCs", value: reader.remaining)
        }
        var ssrcs: [UInt32] = []
        ssrcs.reserveCapacity(Int(count))
        for _ in 0..<count { ssrcs.append(try reader.readUInt32("REMB SSRC")) }
        return ReceiverEstimatedMaxBitrate(senderSSRC: sender, mediaSSRC: media,
                                           exponent: UInt8(truncatingIfNeeded: bitrateField >> 18),
                                           mantissa: bitrateField & maxMantissa, ssrcs: ssrcs)
    }

    func serializeBody(into out: inout [UInt8]) throws(WireError) {
        guard exponent < 64 else { throw .outOfRange(field: "REMB exponent", value: Int(exponent)) }
        guard mantissa <= ReceiverEstimatedMaxBitrate.maxMantissa else {
            throw .outOfRange(field: "REMB mantissa", value: Int(mantissa))
        }
        guard ssrcs.count <= 255 else { throw .outOfRange(field: "REMB SSRC count", value: ssrcs.count) }
        out.appendUInt32(senderSSRC)
        out.appendUInt32(mediaSSRC)
        out.appendUInt32(ReceiverEstimatedMaxBitrate.identifier)
        out.appendUInt8(UInt8(ssrcs.count))
        out.appendUInt24(UInt32(exponent) << 18 | mantissa)
        for ssrc in ssrcs { out.appendUInt32(ssrc) }
    }
}
