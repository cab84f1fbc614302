import Glibc
import SRTP
import SessionCore

/// How a `Subscriber` protects its traffic (docs/wire-and-security.md: SRTP unless the caller opts out).
public enum SubscriberSecurity: Sendable {
    /// SRTP/SRTCP (RFC 3711): `receiveKeys` unprotect what the sender sends, `sendKeys` protect
    /// our RTCP.
    case srtp(receiveKeys: SRTPKeyingMaterial, sendKeys: SRTPKeyingMaterial)
    /// Plain RTP/RTCP. Only when a caller asks for it explicitly.
    case insecurePlaintext
}

/// Settings of a `Subscriber`.
public struct SubscriberConfiguration: Sendable {
    /// Our SSRC as RTCP sender.
    public var localSSRC: UInt32
    /// SDES CNAME sent in every compound RTCP packet (RFC 3550 §6.5.1); nil leaves SDES out.
    public var cname: String?
    /// RTP payload type of the VP8 stream.
    public var videoPayloadType: UInt8
    /// RTP payload type of the Opus stream.
    public var audioPayloadType: UInt8
    public var security: SubscriberSecurity
    /// Where RTCP goes; nil sends it back to where the media comes from (RFC 5761 mux).
    public var senderRTCPEndpoint: NetworkEndpoint?
    public var video: VideoReceiver.Configuration
    public var audio: AudioReceiver.Configuration
    /// Interval of regular reports (RR + REMB) when no feedback forces one earlier.
    public var reportIntervalMilliseconds: Int64
    /// Whether transport-wide feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01) goes
    /// back to the sender every 50 ms: on for a peer that estimates its send side (a direct call);
    /// off behind a forwarding node, whose packets keep the publisher's sequence numbers.
    public var sendsTransportFeedback: Bool

    /// Settings; the video receiver's RTCP SSRC is `localSSRC`.
    public init(localSSRC: UInt32, cname: String? = nil, videoPayloadType: UInt8 = 96, audioPayloadType: UInt8 = 111,
                security: SubscriberSecurity, senderRTCPEndpoint: NetworkEndpoint? = nil,
                video: VideoReceiver.Configuration? = nil, audio: AudioReceiver.Configuration = .init(),
                reportIntervalMilliseconds: Int64 = 500, sendsTransportFeedback: Bool = false) {
        self.localSSRC = localSSRC
        self.cname = cname
        self.videoPayloadType = videoPayloadType
        self.audioPayloadType = audioPayloadType
        self.security = security
        self.senderRTCPEndpoint = senderRTCPEndpoint
        self.video = video ?? VideoReceiver.Configuration(localSSRC: localSSRC)
        self.audio = audio
        self.reportIntervalMilliseconds = max(1, reportIntervalMilliseconds)
        self.sendsTransportFeedback = sendsTransportFeedback
    }
}

/// Counters of a `Subscriber`.
public struct SubscriberStatistics: Sendable, Equatable {
    public var video: VideoReceiverStatistics
    public var audio: AudioReceiverStatistics
    /// Datagrams received.
    public var datagramsReceived: Int64 = 0
    /// Datagrams rejected by SRTP/SRTCP (authentication, replay, malformed header).
    public var srtpFailures: Int64 = 0
    /// Datagrams that are neither parseable RTP nor RTCP.
    public var malformedDatagrams: Int64 = 0
    /// Datagrams from an address other than the sender's (dropped; see `PeerAddressLatch`).
    public var foreignSourceDatagrams: Int64 = 0
    /// RTP packets with a payload type that is neither the video nor the audio one.
    public var unknownPayloadTypePackets: Int64 = 0
    /// Padding-only packets (bandwidth probes): counted for transport-wide feedback, then dropped.
    public var paddingPackets: Int64 = 0
    /// Audio packets end-to-end decryption refused (never decoded).
    public var audioUndecryptable: Int64 = 0
    /// RTCP compound packets received and parsed.
    public var rtcpPacketsReceived: Int64 = 0
    /// RTCP compound packets sent.
    public var rtcpPacketsSent: Int64 = 0
    /// RTCP bytes sent (after protection).
    public var rtcpBytesSent: Int64 = 0
    /// Sends that failed (destination unreachable) or could not be built.
    public var rtcpSendFailures: Int64 = 0
}

/// Microseconds on `CLOCK_MONOTONIC`: the default clock of the receive path.
public func monotonicMicroseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
}
