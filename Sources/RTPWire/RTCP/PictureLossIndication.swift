/// Picture loss indication, PLI (RFC 4585 §6.3.1, PSFB FMT 1): no FCI.
public struct PictureLossIndication: Sendable, Equatable {
    /// SSRC of the packet sender.
    public var senderSSRC: UInt32
    /// SSRC of the media source that should send a key frame.
    public var mediaSSRC: UInt32

    /// Creates a PLI from its fields.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
    }
}

extension PictureLossIndication {
    static func parseBody(_ reader: inout ByteReader) throws(WireError) -> PictureLossIndication {
        let sender = try reader.readUInt32("PLI sender SSRC")
        let media = try reader.readUInt32("PLI media SSRC")
        guard reader.remaining == 0 else {
            throw .invalidValue(field: "PLI FCI length", value: reader.remaining)
        }
        return PictureLossIndication(senderSSRC: sender, mediaSSRC: media)
    }

    func serializeBody(into out: inout [UInt8]) {
        out.appendUInt32(senderSSRC)
        out.appendUInt32(mediaSSRC)
    }
}
