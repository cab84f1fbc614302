/// One 20 ms block of a received audio stream as the playout clock hands it out: the decoded
/// 48 kHz PCM, how it was produced, and when it is to be presented.
///
/// Presentation time: `rtpTimestamp` is the stream's RTP time of the first sample (48 kHz,
/// RFC 7587 §4.1); once the sender's first RTCP sender report has arrived, `senderTimeMicroseconds`
/// maps it onto the sender's NTP wallclock (RFC 3550 §6.4.1: the report pairs an NTP time with
/// an RTP time; the frame's offset from that RTP time at 48 kHz is added), in microseconds since
/// the NTP epoch (1900). Video frames of the same sender map the same way, so an app lines audio
/// and video up by that time.
public struct ReceivedAudioFrame: Sendable, Equatable {
    public var audio: AudioFrame
    public var kind: ReceivedAudioKind
    /// RTP timestamp of the first sample.
    public var rtpTimestamp: UInt32
    /// The sender's wallclock of the first sample, µs since 1900; nil before its first sender report.
    public var senderTimeMicroseconds: Int64?

    public init(audio: AudioFrame, kind: ReceivedAudioKind, rtpTimestamp: UInt32, senderTimeMicroseconds: Int64?) {
        self.audio = audio
        self.kind = kind
        self.rtpTimestamp = rtpTimestamp
        self.senderTimeMicroseconds = senderTimeMicroseconds
    }
}
