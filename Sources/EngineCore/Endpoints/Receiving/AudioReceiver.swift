import MediaCodecs
import RTPWire
import SessionCore

/// Counters of one `AudioReceiver`.
public struct AudioReceiverStatistics: Sendable, Equatable {
    /// The media SSRC being received, nil before the first packet.
    public var ssrc: UInt32?
    public var packetsReceived: Int64 = 0
    /// Cumulative lost per RFC 3550 A.3.
    public var packetsLost: Int64 = 0
    /// Interarrival jitter (RFC 3550 A.8) in milliseconds.
    public var jitterMilliseconds: Double = 0
    /// Packets decoded normally.
    public var framesDecoded: Int64 = 0
    /// Lost packets rebuilt from the next packet's FEC.
    public var framesRecoveredByFEC: Int64 = 0
    /// Lost packets replaced by concealment.
    public var framesConcealed: Int64 = 0
    /// Packets that arrived after their place had been concealed, or duplicates.
    public var latePackets: Int64 = 0
    /// Payloads that are not valid Opus packets (RFC 6716 §3).
    public var malformedPackets: Int64 = 0
    /// Errors reported by libopus.
    public var decoderErrors: Int64 = 0

    public init() {}
}

/// The audio half of the receive path for one Opus RTP stream (RFC 7587): parsed RTP packet →
/// `ReceiveStatistics` → `OpusDepacketizer` → `OpusDecoder` → `onAudio`, in arrival order
/// without a jitter buffer (playout buffering is the audio device's business) until someone
/// plays the stream out (`startPlayout`): from then on packets wait in an adaptive
/// `AudioJitterBuffer` and each `playOut(nowMicroseconds:)` (one per 20 ms, on the caller's
/// clock) decodes the step the buffer gives: the packet, the lost one rebuilt from the next
/// packet's in-band FEC, or concealment; nothing when the buffer is silent (not started, or
/// the stream paused). `stopPlayout` returns to arrival order.
///
/// Loss handling by sequence number: when packets are missing before the one that arrived, all
/// but the last missing one are concealed (`concealLoss`, at most `maxConcealedPerGap`; a longer
/// gap is a new talk spurt or a restart, not something to fill), the last is rebuilt from the
/// arriving packet's in-band FEC (`decodeFEC`, which itself falls back to concealment when the
/// packet has none), then the packet is decoded. Packets older than the last one played are
/// late and dropped.
///
/// Not `Sendable`: it owns the decoder.
public final class AudioReceiver {
    /// Settings of an audio receiver.
    public struct Configuration: Sendable {
        public var channels: AudioFrame.Channels
        /// Most 20 ms blocks concealed for one gap.
        public var maxConcealedPerGap: Int

        public init(channels: AudioFrame.Channels = .mono, maxConcealedPerGap: Int = 10) {
            self.channels = channels
            self.maxConcealedPerGap = max(0, maxConcealedPerGap)
        }
    }

    public let configuration: Configuration
    /// Called with every block of audio, in play order.
    public var onAudio: ((AudioFrame, ReceivedAudioKind) -> Void)?

    private let decoder: OpusDecoder
    private var ssrc: UInt32?
    private var receiveStatistics: ReceiveStatistics?
    private var unwrapper = SequenceNumberUnwrapper()
    private var nextExpected: Int64?
    private var pcm: [Int16]
    private var packetBytes: [UInt8] = []
    private var counters = AudioReceiverStatistics()
    /// While the stream is played out: its jitter buffer.
    private var jitterBuffer: AudioJitterBuffer?
    /// The last sender report of the stream: its NTP time and the RTP time it names.
    private var senderClock: SenderClock?

    public init(configuration: Configuration = Configuration()) throws(OpusError) {
        self.configuration = configuration
        decoder = try OpusDecoder(channels: configuration.channels)
        pcm = Array(repeating: 0, count: OpusDecoder.maxSamplesPerChannel * configuration.channels.count)
        packetBytes.reserveCapacity(OpusEncoder.maxPacketSize)
    }

    /// The media SSRC being received, nil before the first packet.
    public var mediaSSRC: UInt32? { ssrc }

