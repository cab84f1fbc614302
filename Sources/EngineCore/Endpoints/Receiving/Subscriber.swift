import MediaCodecs
import RTPWire
import SRTP
import SessionCore

/// The receiving end of a call (ARCHITECTURE "receive"): datagrams from a transport (or handed
/// in by the caller) → SRTP unprotect (or plain, if configured insecure) → RTP/RTCP demux
/// (RFC 5761) → `VideoReceiver` (VP8) / `AudioReceiver` (Opus) by payload type. RTCP out —
/// RR with a report block per received stream, SDES CNAME, generic NACK, PLI, REMB — goes as one
/// compound packet (SRTCP-protected unless insecure) to the sender's RTCP address, whenever
/// feedback is due or every `reportIntervalMilliseconds` (`ReportScheduler`, built by
/// `ReportCompound`; transport-wide feedback from the `TransportFeedbackStage`). RTCP in: SRs
/// (for LSR/DLSR).
///
/// Driving it: call `poll(timeoutMilliseconds:)` (reads and handles what the transport has) and
/// `service()` (timers: jitter-buffer release, NACK retries, PLI, reports) in a loop, or
/// `step(timeoutMilliseconds:)` for both. Time comes from the injected clock (microseconds).
///
/// Not `Sendable`: it owns decoders and SRTP sessions; confine it to one thread or task.
public final class Subscriber {
    public let configuration: SubscriberConfiguration
    /// The video receive path (set `onFrame` on it, or use `onVideoFrame`).
    public let video: VideoReceiver
    /// The audio receive path.
    public let audio: AudioReceiver
    /// The transport media arrives on, if the subscriber has one.
    public let transport: (any DatagramTransport)?
    /// Where RTCP goes when there is no transport (or to observe it): called with each protected
    /// compound packet. With a transport and no sink, RTCP is sent on the transport.
    public var rtcpSink: ((ArraySlice<UInt8>) -> Void)?
    /// Called with the RFC 6464 audio level of every received audio packet that carries one
    /// (after SRTP, before the audio receiver; any SSRC). Packets without the extension, or with
    /// a malformed one, are skipped and counted in `audioLevelsMalformed`.
    public var onAudioLevel: ((ReceivedAudioLevel) -> Void)?
    /// Header-extension ids for reading audio levels (RFC 8285 `a=extmap`).
    public var extensionMap: RTPHeaderExtensionMap = .defaults
    /// Audio packets whose audio-level extension could not be read.
    public private(set) var audioLevelsMalformed: Int64 = 0
    /// End-to-end decryption (SFrame, RFC 9605) of the sender's video frames and audio
    /// packets, when set: what it refuses never reaches a decoder (`statistics.audioUndecryptable`,
    /// `video.framesUndecryptable`; its receiver's counters say why).
    public var frameOpener: E2EEFrameOpener? {
        didSet { video.frameOpener = frameOpener }
    }

    private let clock: MediaClock
    private let security: SRTPSecurity
    /// The buffers datagrams are received into, unprotected in place and parsed in: the packets
    /// handed on are slices of them (no copy, no allocation per packet).
    private var receiveBuffers: ReceiveBufferPool
    private var feedback: [RTCPPacket] = []
    /// Arrivals by transport-wide sequence number, when `sendsTransportFeedback`.
    private var transportFeedback: TransportFeedbackStage
    /// The sender's media address: pinned by its first valid packet, moved only by a run of valid
    /// packets from one new address; RTCP goes there unless `senderRTCPEndpoint` is configured.
    private var mediaSource = PeerAddressLatch<NetworkEndpoint>()
    /// Receiver reports every `reportIntervalMilliseconds` (RFC 3550 §6.4.2).
    private var reportSchedule: ReportScheduler
    private var counters = SubscriberStatistics(video: VideoReceiverStatistics(), audio: AudioReceiverStatistics())

    /// Largest datagram accepted.
    public static let maximumDatagramSize = 2048
    /// Receive buffers per subscriber: packets wait in them while their frame is incomplete (a
    /// 720p key frame is about 100 packets; 150 ms of jitter buffer at 2.5 Mbit/s about 40).
    static let receiveBufferCount = 256

