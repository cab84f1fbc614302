/// One encoded VP8 frame of one spatial layer: the unit the encoder produces and the
/// packetizer (RFC 7741) splits into RTP packets.
public struct EncodedFrame: Sendable, Equatable {
    /// Spatial layer index in the published set, 0 = lightest.
    public var spatialIndex: Int
    public var width: Int
    public var height: Int
    /// Temporal layer id (TID of RFC 7741 §4.2): 0, 1 or 2 for L1T3.
    public var temporalId: UInt8
    /// Layer-sync (Y bit of RFC 7741 §4.2): decodable from TL0 frames alone.
    public var layerSync: Bool
    public var keyFrame: Bool
    /// RTP timestamp on the 90 kHz video clock.
    public var rtpTimestamp: UInt32
    /// The VP8 bitstream of the frame (RFC 6386).
    public var data: [UInt8]

    public init(spatialIndex: Int, width: Int, height: Int, temporalId: UInt8, layerSync: Bool,
                keyFrame: Bool, rtpTimestamp: UInt32, data: [UInt8]) {
        self.spatialIndex = spatialIndex
        self.width = width
        self.height = height
        self.temporalId = temporalId
        self.layerSync = layerSync
        self.keyFrame = keyFrame
        self.rtpTimestamp = rtpTimestamp
        self.data = data
    }
}
