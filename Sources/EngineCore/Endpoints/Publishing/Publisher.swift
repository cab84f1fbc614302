import MediaCodecs
import RTPWire
import Simulcast
import SRTP
import SessionCore

/// Publishes a camera track and/or a mic track (ARCHITECTURE "publish" path):
///
///     VideoFrame ─► SimulcastEncoder ─► VP8Packetizer (per layer) ─► RTPStreamSender ─► SRTP ─► transport
///     AudioFrame ─► OpusEncoder (+ RFC 6464 level) ─► OpusPacketizer ─► RTPStreamSender ─► SRTP ─► transport
///
/// Sends SR + SDES CNAME per SSRC every `reportIntervalMicroseconds` (compound RTCP, RFC 3550
/// §6.1, SRTCP-protected unless `PublisherSecurity` says RTCP is plain) and answers feedback given
/// to `handleIncoming(_:)` / `pollIncoming(timeoutMilliseconds:)`: PLI/FIR request a key frame
/// (`KeyFrameRequestScope`: by default on every layer, throttled per track), generic NACKs resend
/// from history, REMB bounds the total video bitrate by pausing top layers (`REMBPolicy`).
///
/// The RTCP side is an assembly of stages (`Stages/`): `ReportScheduler` and `ReportCompound`
/// (`PublisherReports.swift`), `KeyFrameRequestGate`, `NACKResponder`, `ReportBlockTracker`,
/// `REMBLimit` and the send-side estimator (`PublisherFeedback.swift`), which bound the video
/// through `PublisherVideoAllocation`; the media path is in `PublisherMedia.swift`.
///
/// Time and randomness are injected (`PublisherClock`, any `RandomNumberGenerator`). Not
/// `Sendable`: it owns encoders and SRTP sessions; confine it to one thread or task.
public final class Publisher {
    /// What `handleIncoming` did with one datagram.
    public struct FeedbackOutcome: Sendable, Equatable {
        /// Key-frame requests (PLI or FIR entries) for a video SSRC of this publisher.
        public var keyFrameRequests = 0
        /// Of those, how many reached the encoder (the rest were throttled).
        public var keyFramesRequested = 0
        /// Sequence numbers NACKed for our SSRCs (each once per NACK), resent, no longer in the
        /// history, and refused by the retransmission budget (too soon, too often, over the rate).
        public var nacked = 0
        public var retransmitted = 0
        public var missing = 0
        public var retransmissionsRefused = 0
        /// Feedback about SSRCs this publisher does not send.
        public var unknownSSRC = 0
        /// The datagram was RTP, not RTCP, and was ignored.
        public var ignoredRTP = false
        /// Reception report blocks (in RRs or SRs) about our SSRCs (see `latestReportBlocks`).
        public var reportBlocks = 0
        /// REMB packets for this publisher's video (or naming no SSRC), and the last bitrate, bps.
        public var rembs = 0
        public var rembBitrate: UInt64?
        /// Transport-wide feedback reports taken, and the send-side estimate after them.
        public var transportFeedbacks = 0
        public var estimatedBitrate: UInt64?
        /// Video layers paused / resumed because of a REMB.
        public var layersPaused = 0
        public var layersResumed = 0
    }

    /// A reception report block about one of our streams (RFC 3550 §6.4.1) with its RTT.
    public typealias ReceivedReportBlock = EngineCore.ReceivedReportBlock

    /// Per-SSRC send counters.
    public struct StreamStatistics: Sendable, Equatable {
        public var ssrc: UInt32
        /// `q`/`h`/`f`, `audio`, or `video` for a single layer.
        public var name: String
        public var packets: UInt32
        public var payloadOctets: UInt32
        public var wireBytes: UInt64
        public var retransmissions: Int
        /// NACKed packets the retransmission budget refused to resend.
        public var retransmissionsRefused: Int
    }

