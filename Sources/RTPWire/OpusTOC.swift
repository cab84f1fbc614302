/// The table-of-contents byte that starts every Opus packet (RFC 6716 §3.1), plus the frame count
/// the packet's code implies (RFC 6716 §3.2).
public struct OpusTOC: Sendable, Equatable {
    /// Coding mode selected by the configuration number (RFC 6716 §3.1 Table 2).
    public enum Mode: Sendable, Equatable {
        /// SILK-only (configs 0...11).
        case silk
        /// Hybrid SILK + CELT (configs 12...15).
        case hybrid
        /// CELT-only (configs 16...31).
        case celt
    }

    /// "config": 0...31 (RFC 6716 §3.1).
    public var config: UInt8
    /// "s": stereo (RFC 6716 §3.1).
    public var stereo: Bool
    /// "c": frame count code 0...3 (RFC 6716 §3.1).
    public var code: UInt8

    /// Decodes a TOC byte (RFC 6716 §3.1); every byte value is a valid TOC.
    public init(_ byte: UInt8) {
        config = byte >> 3
        stereo = byte & 0x04 != 0
        code = byte & 0x03
    }

    /// The TOC byte.
    public var byte: UInt8 { (config & 0x1F) << 3 | (stereo ? 0x04 : 0) | (code & 0x03) }

    /// The coding mode (RFC 6716 §3.1 Table 2).
    public var mode: Mode {
        switch config {
        case 0...11: return .silk
        case 12...15: return .hybrid
        default: return .celt
        }
    }

    /// Duration of one frame in 48 kHz samples (RFC 6716 §3.1 Table 2).
    public var samplesPerFrame: Int {
        switch config {
        case 0...11:  // SILK: 10, 20, 40, 60 ms
            return [480, 960, 1920, 2880][Int(config % 4)]
        case 12...15:  // Hybrid: 10, 20 ms
            return [480, 960][Int(config % 2)]
        default:  // CELT: 2.5, 5, 10, 20 ms
            return [120, 240, 480, 960][Int(config % 4)]
        }
    }
}

/// A validated Opus packet as carried in one RTP payload (RFC 7587 §4.2), with the facts a
/// depacketizer needs: its TOC, frame count and duration at 48 kHz.
public struct OpusPacketInfo: Sendable, Equatable {
    /// The packet's TOC byte (RFC 6716 §3.1).
    public var toc: OpusTOC
    /// Number of Opus frames in the packet (RFC 6716 §3.2).
    public var frameCount: Int
    /// The packet's duration in 48 kHz samples: frameCount × samplesPerFrame.
    public var samples: Int { frameCount * toc.samplesPerFrame }

    /// Validates the framing of an Opus packet (RFC 6716 §3.1–3.2, the parts of §3.4 R1–R7 that
    /// need no decoding): non-empty, code 1 body of even length, code 2 length within the packet,
    /// code 3 frame count 1...48 with at most 120 ms of audio and, for CBR, an even split.
    /// Throws `WireError`.
    public init(parsing packet: ArraySlice<UInt8>) throws(WireError) {
        var reader = ByteReader(packet)
        let toc = OpusTOC(try reader.readUInt8("Opus TOC"))
        self.toc = toc
        switch toc.code {
        case 0:
            frameCount = 1
        case 1:
            guard reader.remaining % 2 == 0 else {
                throw .invalidValue(field: "Opus code 1 body length (must be even)", value: reader.remaining)
            }
            frameCount = 2
        case 2:
            let length = try OpusPacketInfo.readFrameLength(&reader)
            guard length <= reader.remaining else {
                throw .truncated(field: "Opus code 2 first frame", needed: length, available: reader.remaining)
            }
            frameCount = 2
        default:
            let countByte = try reader.readUInt8("Opus code 3 frame count")
            let count = Int(countByte & 0x3F)
            guard count >= 1, count * toc.samplesPerFrame <= 5760 else {
                throw .invalidValue(field: "Opus code 3 frame count", value: count)
            }
            var available: Int
            if countByte & 0x40 != 0 {  // padding present
                var padding = 0
                while true {
                    let byte = Int(try reader.readUInt8("Opus padding length"))
                    padding += byte == 255 ? 254 : byte
                    if byte != 255 { break }
                }
                guard padding <= reader.remaining else {
                    throw .truncated(field: "Opus padding", needed: padding, available: reader.remaining)
                }
                available = reader.remaining - padding
            } else {
                available = reader.remaining
            }
            if countByte & 0x80 != 0 {  // VBR: count - 1 explicit lengths
                var total = 0
                for _ in 1..<count {
                    let before = reader.remaining
                    total += try OpusPacketInfo.readFrameLength(&reader)
                    available -= before - reader.remaining
                }
                guard available >= 0, total <= available else {
                    throw .truncated(field: "Opus code 3 frames", needed: total, available: max(available, 0))
                }
            } else {
                guard available % count == 0 else {
                    throw .invalidValue(field: "Opus code 3 CBR body length", value: available)
                }
            }
            frameCount = count
        }
    }

    /// RFC 6716 §3.2.1 frame length: one byte below 252, else two bytes.
    private static func readFrameLength(_ reader: inout ByteReader) throws(WireError) -> Int {
        let first = Int(try reader.readUInt8("Opus frame length"))
        guard first >= 252 else { return first }
        let second = Int(try reader.readUInt8("Opus frame length (second byte)"))
        return second * 4 + first
    }
}
