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

    /// A reception report block about one of our streams (RFC 3550 §6.4.1), as it arrived, with
    /// the round-trip time its LSR/DLSR give (`ReceiveStatistics.roundTripMicroseconds`).
    public struct ReceivedReportBlock: Sendable, Equatable {
        /// The block as received.
        public var block: ReportBlock
        /// When it was handled, on the publisher's monotonic clock (microseconds).
        public var arrivalMonotonicMicroseconds: Int64
        /// A − LSR − DLSR with A from the publisher's wall clock; nil without an LSR (no SR seen
        /// by the far end yet) or for a negative result.
        public var roundTripMicroseconds: Int64?
    }

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

    private var packetizers: [VP8Packetizer]
    private let opusEncoder: OpusEncoder?
    private var opusPacketizer: OpusPacketizer
    private var opusBuffer = [UInt8](repeating: 0, count: OpusEncoder.maxPacketSize)
    private var audioWasSilent = true
    private var throttle: KeyFrameRequestThrottle
    /// Throttled key-frame requests still owed, by throttle key (the layer they named): the first
    /// frame after the interval serves them, so a requester that asks once is never starved.
    private var deferredKeyFrameRequests: [UInt32: Int] = [:]
    private var lastReport: [UInt32: Int64] = [:]
    private var receiveBuffer = [UInt8](repeating: 0, count: 2048)
    private var nackScratch: [UInt16] = []
    private let sendersBySSRC: [UInt32: RTPStreamSender]
    /// Video senders lightest first, then audio.
    private let allSenders: [RTPStreamSender]

    /// Audio frames encoded, and of those left unsent in DTX.
    public private(set) var audioFramesEncoded = 0
    public private(set) var audioFramesSuppressed = 0
    /// Video frames fed in.
    public private(set) var videoFramesEncoded = 0
    /// Key-frame requests that reached the encoder / were throttled, and RTCP compounds sent.
    public private(set) var keyFramesRequested = 0
    public private(set) var keyFrameRequestsThrottled = 0
    public private(set) var reportsSent = 0
    /// Received datagrams that could not be unprotected or parsed (dropped, counted).
    public private(set) var feedbackErrors = 0
    /// The latest reception report block received for each of our SSRCs.
    public private(set) var latestReportBlocks: [UInt32: ReceivedReportBlock] = [:]
    /// Called with every reception report block about one of our SSRCs, as it is handled.
    public var onReportBlock: ((ReceivedReportBlock) -> Void)?

    /// Camera frames not encoded because the pacer still held more than `pacerPushbackMilliseconds`
    /// of packets at its rate (the encoder waits for the link instead of piling frames up).
    public private(set) var videoFramesSkippedForPacing = 0
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
    public private(set) var rembsReceived = 0
    public private(set) var lastREMBBitrate: UInt64?
    /// The send-side estimate (GCC on transport-wide feedback), when `sendSideEstimation` is on.
    public var estimatedBitsPerSecond: UInt64? { path.congestion?.targetBitsPerSecond }
    /// Transport-wide feedback reports taken.
    public var transportFeedbacksReceived: Int { path.congestion?.feedbacksReceived ?? 0 }
    /// End-to-end encryption of every frame before packetization (SFrame, RFC 9605), when set:
    /// share one sealer between the publishers of one participant (one SFrame counter).
    public var frameSealer: E2EEFrameSealer?
    /// Bandwidth probing (with send-side estimation and a camera): its padding stream.
    public let probeSender: RTPStreamSender?
    public private(set) var layerPausesByREMB = 0
    public private(set) var layerResumesByREMB = 0
    /// Video layers the REMB currently allows (all layers without REMB or with `.ignore`).
    public var rembActiveLayerCount: Int {
        rateAllocator?.runningLayerCount ?? rembAllocator?.activeLayerCount ?? videoSenders.count
    }

    private var rembAllocator: REMBLayerAllocator?
    /// With send-side estimation: the estimate split across the layers (`SimulcastRateAllocator`).
    private var rateAllocator: SimulcastRateAllocator?

    /// Builds the pipeline. Throws typed errors for impossible configurations: no track, a
    /// wrong number of or duplicate SSRCs, payload types above 127, keys libsrtp cannot use.
    public init<Generator: RandomNumberGenerator>(configuration: PublisherConfiguration, transport: any PacketTransport,
                                                  clock: MediaClock = .system,
                                                  using random: inout Generator) throws(PublisherError) {
        guard configuration.video != nil || configuration.audio != nil else {
            throw .invalidConfiguration("a publisher needs a video or an audio track")
        }
        guard configuration.historyCapacity > 0 else {
            throw .invalidConfiguration("history capacity \(configuration.historyCapacity)")
        }
        let path = try SendPath(transport: transport, security: configuration.security,
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
        throttle = KeyFrameRequestThrottle(minimumIntervalMilliseconds: configuration.keyFrameRequestIntervalMilliseconds)
        dynaCast = configuration.video.map { DynaCastPolicy(plan: $0.plan) }
        if let video = configuration.video, case let .limitLayers(headroom, hold, expiry) = configuration.rembPolicy {
            rembAllocator = REMBLayerAllocator(layerKbps: video.plan.layers.map(\.bitrates.targetKbps),
                                               resumeHeadroom: headroom, resumeHoldMilliseconds: hold,
                                               expiryMilliseconds: expiry)
        }
        if let estimation = configuration.sendSideEstimation {
            path.congestion = SendSideCongestionControl(estimation: estimation, probing: configuration.probing)
            path.pacer = PacketPacer(bitsPerSecond: UInt64(Self.pacingFactor * Double(estimation.initialBitsPerSecond)),
                                     configuration: .init(maximumPacketSize: path.security.maximumProtectedSize))
            if let video = configuration.video, case .limitLayers = configuration.rembPolicy {
                rateAllocator = SimulcastRateAllocator(layers: video.plan.layers.map(\.bitrates))
            }
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
    public convenience init(configuration: PublisherConfiguration, transport: any PacketTransport) throws(PublisherError) {
        var random = SystemRandomNumberGenerator()
        try self.init(configuration: configuration, transport: transport, clock: .system, using: &random)
    }

    // MARK: - Media

    /// Encodes one camera frame (any size; scaled and centre-cropped to the plan) on every active
    /// layer and sends each layer's packets. Sends due sender reports afterwards.
    public func send(video frame: VideoFrame) throws(PublisherError) {
        guard let encoder else { throw .trackNotConfigured("video") }
        guard webcamCap.isCameraOn else {
            videoFramesSkippedCameraOff += 1
            return
        }
        try path.drainPacer()
        if let pacer = path.pacer, pacer.queuedMilliseconds > Self.pacerPushbackMilliseconds {
            videoFramesSkippedForPacing += 1
            return
        }
        if rateAllocator == nil, var allocator = rembAllocator,
           encoder.plan.layers.indices.contains(where: { encoder.isPaused(layer: $0, reason: .bandwidth) }) {
            // A REMB limit lapses when REMBs stop coming (the send-side estimate never does).
            let active = allocator.expire(nowMilliseconds: path.clock.monotonicMilliseconds())
            rembAllocator = allocator
            _ = try applyREMBLayerCount(active, encoder: encoder)
        }
        if !deferredKeyFrameRequests.isEmpty { serveDeferredKeyFrameRequests() }
        var failure: PublisherError?
        let skippedBefore = encoder.framesSkippedUnchanged
        do {
            try encoder.encode(scaling: frame) { encoded in
                guard failure == nil else { return }
                do throws(PublisherError) { try self.send(encoded) } catch { failure = error }
            }
        } catch {
            throw .encoder(error)
        }
        if let failure { throw failure }
        // A screen frame equal to the last one is not encoded (issue 17).
        if encoder.framesSkippedUnchanged == skippedBefore { videoFramesEncoded += 1 }
        try sendReportsIfDue()
    }

    /// Packetizes one already-encoded layer frame (RFC 7741) and sends it on that layer's SSRC.
    public func send(_ frame: EncodedFrame) throws(PublisherError) {
        guard videoSenders.indices.contains(frame.spatialIndex) else {
            throw .invalidConfiguration("layer \(frame.spatialIndex) of \(videoSenders.count)")
        }
        var encoded = frame
        if let frameSealer {
            do {
                encoded.data = try frameSealer.sealVideo(frame.data)
            } catch {
                throw .e2ee(error)
            }
        }
        let sender = videoSenders[encoded.spatialIndex]
        var failure: PublisherError?
        do {
            try packetizers[encoded.spatialIndex].packetize(encoded) { payload, isLast in
                guard failure == nil else { return }
                do throws(PublisherError) {
                    try sender.send(payload: payload, timestamp: encoded.rtpTimestamp, marker: isLast)
                } catch {
                    failure = error
                }
            }
        } catch {
            throw .packetizer(error)
        }
        if let failure { throw failure }
    }

    /// Encodes one 20 ms mic frame with Opus and sends it with its RFC 6464 level. With DTX on,
    /// frames the encoder marks as DTX (≤ 2 bytes) are not sent; the RTP timestamp still advances
    /// and the first packet after a gap carries the marker bit (RFC 3551 §4.1).
    public func send(audio frame: AudioFrame) throws(PublisherError) {
        guard let opusEncoder, let audioSender, let audio = configuration.audio else {
            throw .trackNotConfigured("audio")
        }
        let level = AudioLevel(measuring: frame.samples)
        let length: Int
        do {
            length = try opusEncoder.encode(frame, into: &opusBuffer)
        } catch {
            throw .opus(error)
        }
        audioFramesEncoded += 1
        var packet: (payload: ArraySlice<UInt8>, timestamp: UInt32, samples: Int)
        do {
            packet = try opusPacketizer.packetize(opusBuffer[0..<length])
        } catch {
            throw .packetizer(error)
        }
        if let frameSealer {
            // The timestamp comes from the plaintext (its TOC); the payload is the sealed frame.
            do {
                packet.payload = try frameSealer.sealAudio(packet.payload)[...]
            } catch {
                throw .e2ee(error)
            }
        }
        if audio.opus.dtx && length <= 2 {
            audioFramesSuppressed += 1
            audioWasSilent = true
        } else {
            try audioSender.send(payload: packet.payload, timestamp: packet.timestamp, marker: audioWasSilent,
                                 audioLevel: level)
            audioWasSilent = false
        }
        try sendReportsIfDue()
    }

    /// Asks the encoder for a key frame on every layer (docs/layer-plan.md), bypassing the throttle.
    public func requestKeyFrame() {
        encoder?.requestKeyFrame()
        keyFramesRequested += 1
    }

    // MARK: - RTCP out

    /// Sends SR + SDES CNAME for every stream whose report is due (and that has sent media).
    public func sendReportsIfDue() throws(PublisherError) {
        guard configuration.reportIntervalMicroseconds > 0 else { return }
        let now = path.clock.monotonicMicroseconds()
        for sender in allSenders where sender.packetCount > 0 {
            if let last = lastReport[sender.ssrc], now &- last < configuration.reportIntervalMicroseconds { continue }
            try sendReport(for: sender, now: now)
        }
    }

    /// Sends SR + SDES CNAME now for every stream that has sent media.
    public func sendReports() throws(PublisherError) {
        let now = path.clock.monotonicMicroseconds()
        for sender in allSenders where sender.packetCount > 0 { try sendReport(for: sender, now: now) }
    }


    /// Ends the session: for every stream that sent media, a final SR + SDES CNAME + BYE
    /// (RFC 3550 §6.6: BYE is the last packet of a compound that starts with a report).
    public func sendGoodbye(reason: String? = nil) throws(PublisherError) {
        try sendGoodbye(for: allSenders, reason: reason)
    }

    /// A final SR + SDES CNAME + BYE for each of `senders` that sent media.
    func sendGoodbye(for senders: [RTPStreamSender], reason: String?) throws(PublisherError) {
        let now = path.clock.monotonicMicroseconds()
        for sender in senders where sender.packetCount > 0 {
            try sendReport(for: sender, now: now,
                           goodbye: Goodbye(ssrcs: [sender.ssrc], reason: reason.map { Array($0.utf8.prefix(255)) }))
        }
    }

    private func sendReport(for sender: RTPStreamSender, now: Int64, goodbye: Goodbye? = nil) throws(PublisherError) {
        var packets: [RTCPPacket] = [
            .senderReport(sender.senderReport()),
            .sourceDescription(SourceDescription(chunks: [.cname(ssrc: sender.ssrc, configuration.cname)])),
        ]
        if let goodbye { packets.append(.goodbye(goodbye)) }
        try path.sendRTCP(RTCPCompoundPacket(packets: packets), ssrc: sender.ssrc)
        lastReport[sender.ssrc] = now
        reportsSent += 1
    }

    // MARK: - RTCP in

    /// Handles one received datagram: SRTCP is unprotected (plain RTCP when insecure), then PLI
    /// and FIR request key frames (throttled per SSRC) and generic NACKs are answered from history.
    /// RTP is ignored. Throws typed errors for datagrams that fail authentication or parsing.
    @discardableResult
    public func handleIncoming(_ datagram: [UInt8]) throws(PublisherError) -> FeedbackOutcome {
        try handleIncoming(datagram[...])
    }

    /// `handleIncoming(_:)` for a view of a buffer the caller reuses (no copy into an array).
    @discardableResult
    public func handleIncoming(_ datagram: ArraySlice<UInt8>) throws(PublisherError) -> FeedbackOutcome {
        guard datagram.count <= receiveBuffer.count else {
            throw .invalidConfiguration("datagram of \(datagram.count) bytes is larger than \(receiveBuffer.count)")
        }
        receiveBuffer.withUnsafeMutableBytes { buffer in
            datagram.withUnsafeBytes { source in
                if let from = source.baseAddress, let to = buffer.baseAddress {
                    to.copyMemory(from: from, byteCount: source.count)
                }
            }
        }
        return try handleReceived(length: datagram.count)
    }

    /// Handles `receiveBuffer[0..<length]`.
    private func handleReceived(length: Int) throws(PublisherError) -> FeedbackOutcome {
        var outcome = FeedbackOutcome()
        do {
            guard try RTPOrRTCP.classify(receiveBuffer[0..<length]) == .rtcp else {
                outcome.ignoredRTP = true
                return outcome
            }
        } catch {
            throw .wire(error)
        }
        let plainLength = try path.unprotectRTCP(&receiveBuffer, length: length)
        let compound: RTCPCompoundPacket
        do { compound = try RTCPCompoundPacket(parsing: receiveBuffer[0..<plainLength]) } catch { throw .wire(error) }
        for packet in compound.packets {
            switch packet {
            case let .pictureLossIndication(pli):
                try keyFrameRequest(for: pli.mediaSSRC, &outcome)
            case let .fullIntraRequest(fir):
                for entry in fir.entries { try keyFrameRequest(for: entry.ssrc, &outcome) }
            case let .receiverEstimatedMaxBitrate(remb):
                try handleREMB(remb, &outcome)
            case let .transportWideFeedback(feedback):
                try handleTransportFeedback(feedback, &outcome)
            case let .genericNACK(nack):
                guard let sender = sendersBySSRC[nack.mediaSSRC] else {
                    outcome.unknownSSRC += 1
                    continue
                }
                nack.uniqueLostSequenceNumbers(into: &nackScratch)
                let roundTrip = latestReportBlocks[sender.ssrc]?.roundTripMicroseconds.map { $0 / 1000 }
                for sequence in nackScratch {
                    outcome.nacked += 1
                    switch try sender.retransmit(sequenceNumber: sequence, roundTripMilliseconds: roundTrip) {
                    case .resent: outcome.retransmitted += 1
                    case .missing: outcome.missing += 1
                    case .refused: outcome.retransmissionsRefused += 1
                    }
                }
            case let .receiverReport(report):
                receivedReportBlocks(report.reportBlocks, &outcome)
            case let .senderReport(report):
                receivedReportBlocks(report.reportBlocks, &outcome)
            default:
                continue
            }
        }
        return outcome
    }

    /// Keeps the blocks about our SSRCs (others are not ours to grade) with their RTT.
    private func receivedReportBlocks(_ blocks: [ReportBlock], _ outcome: inout FeedbackOutcome) {
        guard !blocks.isEmpty else { return }
        let arrival = NTPTime.compact(path.clock.ntpTimestamp())
        let now = path.clock.monotonicMicroseconds()
        for block in blocks where sendersBySSRC[block.ssrc] != nil {
            let received = ReceivedReportBlock(
                block: block, arrivalMonotonicMicroseconds: now,
                roundTripMicroseconds: ReceiveStatistics.roundTripMicroseconds(reportBlock: block, arrivalCompactNTP: arrival))
            latestReportBlocks[block.ssrc] = received
            outcome.reportBlocks += 1
            onReportBlock?(received)
        }
    }

    private func keyFrameRequest(for ssrc: UInt32, _ outcome: inout FeedbackOutcome) throws(PublisherError) {
        guard let layer = videoSenders.firstIndex(where: { $0.ssrc == ssrc }) else {
            outcome.unknownSSRC += 1
            return
        }
        outcome.keyFrameRequests += 1
        let nowMilliseconds = path.clock.monotonicMilliseconds()
        // Every layer: one throttle for the whole track (keyed by its lowest layer's SSRC).
        let throttleKey = configuration.keyFrameRequestScope == .everyLayer ? videoSenders[0].ssrc : ssrc
        if throttle.shouldPass(ssrc: throttleKey, nowMilliseconds: nowMilliseconds) {
            requestKeyFrame(layer: layer)
            deferredKeyFrameRequests[throttleKey] = nil
            outcome.keyFramesRequested += 1
        } else {
            keyFrameRequestsThrottled += 1
            deferredKeyFrameRequests[throttleKey] = layer
        }
    }

    /// A key frame on every layer or on `layer`, as `keyFrameRequestScope` says.
    private func requestKeyFrame(layer: Int) {
        switch configuration.keyFrameRequestScope {
        case .everyLayer: encoder?.requestKeyFrame()
        case .namedLayer: encoder?.requestKeyFrame(forLayer: layer)
        }
        keyFramesRequested += 1
    }

    /// Requests that were throttled and whose interval has passed become key frames now.
    private func serveDeferredKeyFrameRequests() {
        let nowMilliseconds = path.clock.monotonicMilliseconds()
        for (throttleKey, layer) in deferredKeyFrameRequests
        where throttle.shouldPass(ssrc: throttleKey, nowMilliseconds: nowMilliseconds) {
            requestKeyFrame(layer: layer)
            deferredKeyFrameRequests[throttleKey] = nil
        }
    }

    /// A REMB naming one of our video SSRCs (or none) bounds the total video bitrate.
    private func handleREMB(_ remb: ReceiverEstimatedMaxBitrate, _ outcome: inout FeedbackOutcome) throws(PublisherError) {
        guard remb.ssrcs.isEmpty || remb.ssrcs.contains(where: { ssrc in videoSenders.contains { $0.ssrc == ssrc } }) else {
            outcome.unknownSSRC += 1
            return
        }
        outcome.rembs += 1
        outcome.rembBitrate = remb.bitrate
        rembsReceived += 1
        lastREMBBitrate = remb.bitrate
        // With send-side estimation the lower of the two bounds the video (as libwebrtc does).
        try limitVideo(to: min(remb.bitrate, estimatedBitsPerSecond ?? .max), &outcome)
    }

    /// Transport-wide feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01) into the
    /// send-side estimator; its estimate (with the latest REMB, if lower) bounds the video.
    private func handleTransportFeedback(_ feedback: TransportWideFeedback, _ outcome: inout FeedbackOutcome) throws(PublisherError) {
        guard var congestion = path.congestion else { return }
        outcome.transportFeedbacks += 1
        let roundTrip = latestReportBlocks.values.compactMap(\.roundTripMicroseconds).max().map { Double($0) / 1000 } ?? 100
        let estimate = congestion.handle(feedback, roundTripMilliseconds: roundTrip, nowMilliseconds: path.clock.monotonicMilliseconds())
        path.congestion = congestion
        path.pacer?.bitsPerSecond = UInt64(Self.pacingFactor * Double(estimate))
        outcome.estimatedBitrate = estimate
        try limitVideo(to: min(estimate, lastREMBBitrate ?? .max), &outcome)
    }

    /// What the camera would send with every layer it may (not paused for nobody watching),
    /// with the allocator's resume headroom: what probing climbs to.
    private var wantedVideoBitsPerSecond: UInt64 {
        guard let encoder else { return 0 }
        var kbps = 0
        for index in encoder.plan.layers.indices where !encoder.isPaused(layer: index, reason: .unwatched) {
            kbps += encoder.plan.layers[index].bitrates.targetKbps
        }
        return UInt64(Double(kbps) * 1_000 * (rembAllocator?.resumeHeadroom ?? 1.15))
    }

    /// Sends what bandwidth probing has due now (`ProbeController`): while the estimate is below
    /// what the camera wants and the link shows no over-use, a 30 ms cluster of padding-only
    /// packets on the probe SSRC at twice the estimate. `pollIncoming` calls it; a loop that
    /// reads feedback some other way calls it every few milliseconds.
    public func sendProbesIfDue() throws(PublisherError) {
        try path.drainPacer()
        guard let probeSender, var congestion = path.congestion else { return }
        let padding = congestion.paddingDue(wanted: wantedVideoBitsPerSecond, nowMilliseconds: path.clock.monotonicMilliseconds())
        path.congestion = congestion
        guard let (cluster, bytes) = padding else { return }
        var due = bytes
        while due > 0 {
            let sent = try probeSender.sendPadding(probeCluster: cluster)
            path.congestion?.paddingSent(bytes: sent)
            due -= sent
        }
    }

    /// Probe clusters started and those that proved their rate.
    public var probeClusters: (started: Int, succeeded: Int) { path.congestion?.probeClusters ?? (0, 0) }

    /// Fits the video to `bitsPerSecond`: with send-side estimation each layer gets its share
    /// (`SimulcastRateAllocator`: bitrates set, layers that get nothing paused); with REMB alone
    /// top layers pause and resume (`REMBLayerAllocator`).
    private func limitVideo(to bitsPerSecond: UInt64, _ outcome: inout FeedbackOutcome) throws(PublisherError) {
        if rateAllocator != nil {
            try allocateVideo(bitsPerSecond, &outcome)
            return
        }
        guard var allocator = rembAllocator, let encoder else { return }
        let active = allocator.update(bitrate: bitsPerSecond, nowMilliseconds: path.clock.monotonicMilliseconds())
        rembAllocator = allocator
        let (paused, resumed) = try applyREMBLayerCount(active, encoder: encoder)
        outcome.layersPaused += paused
        outcome.layersResumed += resumed
    }

    /// Splits `bitsPerSecond` across the layers that may run (watched, within the cap): each
    /// running layer's encoder bitrate follows its share (set when it moved more than 5 %), a
    /// layer with no share is paused for bandwidth, one that gets a share again resumes (with a
    /// key frame).
    private func allocateVideo(_ bitsPerSecond: UInt64, _ outcome: inout FeedbackOutcome) throws(PublisherError) {
        guard var allocator = rateAllocator, let encoder else { return }
        let allowed = encoder.plan.layers.indices.map {
            !encoder.isPaused(layer: $0, reason: .unwatched) && !encoder.isCapped(layer: $0)
        }
        let shares = allocator.allocate(bitsPerSecond: bitsPerSecond, allowed: allowed,
                                        nowMilliseconds: path.clock.monotonicMilliseconds())
        rateAllocator = allocator
        do {
            for index in shares.indices where allowed[index] {
                let pausedForBandwidth = encoder.isPaused(layer: index, reason: .bandwidth)
                if shares[index] == 0 {
                    guard !pausedForBandwidth else { continue }
                    try encoder.setPaused(true, layer: index, reason: .bandwidth)
                    layerPausesByREMB += 1
                    outcome.layersPaused += 1
                    continue
                }
                let current = try encoder.targetBitrateKbps(forLayer: index)
                if abs(shares[index] - current) * 20 > current { try encoder.setBitrate(kbps: shares[index], forLayer: index) }
                if pausedForBandwidth {
                    try encoder.setPaused(false, layer: index, reason: .bandwidth)
                    layerResumesByREMB += 1
                    outcome.layersResumed += 1
                }
            }
        } catch {
            throw .encoder(error)
        }
    }

    /// Pauses layers from `active` up for bandwidth and resumes the ones below it that REMB paused.
    private func applyREMBLayerCount(_ active: Int, encoder: SimulcastEncoder) throws(PublisherError) -> (paused: Int, resumed: Int) {
        var paused = 0, resumed = 0
        do {
            for index in encoder.plan.layers.indices {
                let pausedForBandwidth = encoder.isPaused(layer: index, reason: .bandwidth)
                if index >= active, !pausedForBandwidth {
                    try encoder.setPaused(true, layer: index, reason: .bandwidth)
                    layerPausesByREMB += 1
                    paused += 1
                } else if index < active, pausedForBandwidth {
                    // The encoder starts the layer with a key frame once nothing else pauses it.
                    try encoder.setPaused(false, layer: index, reason: .bandwidth)
                    layerResumesByREMB += 1
                    resumed += 1
                }
            }
        } catch {
            throw .encoder(error)
        }
        return (paused, resumed)
    }

    /// Receives and handles at most one datagram from the transport, waiting up to
    /// `timeoutMilliseconds`. Datagrams that fail authentication or parsing are counted in
    /// `feedbackErrors` and dropped. Returns nil when nothing arrived.
    @discardableResult
    public func pollIncoming(timeoutMilliseconds: Int32) throws(PublisherError) -> FeedbackOutcome? {
        try sendProbesIfDue()
        let transport = path.transport
        let result: Result<Int?, PublisherError> = receiveBuffer.withUnsafeMutableBytes { buffer in
            Result { () throws(PublisherError) -> Int? in
                try transport.receive(into: buffer, timeoutMilliseconds: timeoutMilliseconds)
            }
        }
        guard let received = try result.get() else { return nil }
        do {
            return try handleReceived(length: received)
        } catch {
            feedbackErrors += 1
            return FeedbackOutcome()
        }
    }

    // MARK: - Statistics

    /// Counters per SSRC: video layers lightest first, then audio.
    public var statistics: [StreamStatistics] {
        var result: [StreamStatistics] = []
        for sender in videoSenders {
            result.append(StreamStatistics(ssrc: sender.ssrc, name: sender.configuration.rid ?? "video",
                                           packets: sender.packetCount, payloadOctets: sender.octetCount,
                                           wireBytes: sender.wireBytes, retransmissions: sender.retransmissions,
                                           retransmissionsRefused: sender.retransmissionRefusals.total))
        }
        if let sender = audioSender {
            result.append(StreamStatistics(ssrc: sender.ssrc, name: "audio", packets: sender.packetCount,
                                           payloadOctets: sender.octetCount, wireBytes: sender.wireBytes,
                                           retransmissions: sender.retransmissions,
                                           retransmissionsRefused: sender.retransmissionRefusals.total))
        }
        return result
    }
}