    public let configuration: PublisherConfiguration
    public let path: SendPath
    /// One sender per video layer, lightest first.
    public let videoSenders: [RTPStreamSender]
    public let audioSender: RTPStreamSender?
    /// The video encoder, if a camera track is configured.
    public let encoder: SimulcastEncoder?

    var packetizers: [VP8Packetizer]
    let opusEncoder: OpusEncoder?
    var opusPacketizer: OpusPacketizer
    var opusBuffer = [UInt8](repeating: 0, count: OpusEncoder.maxPacketSize)
    var audioWasSilent = true
    /// Stages: key-frame request throttling (with deferred requests), SR/SDES/BYE timing,
    /// report blocks and RTT, NACK answering, REMB, and the video's fit to the estimates.
    var keyFrameGate: KeyFrameRequestGate
    var reportSchedule: ReportScheduler
    var reportBlocks: ReportBlockTracker
    var nackResponder = NACKResponder()
    var rembLimit = REMBLimit()
    var videoAllocation: PublisherVideoAllocation
    var receiveBuffer = [UInt8](repeating: 0, count: 2048)
    let sendersBySSRC: [UInt32: RTPStreamSender]
    /// Video senders lightest first, then audio.
    let allSenders: [RTPStreamSender]

    /// Audio frames encoded, and of those left unsent in DTX.
    public internal(set) var audioFramesEncoded = 0
    public internal(set) var audioFramesSuppressed = 0
    /// Video frames fed in.
    public internal(set) var videoFramesEncoded = 0
    /// Key-frame requests that reached the encoder / were throttled, and RTCP compounds sent.
    public internal(set) var keyFramesRequested = 0
    public var keyFrameRequestsThrottled: Int { keyFrameGate.throttled }
    public var reportsSent: Int { reportSchedule.reportsSent }
    /// Received datagrams that could not be unprotected or parsed (dropped, counted).
    public internal(set) var feedbackErrors = 0
    /// The latest reception report block received for each of our SSRCs.
    public var latestReportBlocks: [UInt32: ReceivedReportBlock] { reportBlocks.latest }
    /// Called with every reception report block about one of our SSRCs, as it is handled.
    public var onReportBlock: ((ReceivedReportBlock) -> Void)?

    /// Camera frames not encoded because the pacer still held more than `pacerPushbackMilliseconds`
    /// of packets at its rate (the encoder waits for the link instead of piling frames up).
    public internal(set) var videoFramesSkippedForPacing = 0
    /// The pacer drains at this multiple of the send-side estimate (libwebrtc's factor).
    static let pacingFactor = 2.5
    /// A frame is skipped while the pacer holds more than this much to send.
    static let pacerPushbackMilliseconds = 100.0

    /// Camera frames given while the camera was off (not encoded).
    public internal(set) var videoFramesSkippedCameraOff = 0

    /// docs/sending-caps.md layer control (see `PublisherLayerControl.swift`): the webcam cap and camera
    /// state, dynaCast's on/off switch, its bookkeeping, and the layers last asked for.
    var webcamCap = WebcamQualityCap(isCameraOn: true)
    var dynaCastIsEnabled = false
    var dynaCast: DynaCastPolicy?
    var wantedLayers: Set<Int>?
    /// REMBs applied, the last REMB bitrate (bps), and layer pauses/resumes they caused.
    public var rembsReceived: Int { rembLimit.received }
    public var lastREMBBitrate: UInt64? { rembLimit.bitsPerSecond }
    /// The send-side estimate (GCC on transport-wide feedback), when `sendSideEstimation` is on.
    public var estimatedBitsPerSecond: UInt64? { path.congestion?.targetBitsPerSecond }
    /// Transport-wide feedback reports taken.
    public var transportFeedbacksReceived: Int { path.congestion?.feedbacksReceived ?? 0 }
    /// End-to-end encryption of every frame before packetization (SFrame, RFC 9605), when set:
    /// share one sealer between the publishers of one participant (one SFrame counter).
    public var frameSealer: E2EEFrameSealer?
    /// A publisher sending on this one's transport that does not read it: a second video m-line
    /// of one WebRTC peer connection (RFC 8843 BUNDLE; a screen share beside the camera). The
    /// PLI/FIR, generic NACKs and report blocks this publisher reads about its SSRCs are handed
    /// to it (RFC 4585 §6.2.1, §6.3.1), so only one reader takes the transport's feedback.
    public var bundledPublisher: Publisher?
    /// Bandwidth probing (with send-side estimation and a camera): its padding stream.
    public let probeSender: RTPStreamSender?
    public var layerPausesByREMB: Int { videoAllocation.layerPauses }
    public var layerResumesByREMB: Int { videoAllocation.layerResumes }
    /// Video layers the REMB currently allows (all layers without REMB or with `.ignore`).
    public var rembActiveLayerCount: Int { videoAllocation.activeLayerCount ?? videoSenders.count }

