/// What `MediaEngine.sendPlainRTP` sends and how: a publish-only output of plain RTP/RTCP over
/// UDP (RFC 3550), SRTP-protected by default (RFC 3711) with an SDES key (RFC 4568), in the
/// spirit of mediasoup's `PlainTransport`: for receivers that take RTP on fixed ports with no
/// ICE or DTLS (GStreamer, ffmpeg, a Janus streaming-plugin mountpoint).
///
/// The camera goes out as simulcast VP8 (RFC 7741), one SSRC per layer told apart by SSRC and
/// RID (`q`, `h`, `f`), the microphone as Opus (RFC 7587). Every value is checked when the
/// output opens (addresses, key length, payload types) or when a track is published (the
/// number of video ports against the camera's layers); nothing traps.
public struct PlainRTPOptions: Sendable, Hashable {
    /// How the output is protected.
    public enum Security: Sendable, Hashable {
        /// SRTP and SRTCP (RFC 3711) in `srtpSuite` with this master key || salt (30 bytes for
        /// AES_CM_128_HMAC_SHA1_80, 28 for AEAD_AES_128_GCM, 44 for AEAD_AES_256_GCM), the inline
        /// key of an RFC 4568 `a=crypto` line; nil: the engine generates one (read it back from
        /// `PlainRTPOutput.srtpKeyAndSalt` and `sdesCryptoAttribute`).
        case srtp(keyAndSalt: [UInt8]?)
        /// SRTP media but PLAIN RTCP both ways (reports out, feedback in), for receivers that
        /// decrypt only RTP, such as a Janus mountpoint with `srtpcrypto`. RTCP is then readable
        /// and forgeable on the path: only on networks you trust.
        case srtpWithPlainRTCP(keyAndSalt: [UInt8]?)
        /// SRTP and SRTCP answering the receiver's SDES offer (RFC 4568 §7.1.2): of its
        /// `a=crypto` lines the engine takes the suite it prefers (`SRTPSuite.preference`:
        /// AEAD-GCM first; `srtpSuite` is then ignored), protects what it sends with a key of its
        /// own (the answer, `PlainRTPOutput.sdesCryptoAttribute`, same tag) and opens the
        /// receiver's SRTCP feedback with the offered key.
        case srtpAnswering(offeredCryptoLines: [String])
        /// Plain RTP and RTCP: an explicit opt-in for receivers that cannot do SRTP.
        case insecure
    }

    /// When frames played from a source (`play(from:)`) are sent.
    public enum Pacing: Sendable, Hashable {
        /// At their media time: a camera frame every 1/frame rate s, a microphone frame every 20 ms.
        case realTime
        /// As fast as the engine's loop allows, in media-time order, about one frame per loop
        /// pass (a loopback receiver keeps up): for files and tests.
        case unpaced
    }

    /// Which layers a key-frame request (PLI/FIR, RFC 4585 / RFC 5104) naming one layer refreshes.
    public enum KeyFrameRequestScope: Sendable, Hashable {
        /// Every layer, throttled per track: what an SFU needs whose PLI names any layer (Janus
        /// names the lowest).
        case everyLayer
        /// Only the named layer, throttled per SSRC.
        case namedLayer
    }

    /// What a receiver's REMB (receiver-estimated maximum bitrate) does to the camera.
    public enum REMBResponse: Sendable, Hashable {
        /// It bounds the total video bitrate: top layers pause while it cannot carry them and
        /// resume (with a key frame) once it can (reported as `.publishedLayersChanged`).
        case limitLayers
        /// It is counted and changes nothing.
        case ignore
    }

