/// What one consumed microphone looks like on arrival (docs/receiving.md "Remote audio"); the
/// W3C webrtc-stats inbound-rtp audio fields map onto it: `packetsLost`, `concealedSamples`
/// (`concealedMilliseconds` × 48), `jitterBufferDelay` / `jitterBufferEmittedCount`
/// (`jitterBufferDelayMilliseconds`), `audioLevel` (from `audioLevel` as 10^(−level/20)).
public struct RemoteAudioStats: Sendable, Hashable {
    /// RTP packets of the stream that reached the receiver (since it was first received).
    public var packetsReceived: Int
    /// Cumulative number lost (RFC 3550 §6.4.1, A.3).
    public var packetsLost: Int
    /// Interarrival jitter (RFC 3550 A.8), ms.
    public var jitterMilliseconds: Double
    /// 20 ms blocks played from their own packet, rebuilt from the next packet's in-band FEC
    /// (RFC 6716 §2.1.7), and concealed (Opus packet-loss concealment), since consuming began.
    public var framesDecoded: Int
    public var framesRecoveredByFEC: Int
    /// Audio made up by concealment (lost packets with no FEC after them, and underruns), ms.
    public var concealedMilliseconds: Int
    /// Mean time a decoded packet waited in the jitter buffer, and the delay it aims for now, ms.
    public var jitterBufferDelayMilliseconds: Double
    public var jitterBufferTargetDelayMilliseconds: Int
    /// The RFC 6464 level (0 loudest … 127 silence, −dBov) of the last block played, computed
    /// from its decoded PCM (not read from the header extension: concealed blocks have none);
    /// nil before the first block.
    public var audioLevel: UInt8?
    /// Whether the publisher muted its microphone, as the room signals it; nil where the room
    /// does not say (a Janus room).
    public var isMuted: Bool?
    /// Decoder calls libopus refused (0 on a clean call).
    public var decoderErrors: Int
}