    /// Builds the pipeline: every stream leaves on `transport` where `routing` says, and feedback
    /// is taken on it from `routing`'s peers. Throws typed errors for impossible configurations:
    /// no track, a wrong number of or duplicate SSRCs, payload types above 127, keys libsrtp
    /// cannot use.
    public init<Generator: RandomNumberGenerator>(configuration: PublisherConfiguration, transport: any DatagramTransport,
                                                  routing: PublisherRouting, clock: MediaClock = .system,
                                                  using random: inout Generator) throws(PublisherError) {
        guard configuration.video != nil || configuration.audio != nil else {
            throw .invalidConfiguration("a publisher needs a video or an audio track")
        }
        guard configuration.historyCapacity > 0 else {
            throw .invalidConfiguration("history capacity \(configuration.historyCapacity)")
        }
        let path = try SendPath(transport: transport, routing: routing, security: configuration.security,
                                extensionMap: configuration.extensionMap, clock: clock,
                                initialTransportSequenceNumber: UInt16.random(in: 0...UInt16.max, using: &random))
        self.path = path
        self.configuration = configuration
        var all: [UInt32] = []

        var videoSenders: [RTPStreamSender] = []
        var packetizers: [VP8Packetizer] = []
        if let video = configuration.video {
            let layerCount = video.plan.layers.count
            guard video.ssrcs.count == layerCount else {
                throw .invalidConfiguration("\(video.ssrcs.count) SSRC(s) for \(layerCount) layer(s)")
            }
            guard VideoTrackConfiguration.payloadBudgetRange.contains(video.payloadBudget) else {
                throw .invalidConfiguration("payload budget \(video.payloadBudget) outside \(VideoTrackConfiguration.payloadBudgetRange)")
            }
            let rids = VideoTrackConfiguration.rids(layerCount: layerCount)
            for (index, ssrc) in video.ssrcs.enumerated() {
                let sender = try RTPStreamSender(
                    configuration: .init(ssrc: ssrc, payloadType: video.payloadType, clockRate: 90_000, mid: video.mid,
                                         rid: rids[index], initialSequenceNumber: UInt16.random(in: 0...UInt16.max, using: &random),
                                         historyCapacity: configuration.historyCapacity),
                    path: path)
                videoSenders.append(sender)
                packetizers.append(VP8Packetizer(payloadBudget: video.payloadBudget, using: &random))
                all.append(ssrc)
            }
            do {
                encoder = try SimulcastEncoder(plan: video.plan, frameRate: video.frameRate,
                                               rtpTimestampStart: UInt32.random(in: 0...UInt32.max, using: &random))
            } catch {
                throw .encoder(error)
            }
        } else {
            encoder = nil
        }
        self.videoSenders = videoSenders
        self.packetizers = packetizers

        if let audio = configuration.audio {
            audioSender = try RTPStreamSender(
                configuration: .init(ssrc: audio.ssrc, payloadType: audio.payloadType, clockRate: OpusRTP.clockRate,
                                     mid: audio.mid, initialSequenceNumber: UInt16.random(in: 0...UInt16.max, using: &random),
                                     historyCapacity: configuration.historyCapacity),
                path: path)
            do {
                opusEncoder = try OpusEncoder(configuration: audio.opus)
            } catch {
                throw .opus(error)
            }
            all.append(audio.ssrc)
        } else {
            audioSender = nil
            opusEncoder = nil
        }
        opusPacketizer = OpusPacketizer(using: &random)
        guard Set(all).count == all.count else { throw .invalidConfiguration("SSRCs must be distinct: \(all)") }
        var bySSRC: [UInt32: RTPStreamSender] = [:]
        for sender in videoSenders { bySSRC[sender.ssrc] = sender }
        if let audioSender { bySSRC[audioSender.ssrc] = audioSender }
        sendersBySSRC = bySSRC
        allSenders = videoSenders + (audioSender.map { [$0] } ?? [])
        keyFrameGate = KeyFrameRequestGate(minimumIntervalMilliseconds: configuration.keyFrameRequestIntervalMilliseconds)
        reportSchedule = ReportScheduler(interval: configuration.reportIntervalMicroseconds, streams: allSenders.count)
        reportBlocks = ReportBlockTracker(streams: allSenders.count)
        videoAllocation = PublisherVideoAllocation(configuration: configuration)
        dynaCast = configuration.video.map { DynaCastPolicy(plan: $0.plan) }
        if let estimation = configuration.sendSideEstimation {
            path.congestion = SendSideCongestionControl(estimation: estimation, probing: configuration.probing)
            path.pacer = PacketPacer(bitsPerSecond: UInt64(Self.pacingFactor * Double(estimation.initialBitsPerSecond)),
                                     configuration: .init(maximumPacketSize: path.security.maximumProtectedSize))
        }
        if configuration.sendSideEstimation != nil, let video = configuration.video {
            let ssrc = configuration.probeSSRC ?? (video.ssrcs.max() ?? 0) &+ 16
            guard !all.contains(ssrc) else { throw .invalidConfiguration("probe SSRC \(ssrc) is also a media SSRC") }
            probeSender = try RTPStreamSender(
                configuration: .init(ssrc: ssrc, payloadType: video.payloadType, clockRate: 90_000, mid: video.mid,
                                     initialSequenceNumber: UInt16.random(in: 0...UInt16.max, using: &random), historyCapacity: 1),
                path: path)
        } else {
            probeSender = nil
        }
    }