    /// The RFC 3550 reception statistics of the stream (loss, jitter, octets), nil before the
    /// first packet. A copy: reading it does not start a new report interval.
    public var receptionStatistics: ReceiveStatistics? { receiveStatistics }

    /// Accepts one RTP packet (unprotected and parsed) that arrived at `arrivalMicroseconds`.
    public func receive(_ packet: RTPPacket, arrivalMicroseconds: Int64) {
        let header = packet.header
        if ssrc != header.ssrc {
            ssrc = header.ssrc
            receiveStatistics = ReceiveStatistics(ssrc: header.ssrc, clockRate: Int(OpusRTP.clockRate))
            unwrapper = SequenceNumberUnwrapper()
            nextExpected = nil
            counters.ssrc = header.ssrc
            senderClock = nil
            if let configuration = jitterBuffer?.configuration { jitterBuffer = AudioJitterBuffer(configuration: configuration) }
        }
        receiveStatistics?.record(sequenceNumber: header.sequenceNumber, rtpTimestamp: header.timestamp,
                                  arrivalMicroseconds: arrivalMicroseconds, payloadBytes: packet.payload.count)
        counters.packetsReceived += 1
        let sequence = unwrapper.unwrap(header.sequenceNumber)
        if jitterBuffer == nil, let expected = nextExpected, sequence < expected {
            counters.latePackets += 1
            return
        }
        do {
            _ = try OpusDepacketizer.depacketize(packet.payload)
        } catch {
            counters.malformedPackets += 1
            return
        }
        if jitterBuffer != nil {
            // Reordered packets are the buffer's to place: it judges lateness by the playout
            // point. Copied into a slot it reuses (no allocation once warm).
            let result = jitterBuffer?.insert(sequenceNumber: header.sequenceNumber, timestamp: header.timestamp,
                                              payload: packet.payload[...], arrivalMicroseconds: arrivalMicroseconds)
            if result == .late || result == .duplicate { counters.latePackets += 1 }
            return
        }
        packetBytes.removeAll(keepingCapacity: true)
        packetBytes.append(contentsOf: packet.payload)
        if let expected = nextExpected, sequence > expected {
            let missing = sequence - expected
            let concealed = min(missing - 1, Int64(configuration.maxConcealedPerGap))
            for _ in 0..<max(0, concealed) {
                run(.concealed) { decoder, pcm throws(OpusError) in try decoder.concealLoss(into: &pcm) }
            }
            let bytes = packetBytes
            run(.recoveredFromFEC) { decoder, pcm throws(OpusError) in try decoder.decodeFEC(from: bytes, into: &pcm) }
        }
        let bytes = packetBytes
        run(.decoded) { decoder, pcm throws(OpusError) in try decoder.decode(bytes, into: &pcm) }
        nextExpected = sequence + 1
    }

    private func run(_ kind: ReceivedAudioKind,
                     _ body: (OpusDecoder, inout [Int16]) throws(OpusError) -> Int) {
        guard let samples = decode(kind, body), let onAudio else { return }
        onAudio(frame(samples: samples), kind)
    }

    /// Runs one decoder call and counts it: the samples per channel it wrote into the scratch,
    /// nil when libopus failed.
    private func decode(_ kind: ReceivedAudioKind, _ body: (OpusDecoder, inout [Int16]) throws(OpusError) -> Int) -> Int? {
        let samples: Int
        do {
            samples = try body(decoder, &pcm)
        } catch {
            counters.decoderErrors += 1
            return nil
        }
        switch kind {
        case .decoded: counters.framesDecoded += 1
        case .recoveredFromFEC: counters.framesRecoveredByFEC += 1
        case .concealed: counters.framesConcealed += 1
        }
        return samples
    }

    /// The scratch's first `samples` per channel as a frame of their own: the one allocation per
    /// 20 ms handed out, made only for someone who takes it.
    private func frame(samples: Int) -> AudioFrame {
        let count = min(pcm.count, samples * configuration.channels.count)
        return AudioFrame(channels: configuration.channels, samples: Array(pcm[..<count]))
    }

    // MARK: - Playout

    /// Whether the stream is being played out through the jitter buffer.
    public var isPlayingOut: Bool { jitterBuffer != nil }

