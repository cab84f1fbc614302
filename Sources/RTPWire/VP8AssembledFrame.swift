/// A complete VP8 frame reassembled from RTP packets (RFC 7741 §4.4–4.5) by `VP8FrameAssembler`.
public struct VP8AssembledFrame: Sendable, Equatable {
    /// The VP8 bitstream: every packet's payload after its descriptor, in sequence order.
    public var data: [UInt8]
    /// Key frame, from the "P" bit of the first VP8 byte (RFC 7741 §4.3).
    public var keyFrame: Bool
    /// Whether every frame this one may reference was reported decodable before it
    /// (see `VP8FrameAssembler` for the rule).
    public var decodable: Bool
    /// PictureID from the first packet's descriptor (RFC 7741 §4.2), if present.
    public var pictureID: UInt16?
    /// TL0PICIDX from the first packet's descriptor, if present.
    public var tl0PicIdx: UInt8?
    /// TID from the first packet's descriptor, if present.
    public var temporalId: UInt8?
    /// Y (layer sync) from the first packet's descriptor.
    public var layerSync: Bool
    /// The frame's RTP timestamp (RFC 3550 §5.1).
    public var timestamp: UInt32
    /// Sequence number of the frame's first packet (S = 1, PID = 0).
    public var firstSequenceNumber: UInt16
    /// Sequence number of the frame's last packet.
    public var lastSequenceNumber: UInt16

    /// Frames are only ever reported once every packet from first to last has arrived.
    public var isComplete: Bool { true }

    /// A frame with the given fields.
    public init(data: [UInt8], keyFrame: Bool, decodable: Bool, pictureID: UInt16?, tl0PicIdx: UInt8?,
                temporalId: UInt8?, layerSync: Bool, timestamp: UInt32, firstSequenceNumber: UInt16,
                lastSequenceNumber: UInt16) {
        self.data = data
        self.keyFrame = keyFrame
        self.decodable = decodable
        self.pictureID = pictureID
        self.tl0PicIdx = tl0PicIdx
        self.temporalId = temporalId
        self.layerSync = layerSync
        self.timestamp = timestamp
        self.firstSequenceNumber = firstSequenceNumber
        self.lastSequenceNumber = lastSequenceNumber
    }
}