    /// A subscriber reading from `transport` (nil: datagrams come only through `handle(datagram:from:)`).
    /// Throws the codec, SRTP or socket error that prevented setting it up.
    public init(configuration: SubscriberConfiguration, transport: (any DatagramTransport)?,
                clock: MediaClock = .system) throws {
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        video = try VideoReceiver(configuration: configuration.video)
        audio = try AudioReceiver(configuration: configuration.audio)
        switch configuration.security {
        case let .srtp(receiveKeys, sendKeys):
            security = try SRTPSecurity(sendKeys: sendKeys, receiveKeys: receiveKeys)
        case .insecurePlaintext:
            security = SRTPSecurity(outbound: nil, inbound: nil)
        }
        receiveBuffers = ReceiveBufferPool(count: Self.receiveBufferCount, bufferSize: Self.maximumDatagramSize)
        transportFeedback = TransportFeedbackStage(enabled: configuration.sendsTransportFeedback)
        reportSchedule = ReportScheduler(interval: configuration.reportIntervalMilliseconds * 1000, streams: 1)
    }

    /// Times a datagram arrived while every receive buffer was still held by waiting packets
    /// (that datagram then cost an allocation; see `ReceiveBufferPool`).
    public var receiveBufferExhaustions: Int64 { receiveBuffers.exhaustions }

    /// The transport's local endpoint (where the sender should send media).
    public var localEndpoint: NetworkEndpoint? { transport?.localEndpoint }

    /// Decoded pictures (shortcut for `video.onFrame`).
    public var onVideoFrame: ((DecodedVideoFrame) -> Void)? {
        get { video.onFrame }
        set { video.onFrame = newValue }
    }

    /// Decoded, recovered or concealed audio (shortcut for `audio.onAudio`).
    public var onAudio: ((AudioFrame, ReceivedAudioKind) -> Void)? {
        get { audio.onAudio }
        set { audio.onAudio = newValue }
    }

    /// Reads every datagram the transport has, waiting at most `timeoutMilliseconds` for the first
    /// (at most 1024 per call). Returns how many were handled.
    public func poll(timeoutMilliseconds: Int32) throws(NetworkError) -> Int {
        guard let transport else { return 0 }
        return try UDPSocket.drain(timeoutMilliseconds: timeoutMilliseconds) { timeout throws(NetworkError) in
            var buffer = receiveBuffers.take()
            defer { receiveBuffers.giveBack(buffer) }
            guard let received = try transport.receive(into: &buffer, timeoutMilliseconds: timeout) else { return false }
            handle(&buffer, length: received.count, from: received.from)
            return true
        }
    }

    /// Polls, then services the timers.
    @discardableResult
    public func step(timeoutMilliseconds: Int32) throws(NetworkError) -> Int {
        let handled = try poll(timeoutMilliseconds: timeoutMilliseconds)
        service()
        return handled
    }

    /// Handles one datagram from an outside source (e.g. an in-memory transport).
    /// The datagram is copied once, into a receive buffer (as a socket's receive would).
    public func handle(datagram: some Collection<UInt8>, from source: NetworkEndpoint?) {
        let count = datagram.count
        guard count <= Self.maximumDatagramSize else {
            counters.datagramsReceived += 1
            counters.malformedDatagrams += 1
            return
        }
        var buffer = receiveBuffers.take()
        let copied: Void? = datagram.withContiguousStorageIfAvailable { source in
            guard let from = source.baseAddress else { return }  // empty
            buffer.withUnsafeMutableBufferPointer { $0.baseAddress?.update(from: from, count: count) }
        }
        if copied == nil { buffer.replaceSubrange(0..<count, with: datagram) }  // same length: in place
        handle(&buffer, length: count, from: source)
        receiveBuffers.giveBack(buffer)
    }