    /// The jitter buffer's counters while playing out (delay, target, steps by kind), nil otherwise.
    public var playoutStatistics: AudioJitterBufferStatistics? { jitterBuffer?.statistics }

    /// From now on packets wait in an adaptive jitter buffer for `playOut(nowMicroseconds:)`.
    /// Idempotent: a running playout keeps its buffer.
    public func startPlayout(_ configuration: AudioJitterBuffer.Configuration = .init()) {
        guard jitterBuffer == nil else { return }
        jitterBuffer = AudioJitterBuffer(configuration: configuration)
    }

    /// Back to decoding in arrival order; what waited in the buffer is dropped.
    public func stopPlayout() {
        jitterBuffer = nil
        nextExpected = nil
    }

    /// One 20 ms playout step at `nowMicroseconds`: the block to present, nil when the buffer
    /// plays silence (nothing received yet, or the stream paused) or the decoder failed
    /// (counted in `decoderErrors`), or when not playing out.
    public func playOut(nowMicroseconds: Int64) -> ReceivedAudioFrame? {
        guard let step = jitterBuffer?.nextStep(nowMicroseconds: nowMicroseconds) else { return nil }
        let audio: AudioFrame?
        let kind: ReceivedAudioKind
        switch step {
        case .silence:
            return nil
        case let .decode(payload):
            kind = .decoded
            audio = withPacketBytes(payload, as: kind) { decoder, bytes, pcm throws(OpusError) in try decoder.decode(bytes, into: &pcm) }
        case let .decodeFEC(payload):
            kind = .recoveredFromFEC
            audio = withPacketBytes(payload, as: kind) { decoder, bytes, pcm throws(OpusError) in try decoder.decodeFEC(from: bytes, into: &pcm) }
        case .conceal:
            kind = .concealed
            audio = decode(.concealed) { decoder, pcm throws(OpusError) in try decoder.concealLoss(into: &pcm) }.map(frame(samples:))
        }
        guard let audio, let rtpTimestamp = jitterBuffer?.stepTimestamp else { return nil }
        return ReceivedAudioFrame(audio: audio, kind: kind, rtpTimestamp: rtpTimestamp,
                                  senderTimeMicroseconds: senderTime(of: rtpTimestamp))
    }

    /// Copies `payload` into the reused packet scratch (no allocation once warm) and decodes it.
    private func withPacketBytes(_ payload: ArraySlice<UInt8>, as kind: ReceivedAudioKind,
                                 _ body: (OpusDecoder, [UInt8], inout [Int16]) throws(OpusError) -> Int) -> AudioFrame? {
        packetBytes.removeAll(keepingCapacity: true)
        packetBytes.append(contentsOf: payload)
        let bytes = packetBytes
        return decode(kind) { decoder, pcm throws(OpusError) in try body(decoder, bytes, &pcm) }.map(frame(samples:))
    }

    /// The sender's NTP wallclock (µs since 1900) of RTP time `rtpTimestamp`, from its last
    /// sender report (RFC 3550 §6.4.1); nil before one arrived.
    public func senderTime(of rtpTimestamp: UInt32) -> Int64? {
        senderClock?.microsecondsSinceEpoch(ofRTPTimestamp: rtpTimestamp)
    }

    /// Records a sender report about the stream (for LSR/DLSR).
    public func receiveSenderReport(_ report: SenderReport, arrivalMicroseconds: Int64) {
        guard report.ssrc == ssrc else { return }
        senderClock = SenderClock(report: report, clockRate: Int(OpusRTP.clockRate))
        receiveStatistics?.recordSenderReport(ntpTimestamp: report.ntpTimestamp, arrivalMicroseconds: arrivalMicroseconds)
    }

    /// The report block for the stream (starts a new fraction-lost interval), nil before the
    /// first packet.
    public func makeReportBlock(nowMicroseconds: Int64) -> ReportBlock? {
        receiveStatistics?.makeReportBlock(nowMicroseconds: nowMicroseconds)
    }

    /// A snapshot of the counters.
    public var statistics: AudioReceiverStatistics {
        var snapshot = counters
        snapshot.packetsLost = receiveStatistics?.cumulativeLost ?? 0
        snapshot.jitterMilliseconds = receiveStatistics?.jitterMilliseconds ?? 0
        return snapshot
    }
}
