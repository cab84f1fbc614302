import MediaCodecs
import RTPWire
import Simulcast
import SessionCore

/// A decoded picture with the RTP facts it came from.
public struct DecodedVideoFrame: Sendable {
    /// The picture (I420).
    public var frame: VideoFrame
    /// RTP timestamp of the frame (90 kHz).
    public var rtpTimestamp: UInt32
    /// Whether it was a key frame.
    public var keyFrame: Bool
    /// The sender's wallclock of `rtpTimestamp` (µs since 1900, RFC 3550 §6.4.1), nil before
    /// the stream's first sender report; also on `frame`.
    public var senderTimeMicroseconds: Int64? { frame.senderTimeMicroseconds }
    /// VP8 PictureID, if the stream carries one.
    public var pictureID: UInt16?
    /// Temporal layer id, if the stream carries one.
    public var temporalId: UInt8?
    /// Picture width in pixels.
    public var width: Int { frame.width }
    /// Picture height in pixels.
    public var height: Int { frame.height }
}

/// The video half of the receive path for one VP8 RTP stream (ARCHITECTURE "receive"):
/// parsed RTP packet → per-SSRC `ReceiveStatistics` → `JitterBuffer` → `VP8FrameAssembler` →
/// `VP8Decoder` → `onFrame`. It also decides the feedback, each through its stage: generic NACK
/// (`NACKRequester`), PLI when the decoder cannot continue (`KeyFrameRequestGate`), the RR
/// report block (`ReceiveStatistics`) and REMB (`REMBReporter`). Transport and SRTP are the
/// `Subscriber`'s job.
///
/// Key frames: until the first key frame, and after a decoder error or a lost TL0 frame (the
/// assembler reports the next TL0 frame not decodable), complete frames are dropped and a PLI is
/// requested at every throttle interval until a key frame decodes. A complete but undecodable
/// TL1/TL2 frame is only dropped: the next TL0 frame does not need it.
///
/// Time is a parameter (microseconds on any monotonic clock). Not `Sendable`: it owns the
/// decoder; confine it to one thread or task.
public final class VideoReceiver {
    /// Settings of a video receiver.
    public struct Configuration: Sendable {
        /// SSRC this receiver uses as RTCP sender.
        public var localSSRC: UInt32
        /// RTP clock rate (90 kHz for video, RFC 7741 §4.1).
        public var clockRate: Int
        public var jitterBuffer: JitterBuffer.Configuration
        public var nack: NACKGenerator.Configuration
        public var bandwidth: BandwidthEstimator.Configuration
        /// Least time between two PLIs for the stream.
        public var keyFrameRequestIntervalMilliseconds: Int64
        /// Gap between decoded frames that counts as a freeze.
        public var freezeThresholdMilliseconds: Int64
        /// Whether assembled frames are decoded (`onFrame`). False: they only go to
        /// `onAssembledFrame` (a receiver that records what arrives, e.g. to an IVF file, without
        /// spending a decoder on it); a decodable key frame then ends a wait for one.
        public var decodes: Bool

        /// Settings; the NACK age limit follows the jitter buffer's maximum delay.
        public init(localSSRC: UInt32, clockRate: Int = 90_000,
                    jitterBuffer: JitterBuffer.Configuration = .init(),
                    nack: NACKGenerator.Configuration? = nil,
                    bandwidth: BandwidthEstimator.Configuration = .init(),
                    keyFrameRequestIntervalMilliseconds: Int64 = 300,
                    freezeThresholdMilliseconds: Int64 = 500, decodes: Bool = true) {
            self.localSSRC = localSSRC
            self.clockRate = clockRate
            self.jitterBuffer = jitterBuffer
            self.nack = nack ?? NACKGenerator.Configuration(maxAgeMilliseconds: jitterBuffer.maxDelayMilliseconds)
            self.bandwidth = bandwidth
            self.keyFrameRequestIntervalMilliseconds = keyFrameRequestIntervalMilliseconds
            self.freezeThresholdMilliseconds = freezeThresholdMilliseconds
            self.decodes = decodes
        }
    }