    /// Handles the datagram in `buffer[0..<length]`: unprotected in place, then parsed as a view.
    private func handle(_ buffer: inout [UInt8], length: Int, from source: NetworkEndpoint?) {
        counters.datagramsReceived += 1
        let now = clock.monotonicMicroseconds()
        guard let kind = try? RTPOrRTCP.classify(buffer[0..<length]) else {
            counters.malformedDatagrams += 1
            return
        }
        let plainLength: Int
        do {
            plainLength = try security.unprotect(&buffer, length: length, kind: kind)
        } catch {
            counters.srtpFailures += 1
            return
        }
        // Packets from anyone but the sender are dropped (with SRTP they would not pass anyway;
        // in plaintext mode this keeps a stranger from resetting the stream or taking our RTCP).
        switch kind {
        case .rtp:
            handleRTP(buffer[0..<plainLength], from: source, now: now)
        case .rtcp:
            if let source, source != mediaSource.peer, source != configuration.senderRTCPEndpoint {
                counters.foreignSourceDatagrams += 1
                return
            }
            handleRTCP(buffer[0..<plainLength], now: now)
        }
    }

    /// One plain RTP packet, read through a zero-copy view (RFC 3550 §5.1): the packet handed on
    /// carries the fixed header and a slice of the receive buffer as its payload; the extensions
    /// this stage reads (transport-wide sequence number, audio level) are read from the view.
    private func handleRTP(_ bytes: ArraySlice<UInt8>, from source: NetworkEndpoint?, now: Int64) {
        let view: RTPPacketView
        do {
            view = try RTPPacketView(bytes)
            try view.validateExtensions()
        } catch {
            counters.malformedDatagrams += 1
            return
        }
        let payloadType = view.payloadType
        guard payloadType == configuration.videoPayloadType || payloadType == configuration.audioPayloadType else {
            counters.unknownPayloadTypePackets += 1
            return
        }
        // Only a parseable packet of a negotiated payload type may pin or move the sender's address.
        if let source, !mediaSource.admit(source) {
            counters.foreignSourceDatagrams += 1
            return
        }
        if transportFeedback.isEnabled, let sequence = try? view.extensionValue(TransportSequenceNumber.self, map: extensionMap) {
            transportFeedback.arrived(sequence, arrivalMicroseconds: now)
        }
        // Padding only (RFC 3550 §5.1; a sender probing the link): it counted for the feedback
        // above and carries nothing for the receivers.
        if view.payloadRange.isEmpty, view.paddingLength > 0 {
            counters.paddingPackets += 1
            return
        }
        let packet = RTPPacket(header: RTPHeader(marker: view.marker, payloadType: payloadType,
                                                 sequenceNumber: view.sequenceNumber, timestamp: view.timestamp,
                                                 ssrc: view.ssrc),
                               payload: view.payload, paddingLength: view.paddingLength)
        let length = bytes.count
        switch payloadType {
        case configuration.videoPayloadType:
            video.receive(packet, wireBytes: length, arrivalMicroseconds: now)
        case configuration.audioPayloadType:
            if let onAudioLevel, view.hasExtension {
                do {
                    if let level = try view.extensionValue(AudioLevel.self, map: extensionMap) {
                        onAudioLevel(ReceivedAudioLevel(ssrc: packet.header.ssrc, sequenceNumber: packet.header.sequenceNumber,
                                                        level: level, arrivalMicroseconds: now))
                    }
                } catch {
                    audioLevelsMalformed += 1
                }
            }
            guard let frameOpener else {
                audio.receive(packet, arrivalMicroseconds: now)
                return
            }
            do {
                let plaintext = try frameOpener.openAudio(packet.payload, nowMilliseconds: now / 1000)
                audio.receive(RTPPacket(header: packet.header, payload: plaintext), arrivalMicroseconds: now)
            } catch {
                counters.audioUndecryptable += 1
            }
        default:
            counters.unknownPayloadTypePackets += 1
        }
    }

    private func handleRTCP(_ bytes: ArraySlice<UInt8>, now: Int64) {
        guard let compound = try? RTCPCompoundPacket(parsing: bytes) else {
            counters.malformedDatagrams += 1
            return
        }
        counters.rtcpPacketsReceived += 1
        for packet in compound.packets {
            if case let .senderReport(report) = packet {
                video.receiveSenderReport(report, arrivalMicroseconds: now)
                audio.receiveSenderReport(report, arrivalMicroseconds: now)
            }
        }
    }