    /// Builds the pipeline with the system clock and random source.
    public convenience init(configuration: PublisherConfiguration, transport: any DatagramTransport,
                            routing: PublisherRouting) throws(PublisherError) {
        var random = SystemRandomNumberGenerator()
        try self.init(configuration: configuration, transport: transport, routing: routing, clock: .system, using: &random)
    }

    /// Builds the pipeline sending every stream (RTCP muxed, RFC 5761) to `destination` from a
    /// UDP socket of its own (`UDPSocket(sendingToward:)`), with the system clock and random source.
    public convenience init(configuration: PublisherConfiguration, destination: NetworkEndpoint) throws(PublisherError) {
        let socket: UDPSocket
        do {
            socket = try UDPSocket(sendingToward: destination)
        } catch {
            throw .network(error)
        }
        try self.init(configuration: configuration, transport: socket, routing: PublisherRouting(destination: destination))
    }


    // MARK: - Statistics

    /// Counters per SSRC: video layers lightest first, then audio.
    public var statistics: [StreamStatistics] {
        allSenders.map { sender in
            StreamStatistics(ssrc: sender.ssrc, name: sender === audioSender ? "audio" : sender.configuration.rid ?? "video",
                             packets: sender.packetCount, payloadOctets: sender.octetCount,
                             wireBytes: sender.wireBytes, retransmissions: sender.retransmissions,
                             retransmissionsRefused: sender.retransmissionRefusals.total)
        }
    }
}
