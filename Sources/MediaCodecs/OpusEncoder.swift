internal import COpus
internal import CShims

/// A libopus encoder for 48 kHz mono or stereo speech in 20 ms frames
/// (`opus_encoder_create` with `OPUS_APPLICATION_VOIP`; RFC 6716, RTP payload RFC 7587).
///
/// Not `Sendable`: an `OpusEncoder*` carries state from frame to frame and must not be used from
/// two threads at once. Confine an encoder to one thread, task or actor.
public final class OpusEncoder {
    /// Encoder settings, applied with `opus_encoder_ctl` at creation.
    public struct Configuration: Sendable, Equatable {
        public var channels: AudioFrame.Channels
        /// Target bitrate in bits per second, 6 000...510 000 (RFC 6716 §2.1.1); `OPUS_SET_BITRATE`.
        public var bitrate: Int
        /// In-band forward error correction (LBRR, RFC 6716 §2.1.7); `OPUS_SET_INBAND_FEC`.
        public var inbandFEC: Bool
        /// Loss the encoder should plan FEC for, 0...100 %; `OPUS_SET_PACKET_LOSS_PERC`.
        public var expectedPacketLossPercent: Int
        /// Discontinuous transmission (RFC 6716 §2.1.9); `OPUS_SET_DTX`. In DTX the encoder emits
        /// packets of at most 2 bytes, which a sender may leave unsent.
        public var dtx: Bool

        public init(channels: AudioFrame.Channels = .mono, bitrate: Int = 32_000, inbandFEC: Bool = true,
                    expectedPacketLossPercent: Int = 10, dtx: Bool = false) {
            self.channels = channels
            self.bitrate = bitrate
            self.inbandFEC = inbandFEC
            self.expectedPacketLossPercent = expectedPacketLossPercent
            self.dtx = dtx
        }
    }

    /// Bitrates libopus supports, in bits per second.
    public static let bitrateRange = 6_000...510_000
    /// Largest packet one 20 ms frame can produce: TOC byte + 1275-byte frame (RFC 6716 §3.2.1).
    /// An output buffer this big never makes `encode` fail for lack of room.
    public static let maxPacketSize = 1 + 1275

    public private(set) var configuration: Configuration
    private let encoder: OpaquePointer

    /// Creates an encoder and applies every setting, checking each libopus return code.
    public init(configuration: Configuration = Configuration()) throws(OpusError) {
        var status: Int32 = OPUS_OK
        guard let encoder = opus_encoder_create(Int32(AudioFrame.sampleRate), Int32(configuration.channels.count),
                                                OPUS_APPLICATION_VOIP, &status) else {
            try OpusError.check(status == OPUS_OK ? OPUS_ALLOC_FAIL : status)
            throw .library(code: OPUS_ALLOC_FAIL, message: "opus_encoder_create returned no encoder")
        }
        self.encoder = encoder
        self.configuration = configuration
        if status != OPUS_OK { try OpusError.check(status) }  // deinit frees the encoder
        try setBitrate(configuration.bitrate)
        try set(OPUS_SET_INBAND_FEC_REQUEST, configuration.inbandFEC ? 1 : 0)
        try setExpectedPacketLoss(percent: configuration.expectedPacketLossPercent)
        try set(OPUS_SET_DTX_REQUEST, configuration.dtx ? 1 : 0)
    }

    deinit {
        opus_encoder_destroy(encoder)
    }

    /// Changes the target bitrate (bits per second); `OPUS_SET_BITRATE`.
    public func setBitrate(_ bitsPerSecond: Int) throws(OpusError) {
        guard Self.bitrateRange.contains(bitsPerSecond) else {
            throw .invalidConfiguration("bitrate \(bitsPerSecond) outside \(Self.bitrateRange)")
        }
        try set(OPUS_SET_BITRATE_REQUEST, Int32(bitsPerSecond))
        configuration.bitrate = bitsPerSecond
    }

    /// Changes the loss rate FEC is planned for; `OPUS_SET_PACKET_LOSS_PERC`.
    public func setExpectedPacketLoss(percent: Int) throws(OpusError) {
        guard (0...100).contains(percent) else {
            throw .invalidConfiguration("expected packet loss \(percent)% outside 0...100")
        }
        try set(OPUS_SET_PACKET_LOSS_PERC_REQUEST, Int32(percent))
        configuration.expectedPacketLossPercent = percent
    }

    /// Whether the last frame was encoded in DTX (silence) mode; `OPUS_GET_IN_DTX`.
    public func isInDTX() throws(OpusError) -> Bool {
        try get(OPUS_GET_IN_DTX_REQUEST) != 0
    }

    /// The encoder's look-ahead in samples per channel (`OPUS_GET_LOOKAHEAD`): how far decoded
    /// audio lags the input.
    public func lookahead() throws(OpusError) -> Int {
        Int(try get(OPUS_GET_LOOKAHEAD_REQUEST))
    }

    /// Encodes one 20 ms frame into the first bytes of `output`, whose `count` is the room
    /// available (allocate ``maxPacketSize`` once and reuse it: nothing is allocated here).
    /// Returns the packet length. `opus_encode`. A too-small (non-empty) buffer does not fail:
    /// libopus lowers the quality to fit, down to a TOC-only packet the receiver conceals.
    public func encode(_ frame: AudioFrame, into output: inout [UInt8]) throws(OpusError) -> Int {
        guard frame.channels == configuration.channels else {
            throw .wrongChannelCount(expected: configuration.channels.count, actual: frame.channels.count)
        }
        let channels = configuration.channels.count
        guard frame.samples.count == AudioFrame.samplesPerChannel20ms * channels else {
            throw .wrongFrameSize(expected: AudioFrame.samplesPerChannel20ms,
                                  actual: frame.samples.count / channels)
        }
        let encoder = self.encoder
        let code = frame.samples.withUnsafeBufferPointer { pcm in
            output.withUnsafeMutableBufferPointer { packet -> Int32 in
                guard let samples = pcm.baseAddress, let data = packet.baseAddress else { return OPUS_BUFFER_TOO_SMALL }
                return opus_encode(encoder, samples, Int32(AudioFrame.samplesPerChannel20ms),
                                   data, Int32(clamping: packet.count))
            }
        }
        return try OpusError.check(code)
    }

    /// Encodes one 20 ms frame into a new array holding exactly the packet.
    public func encode(_ frame: AudioFrame) throws(OpusError) -> [UInt8] {
        var packet = [UInt8](repeating: 0, count: Self.maxPacketSize)
        let length = try encode(frame, into: &packet)
        packet.removeLast(packet.count - length)
        return packet
    }

    private func set(_ request: Int32, _ value: Int32) throws(OpusError) {
        try OpusError.check(cshim_opus_encoder_ctl_set(encoder, request, value))
    }

    private func get(_ request: Int32) throws(OpusError) -> Int32 {
        var value: Int32 = 0
        try OpusError.check(cshim_opus_encoder_ctl_get(encoder, request, &value))
        return value
    }
}

@available(*, unavailable, message: "an Opus encoder is stateful; confine it to one thread or actor")
extension OpusEncoder: Sendable {}
