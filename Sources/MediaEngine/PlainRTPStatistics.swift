/// What a plain RTP output (`MediaEngine.sendPlainRTP`) has sent and received so far; after the
/// participant left, the final counts (BYE included).
public struct PlainRTPStatistics: Sendable, Hashable {
    /// One RTP stream (RFC 3550 §6.4.1 sender counts).
    public struct Stream: Sendable, Hashable {
        public var ssrc: UInt32
        /// The layer's RID (`q`, `h`, `f`), `video` for a single layer, or `audio`.
        public var name: String
        /// Where its RTP goes (`HOST:PORT`).
        public var destination: String
        public var packets: Int
        /// RTP payload bytes (the SR's octet count).
        public var payloadBytes: Int
        /// Bytes on the wire: headers, payload and the SRTP tag.
        public var wireBytes: Int
        /// Packets sent again for a NACK (RFC 4585 §6.2.1).
        public var retransmissions: Int
    }

    /// Video layers lightest first, then audio.
    public var streams: [Stream]
    /// Camera and microphone frames handed to the encoders and sent.
    public var videoFramesSent: Int
    public var audioFramesSent: Int
    /// RTCP compounds sent (SR + SDES, and the final ones with BYE).
    public var reportsSent: Int
    /// Key frames made for a PLI/FIR, and requests the throttle held back.
    public var keyFramesRequested: Int
    public var keyFrameRequestsThrottled: Int
    /// REMBs received, and the last one's bitrate.
    public var rembsReceived: Int
    public var lastREMBBitsPerSecond: UInt64?
    /// Layer pauses and resumes the REMBs caused (`REMBResponse.limitLayers`).
    public var layerPausesByREMB: Int
    public var layerResumesByREMB: Int
    /// Feedback datagrams dropped because they failed authentication or parsing.
    public var badFeedbackDatagrams: Int
}