    /// Runs the timers at the clock's current time: releases jitter-buffer packets whose gap has
    /// waited long enough, and sends an RTCP compound packet if feedback (NACK, PLI) is due or the
    /// report interval has passed.
    public func service() {
        let now = clock.monotonicMicroseconds()
        if let transport, let peer = configuration.senderRTCPEndpoint ?? mediaSource.peer {
            video.requestsRetransmissions = !transport.isReliableStream(to: peer)
        }
        video.process(nowMicroseconds: now)
        feedback.removeAll(keepingCapacity: true)
        video.collectFeedback(nowMicroseconds: now, into: &feedback)
        if let mediaSSRC = video.mediaSSRC ?? audio.mediaSSRC,
           let report = transportFeedback.feedback(senderSSRC: configuration.localSSRC, mediaSSRC: mediaSSRC, nowMicroseconds: now) {
            feedback.append(report)
        }
        let reportDue = reportSchedule.isDue(ssrc: configuration.localSSRC, now: now)
        guard !feedback.isEmpty || reportDue else { return }
        guard video.mediaSSRC != nil || audio.mediaSSRC != nil else { return }
        var blocks: [ReportBlock] = []
        if reportDue {
            reportSchedule.reported(ssrc: configuration.localSSRC, now: now)
            if let block = video.makeReportBlock(nowMicroseconds: now) { blocks.append(block) }
            if let block = audio.makeReportBlock(nowMicroseconds: now) { blocks.append(block) }
            if let remb = video.makeREMB(nowMicroseconds: now) { feedback.append(.receiverEstimatedMaxBitrate(remb)) }
        }
        // RFC 3550 §6.1: a compound packet starts with a report (an empty RR between reports).
        send(ReportCompound.receiverReport(localSSRC: configuration.localSSRC, blocks: blocks, cname: configuration.cname,
                                           feedback: feedback))
    }

    /// When `service()` next has work though nothing arrived (monotonic µs; `Int64.max`: none):
    /// the video receiver's jitter-buffer release, NACK retry and key-frame request
    /// (`VideoReceiver.nextDeadlineMilliseconds`), the transport-wide feedback due, and the next
    /// receiver report (RFC 3550 §6.4.2) once a stream is known. A past deadline comes back as is.
    public func nextDeadline() -> Int64 {
        let now = clock.monotonicMicroseconds()
        var earliest = Int64.max
        if let video = video.nextDeadlineMilliseconds() { earliest = video == .min ? now : video * 1000 }
        guard video.mediaSSRC != nil || audio.mediaSSRC != nil else { return earliest }
        if let feedback = transportFeedback.nextDeadline { earliest = min(earliest, feedback == .min ? now : feedback) }
        let report = reportSchedule.nextDue(ssrc: configuration.localSSRC)
        return min(earliest, report == .min ? now : report)
    }

    private func send(_ compound: RTCPCompoundPacket) {
        let length: Int
        do {
            length = try security.protect(compound)
        } catch {
            counters.rtcpSendFailures += 1
            return
        }
        let datagram = security.output[0..<length]
        counters.rtcpPacketsSent += 1
        counters.rtcpBytesSent += Int64(length)
        if let rtcpSink {
            rtcpSink(datagram)
            return
        }
        guard let transport, let destination = configuration.senderRTCPEndpoint ?? mediaSource.peer else {
            counters.rtcpSendFailures += 1
            return
        }
        let attempt = datagram.withUnsafeBytes { buffer in
            Result { () throws(NetworkError) in try transport.send(buffer, to: destination) }
        }
        do {
            try attempt.get()
        } catch {
            counters.rtcpSendFailures += 1
        }
    }

    /// A snapshot of every counter.
    public var statistics: SubscriberStatistics {
        var snapshot = counters
        snapshot.video = video.statistics(nowMicroseconds: clock.monotonicMicroseconds())
        snapshot.audio = audio.statistics
        return snapshot
    }
}