    /// The settings in use.
    public let configuration: Configuration
    /// Called with every decoded picture, in decode order.
    public var onFrame: ((DecodedVideoFrame) -> Void)?
    /// Called with every assembled frame handed to the decoder (before decoding, in decode
    /// order; end-to-end decrypted when `frameOpener` is set), e.g. to write what was received
    /// to an IVF file.
    public var onAssembledFrame: ((VP8AssembledFrame) -> Void)?
    /// End-to-end decryption (SFrame, RFC 9605) of each assembled frame before the decoder.
    public var frameOpener: E2EEFrameOpener?
    /// Round-trip time to the sender if known (e.g. from the signalling or transport); sets the
    /// NACK retry interval.
    public var roundTripMilliseconds: Int64?
    /// Whether gaps are asked for again with generic NACKs (RFC 4585 §6.2.1); false over a
    /// reliable stream (TCP), where a gap is a packet the sender dropped and only a key frame helps.
    public var requestsRetransmissions = true

    private let decoder: VP8Decoder
    private var ssrc: UInt32?
    private var ssrcGuard = SSRCChangeGuard()
    private var receiveStatistics: ReceiveStatistics?
    private var senderClock: SenderClock?
    private var jitterBuffer: JitterBuffer
    private var assembler = VP8FrameAssembler()
    /// Stages: NACK generation, key-frame request throttling, REMB.
    private var nack: NACKRequester
    private var keyFrameGate: KeyFrameRequestGate
    private var remb: REMBReporter
    private var freeze: FreezeDetector
    private var waitingForKeyFrame = true
    private var keyFrameRequestPending = false
    private var counters = VideoReceiverStatistics()

    /// A receiver with its own VP8 decoder.
    public init(configuration: Configuration) throws(VPXError) {
        self.configuration = configuration
        decoder = try VP8Decoder()
        jitterBuffer = JitterBuffer(configuration: configuration.jitterBuffer)
        nack = NACKRequester(configuration: configuration.nack)
        remb = REMBReporter(configuration: configuration.bandwidth)
        freeze = FreezeDetector(thresholdMilliseconds: configuration.freezeThresholdMilliseconds)
        keyFrameGate = KeyFrameRequestGate(minimumIntervalMilliseconds: configuration.keyFrameRequestIntervalMilliseconds)
    }

    /// The media SSRC being received, nil before the first packet.
    public var mediaSSRC: UInt32? { ssrc }

    /// The RFC 3550 reception statistics of the stream (loss, jitter, octets), nil before the
    /// first packet. A copy: reading it does not start a new report interval.
    public var receptionStatistics: ReceiveStatistics? { receiveStatistics }

    /// Whether complete frames are being dropped until a key frame arrives.
    public var isWaitingForKeyFrame: Bool { waitingForKeyFrame }

    /// Accepts one RTP packet (already unprotected and parsed; `packet.payload` must stay valid,
    /// i.e. be backed by an array the caller no longer mutates) that arrived at
    /// `arrivalMicroseconds`, whose RTP part was `wireBytes` long; then releases whatever the
    /// jitter buffer has ready.
    public func receive(_ packet: RTPPacket, wireBytes: Int, arrivalMicroseconds: Int64) {
        let header = packet.header
        switch ssrcGuard.admit(ssrc: header.ssrc, sequenceNumber: header.sequenceNumber) {
        case .current: break
        case .start: startStream(ssrc: header.ssrc)
        case .holdBack:
            counters.otherSSRCPackets += 1
            return
        }
        let nowMilliseconds = arrivalMicroseconds / 1000
        receiveStatistics?.record(sequenceNumber: header.sequenceNumber, rtpTimestamp: header.timestamp,
                                  arrivalMicroseconds: arrivalMicroseconds, payloadBytes: packet.payload.count)
        remb.received(bytes: wireBytes, nowMilliseconds: nowMilliseconds)
        counters.packetsReceived += 1
        counters.bytesReceived += Int64(wireBytes)
        let restarts = jitterBuffer.restarts
        let (result, sequence) = jitterBuffer.insert(packet, arrivalMilliseconds: nowMilliseconds) { [unowned self] released in
            self.assemble(released, nowMilliseconds: nowMilliseconds)
        }
        if jitterBuffer.restarts != restarts {
            // The sender's sequence numbers jumped backwards: old gaps are meaningless.
            nack.reset()
        }
        nack.received(extended: sequence, nowMilliseconds: nowMilliseconds)
        switch result {
        case .buffered:
            if waitingForKeyFrame, let next = jitterBuffer.nextToRelease, sequence > next, Self.startsKeyFrame(packet) {
                // Key-frame flush: nothing before a key frame matters to a decoder that waits for
                // one, so stop waiting for (and NACKing) the older gaps.
                jitterBuffer.skip(to: sequence)
                nack.flush(before: sequence)
                counters.keyFrameFlushes += 1
            }
        case .beforeStart: assemble(packet, nowMilliseconds: nowMilliseconds)
        case .duplicate: counters.duplicatePackets += 1
        case .late: counters.latePackets += 1
        }
        process(nowMicroseconds: arrivalMicroseconds)
    }

