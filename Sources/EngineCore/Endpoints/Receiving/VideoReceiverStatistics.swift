import SessionCore
/// Counters of one `VideoReceiver`, as a value snapshot.
public struct VideoReceiverStatistics: Sendable, Equatable {
    /// The media SSRC being received, nil before the first packet.
    public var ssrc: UInt32?
    /// Packets of another SSRC dropped because too few of them came in a row to restart the
    /// stream on it (`SSRCChangeGuard`).
    public var otherSSRCPackets: Int64 = 0
    /// RTP packets accepted (after SRTP and parsing), retransmissions and duplicates included.
    public var packetsReceived: Int64 = 0
    /// Bytes of those packets (RTP header + payload).
    public var bytesReceived: Int64 = 0
    /// Cumulative lost per RFC 3550 A.3 (expected − received; repaired packets count as received).
    public var packetsLost: Int64 = 0
    /// Interarrival jitter (RFC 3550 A.8) in milliseconds.
    public var jitterMilliseconds: Double = 0
    /// Packets the jitter buffer had already given up on or released when they arrived.
    public var latePackets: Int64 = 0
    /// Packets the jitter buffer already held.
    public var duplicatePackets: Int64 = 0
    /// Packets whose VP8 payload could not be parsed (ignored).
    public var malformedPackets: Int64 = 0
    /// Packets the jitter buffer gave up waiting for.
    public var packetsGivenUp: Int64 = 0
    /// Packets requested by NACK (one per packet per request).
    public var nackRequests: Int64 = 0
    /// Generic NACK RTCP packets built.
    public var nackPacketsSent: Int64 = 0
    /// NACKed packets that arrived afterwards.
    public var packetsRecovered: Int64 = 0
    /// Times a key frame arrived while the decoder waited for one and older gaps were abandoned.
    public var keyFrameFlushes: Int64 = 0
    /// PLIs built (after rate limiting).
    public var keyFrameRequests: Int64 = 0
    /// Frames the assembler completed.
    public var framesAssembled: Int64 = 0
    /// Frames handed to the decoder that produced a picture.
    public var framesDecoded: Int64 = 0
    /// Key frames among them.
    public var keyFramesDecoded: Int64 = 0
    /// Complete frames not decoded because a reference was missing (or a key frame was awaited).
    public var framesDropped: Int64 = 0
    /// Frames the decoder rejected.
    public var decoderErrors: Int64 = 0
    /// Assembled frames end-to-end decryption refused (wrong or missing key, tampered, replayed).
    public var framesUndecryptable: Int64 = 0
    /// Size of the last decoded picture.
    public var frameWidth = 0
    public var frameHeight = 0
    /// Freezes (gaps > threshold between decoded frames), the one going on at the snapshot
    /// included (`FreezeDetector.summary(nowMilliseconds:)`).
    public var freezeCount = 0
    /// Their total duration.
    public var totalFrozenMilliseconds: Int64 = 0
    /// The longest of them (0 exactly when `freezeCount` is 0).
    public var longestFreezeMilliseconds: Int64 = 0
    /// The current REMB estimate, bits per second.
    public var bandwidthEstimateBitsPerSecond: UInt64 = 0
    /// Incoming bitrate over the estimator's window, bits per second.
    public var incomingBitsPerSecond: UInt64 = 0

    public init() {}
}