    /// Where the camera's layers go: `HOST:PORT` for every layer (told apart by SSRC and RID),
    /// or `HOST:P1,P2,P3` for one port per layer, lowest first (Janus streaming-plugin style).
    /// nil: no camera.
    public var videoDestination: String?
    /// Where the microphone goes (`HOST:PORT`); nil: no microphone.
    public var audioDestination: String?
    /// Layer i of the camera uses SSRC `firstVideoSSRC + i`; nil: random (RFC 3550 §8.1).
    public var firstVideoSSRC: UInt32?
    /// The microphone's SSRC; nil: random.
    public var audioSSRC: UInt32?
    /// Dynamic RTP payload types (RFC 3551 §3), 0...127.
    public var videoPayloadType: Int
    public var audioPayloadType: Int
    public var security: Security
    /// RTCP on the RTP port (RFC 5761) rather than RTP port + 1.
    public var rtcpMux: Bool
    /// Every stream's RTCP goes to this one `HOST:PORT` instead (e.g. a Janus mountpoint's
    /// `videortcpport`); feedback is received on the sending socket either way.
    public var rtcpDestination: String?
    /// Sender report + SDES CNAME interval per SSRC (RFC 3550 §6.2), 0...3_600_000 ms; 0: no
    /// reports and no BYE.
    public var reportIntervalMilliseconds: Int
    /// The SDES CNAME (RFC 3550 §6.5.1).
    public var cname: String
    public var keyFrameRequestScope: KeyFrameRequestScope
    public var rembResponse: REMBResponse
    /// Also records every datagram sent in a classic pcap file at this path.
    public var pcapPath: String?
    public var pacing: Pacing
    /// The SRTP suite (RFC 4568 §6.2, RFC 7714 §14.2). Default AES_CM_128_HMAC_SHA1_80, which
    /// every SRTP receiver runs; AEAD_AES_128_GCM costs about a quarter of it per packet
    /// (`simulcast-bench srtp`) where the receiver runs it (GStreamer's srtpdec does).
    public var srtpSuite: SRTPSuite
    /// End-to-end encryption of every frame before packetization (SFrame, RFC 9605) under the
    /// provider's key for the output's participant; only a receiver holding that key can
    /// decode. nil: off.
    public var e2ee: E2EEOptions?
    /// The microphone's channel layout (Opus encodes stereo frames as stereo).
    public var audioChannels: AudioFrame.Channels
    /// Lets Opus stop sending during silence (DTX, RFC 7587 §3.1.3).
    public var opusDTX: Bool

    public init(videoDestination: String? = nil, audioDestination: String? = nil, firstVideoSSRC: UInt32? = nil,
                audioSSRC: UInt32? = nil, videoPayloadType: Int = 96, audioPayloadType: Int = 111,
                security: Security = .srtp(keyAndSalt: nil), rtcpMux: Bool = false, rtcpDestination: String? = nil,
                reportIntervalMilliseconds: Int = 1000, cname: String = "media-engine",
                keyFrameRequestScope: KeyFrameRequestScope = .everyLayer, rembResponse: REMBResponse = .limitLayers,
                pcapPath: String? = nil, pacing: Pacing = .realTime, audioChannels: AudioFrame.Channels = .mono,
                opusDTX: Bool = false, srtpSuite: SRTPSuite = .default, e2ee: E2EEOptions? = nil) {
        self.srtpSuite = srtpSuite
        self.e2ee = e2ee
        self.videoDestination = videoDestination
        self.audioDestination = audioDestination
        self.firstVideoSSRC = firstVideoSSRC
        self.audioSSRC = audioSSRC
        self.videoPayloadType = videoPayloadType
        self.audioPayloadType = audioPayloadType
        self.security = security
        self.rtcpMux = rtcpMux
        self.rtcpDestination = rtcpDestination
        self.reportIntervalMilliseconds = reportIntervalMilliseconds
        self.cname = cname
        self.keyFrameRequestScope = keyFrameRequestScope
        self.rembResponse = rembResponse
        self.pcapPath = pcapPath
        self.pacing = pacing
        self.audioChannels = audioChannels
        self.opusDTX = opusDTX
    }
}