    /// Whether `packet` is the first packet of a VP8 key frame (S = 1, PID = 0, P bit clear).
    static func startsKeyFrame(_ packet: RTPPacket) -> Bool {
        guard let (descriptor, data) = try? VP8PayloadDescriptor.parse(packet.payload),
              descriptor.isStartOfFrame else { return false }
        return VP8PayloadHeader.isKeyFrame(data) ?? false
    }

    private func startStream(ssrc: UInt32) {
        self.ssrc = ssrc
        receiveStatistics = ReceiveStatistics(ssrc: ssrc, clockRate: configuration.clockRate)
        jitterBuffer.reset()
        assembler = VP8FrameAssembler()
        nack.reset()
        remb.restart()
        waitingForKeyFrame = true
        keyFrameRequestPending = false
        counters.ssrc = ssrc
        senderClock = nil
    }

    /// The sender's wallclock (µs since 1900) of RTP time `rtpTimestamp`, from the stream's
    /// last sender report (RFC 3550 §6.4.1); nil before one arrived.
    public func senderTime(of rtpTimestamp: UInt32) -> Int64? {
        senderClock?.microsecondsSinceEpoch(ofRTPTimestamp: rtpTimestamp)
    }

    /// Records a sender report about the stream (for LSR/DLSR).
    public func receiveSenderReport(_ report: SenderReport, arrivalMicroseconds: Int64) {
        guard report.ssrc == ssrc else { return }
        senderClock = SenderClock(report: report, clockRate: configuration.clockRate)
        receiveStatistics?.recordSenderReport(ntpTimestamp: report.ntpTimestamp, arrivalMicroseconds: arrivalMicroseconds)
    }

    /// Releases what the jitter buffer has ready at `nowMicroseconds` (packets whose gaps have
    /// waited the maximum delay), assembling and decoding the frames they complete. Call it on a
    /// timer as well as after packets (`receive` does the latter).
    public func process(nowMicroseconds: Int64) {
        let nowMilliseconds = nowMicroseconds / 1000
        jitterBuffer.release(nowMilliseconds: nowMilliseconds) { packet in
            assemble(packet, nowMilliseconds: nowMilliseconds)
        }
        if let next = jitterBuffer.nextToRelease { nack.flush(before: next) }
    }

    private func assemble(_ packet: RTPPacket, nowMilliseconds: Int64) {
        // Padding-only packets (RFC 3550 §5.1, e.g. bandwidth probes) carry no VP8 data.
        guard !packet.payload.isEmpty else { return }
        do {
            // Each completed frame is decoded before the next packet: its bytes sit in the
            // assembler's reused buffer (no allocation per frame).
            try assembler.insert(packet) { frame in decode(frame, nowMilliseconds: nowMilliseconds) }
        } catch {
            counters.malformedPackets += 1
        }
    }

    private func decode(_ frame: VP8AssembledFrame, nowMilliseconds: Int64) {
        counters.framesAssembled += 1
        let isBaseLayer = (frame.temporalId ?? 0) == 0
        guard frame.decodable, frame.keyFrame || !waitingForKeyFrame else {
            counters.framesDropped += 1
            if isBaseLayer || waitingForKeyFrame {
                waitingForKeyFrame = true
                keyFrameRequestPending = true
            }
            return
        }
        var frame = frame
        if let frameOpener {
            do {
                frame.data = try frameOpener.openVideo(frame.data, nowMilliseconds: nowMilliseconds)
            } catch {
                // Counted by the opener's receiver; nothing it refused reaches the decoder, which
                // then waits for a key frame as after a lost frame (the request is throttled).
                counters.framesUndecryptable += 1
                waitingForKeyFrame = true
                keyFrameRequestPending = true
                return
            }
        }
        onAssembledFrame?(frame)
        guard configuration.decodes else {
            if frame.keyFrame {
                waitingForKeyFrame = false
                keyFrameRequestPending = false
            }
            return
        }
        do {
            guard var picture = try decoder.decode(frame.data) else { return }
            picture.rtpTimestamp = frame.timestamp
            picture.senderTimeMicroseconds = senderTime(of: frame.timestamp)
            counters.framesDecoded += 1
            if frame.keyFrame {
                counters.keyFramesDecoded += 1
                waitingForKeyFrame = false
                keyFrameRequestPending = false
            }
            counters.frameWidth = picture.width
            counters.frameHeight = picture.height
            freeze.frameDecoded(atMilliseconds: nowMilliseconds)
            onFrame?(DecodedVideoFrame(frame: picture, rtpTimestamp: frame.timestamp, keyFrame: frame.keyFrame,
                                       pictureID: frame.pictureID, temporalId: frame.temporalId))
        } catch {
            counters.decoderErrors += 1
            waitingForKeyFrame = true
            keyFrameRequestPending = true
        }
    }

