import RTPWire

/// The RFC 6464 audio level one received audio packet carried (docs/quality-and-speakers.md: levels come from the
/// header extension the publisher computes from its Opus input), as `Subscriber.onAudioLevel`
/// reports it. Which participant and track the SSRC belongs to is the caller's knowledge
/// (signalling); `ActiveSpeakerFeed` holds that mapping.
public struct ReceivedAudioLevel: Sendable, Equatable {
    /// The audio stream the packet belongs to.
    public var ssrc: UInt32
    /// The packet's RTP sequence number.
    public var sequenceNumber: UInt16
    /// Level in −dBov and the voice-activity bit.
    public var level: AudioLevel
    /// Arrival time on the subscriber's clock, microseconds.
    public var arrivalMicroseconds: Int64

    public init(ssrc: UInt32, sequenceNumber: UInt16, level: AudioLevel, arrivalMicroseconds: Int64) {
        self.ssrc = ssrc
        self.sequenceNumber = sequenceNumber
        self.level = level
        self.arrivalMicroseconds = arrivalMicroseconds
    }
}