    /// Asks the sender for a key frame (RFC 4585 §6.3.1 PLI, at the next feedback the
    /// key-frame gate lets through), e.g. after the path came back from an outage.
    public func requestKeyFrame() {
        keyFrameRequestPending = true
    }

    /// Appends the feedback due at `nowMicroseconds` to `packets`: a generic NACK for the packets
    /// to request now, and a PLI if a key frame is needed and the throttle lets one through.
    public func collectFeedback(nowMicroseconds: Int64, into packets: inout [RTCPPacket]) {
        guard let ssrc else { return }
        let nowMilliseconds = nowMicroseconds / 1000
        process(nowMicroseconds: nowMicroseconds)
        if requestsRetransmissions,
           let request = nack.request(senderSSRC: configuration.localSSRC, mediaSSRC: ssrc, nowMilliseconds: nowMilliseconds,
                                      roundTripMilliseconds: roundTripMilliseconds) {
            packets.append(.genericNACK(request))
            counters.nackPacketsSent += 1
        }
        if keyFrameRequestPending, keyFrameGate.admit(ssrc, nowMilliseconds: nowMilliseconds) {
            packets.append(.pictureLossIndication(PictureLossIndication(senderSSRC: configuration.localSSRC,
                                                                        mediaSSRC: ssrc)))
            counters.keyFrameRequests += 1
        }
    }

    /// When `process`/`collectFeedback` next have work (ms; `Int64.min`: now; nil: none until a
    /// packet arrives): the jitter buffer's next release, the next NACK retry (RFC 4585 §6.2.1)
    /// while retransmissions are asked for, and the key-frame gate's next opening while a
    /// request is pending (RFC 4585 §6.3.1).
    public func nextDeadlineMilliseconds() -> Int64? {
        var earliest = jitterBuffer.nextReleaseMilliseconds
        guard let ssrc else { return earliest }
        if requestsRetransmissions, let retry = nack.nextDeadline(roundTripMilliseconds: roundTripMilliseconds) {
            earliest = min(earliest ?? .max, retry)
        }
        if keyFrameRequestPending { earliest = min(earliest ?? .max, keyFrameGate.nextAdmission(ssrc)) }
        return earliest
    }

    /// The report block for the stream at `nowMicroseconds` (starts a new fraction-lost
    /// interval), nil before the first packet.
    public func makeReportBlock(nowMicroseconds: Int64) -> ReportBlock? {
        receiveStatistics?.makeReportBlock(nowMicroseconds: nowMicroseconds)
    }

    /// Updates the bandwidth estimate with the loss since the previous call and returns a REMB
    /// for the stream, nil before the first packet.
    public func makeREMB(nowMicroseconds: Int64) -> ReceiverEstimatedMaxBitrate? {
        guard let ssrc, let stats = receiveStatistics else { return nil }
        return remb.report(stats, senderSSRC: configuration.localSSRC, mediaSSRC: ssrc, nowMilliseconds: nowMicroseconds / 1000)
    }

    /// A snapshot of the counters at `nowMicroseconds`.
    public func statistics(nowMicroseconds: Int64) -> VideoReceiverStatistics {
        var snapshot = counters
        snapshot.packetsLost = receiveStatistics?.cumulativeLost ?? 0
        snapshot.jitterMilliseconds = receiveStatistics?.jitterMilliseconds ?? 0
        snapshot.packetsGivenUp = jitterBuffer.packetsGivenUp
        snapshot.nackRequests = nack.generator.requestsSent
        snapshot.packetsRecovered = nack.generator.packetsRecovered
        let freezes = freeze.summary(nowMilliseconds: nowMicroseconds / 1000)
        snapshot.freezeCount = freezes.count
        snapshot.totalFrozenMilliseconds = freezes.totalMilliseconds
        snapshot.longestFreezeMilliseconds = freezes.longestMilliseconds
        snapshot.bandwidthEstimateBitsPerSecond = remb.estimator.estimateBitsPerSecond
        snapshot.incomingBitsPerSecond = remb.estimator.incomingBitsPerSecond(nowMilliseconds: nowMicroseconds / 1000)
        return snapshot
    }
}
