internal import COpus
internal import CShims

/// A libopus decoder producing 48 kHz interleaved 16-bit PCM (`opus_decoder_create`).
///
/// Besides plain decoding it offers the two loss tools of RFC 6716: packet-loss concealment
/// (``concealLoss(into:)``, `opus_decode` with no data) and recovery of a lost frame from the
/// in-band FEC data of the packet that follows it (``decodeFEC(from:into:)``, `decode_fec = 1`).
///
/// Not `Sendable`: decoding is stateful. Confine a decoder to one thread, task or actor.
public final class OpusDecoder {
    /// The longest Opus packet duration, 120 ms, in samples per channel (RFC 6716 §3.2.5).
    public static let maxSamplesPerChannel = 5_760

    public let channels: AudioFrame.Channels
    private let decoder: OpaquePointer

    public init(channels: AudioFrame.Channels = .mono) throws(OpusError) {
        var status: Int32 = OPUS_OK
        guard let decoder = opus_decoder_create(Int32(AudioFrame.sampleRate), Int32(channels.count), &status) else {
            try OpusError.check(status == OPUS_OK ? OPUS_ALLOC_FAIL : status)
            throw .library(code: OPUS_ALLOC_FAIL, message: "opus_decoder_create returned no decoder")
        }
        self.decoder = decoder
        self.channels = channels
        if status != OPUS_OK { try OpusError.check(status) }  // deinit frees the decoder
    }

    deinit {
        opus_decoder_destroy(decoder)
    }

    /// Decodes `packet` into the start of `output` (interleaved; its `count` is the room, e.g.
    /// ``maxSamplesPerChannel`` × channels, reused without allocation). Returns samples per channel.
    public func decode(_ packet: [UInt8], into output: inout [Int16]) throws(OpusError) -> Int {
        guard !packet.isEmpty else { throw .library(code: OPUS_INVALID_PACKET, message: "empty packet") }
        return try run(packet, samplesPerChannel: output.count / channels.count, fec: false, output: &output)
    }

    /// Packet-loss concealment for one lost 20 ms packet: writes 960 samples per channel
    /// extrapolated from what came before. Returns samples per channel.
    public func concealLoss(into output: inout [Int16]) throws(OpusError) -> Int {
        try run(nil, samplesPerChannel: AudioFrame.samplesPerChannel20ms, fec: false, output: &output)
    }

    /// Rebuilds the 20 ms frame lost just before `nextPacket` from the FEC data `nextPacket`
    /// carries (falls back to concealment when it has none). Decode `nextPacket` itself
    /// normally afterwards. Returns samples per channel.
    public func decodeFEC(from nextPacket: [UInt8], into output: inout [Int16]) throws(OpusError) -> Int {
        guard !nextPacket.isEmpty else { throw .library(code: OPUS_INVALID_PACKET, message: "empty packet") }
        return try run(nextPacket, samplesPerChannel: AudioFrame.samplesPerChannel20ms, fec: true, output: &output)
    }

    /// Decodes one packet into a new frame.
    public func decode(_ packet: [UInt8]) throws(OpusError) -> AudioFrame {
        var pcm = [Int16](repeating: 0, count: Self.maxSamplesPerChannel * channels.count)
        let samplesPerChannel = try decode(packet, into: &pcm)
        return frame(from: pcm, samplesPerChannel: samplesPerChannel)
    }

    /// Conceals one lost 20 ms packet into a new frame.
    public func concealLoss() throws(OpusError) -> AudioFrame {
        var pcm = [Int16](repeating: 0, count: AudioFrame.samplesPerChannel20ms * channels.count)
        let samplesPerChannel = try concealLoss(into: &pcm)
        return frame(from: pcm, samplesPerChannel: samplesPerChannel)
    }

    /// Recovers the frame lost before `nextPacket` into a new frame.
    public func decodeFEC(from nextPacket: [UInt8]) throws(OpusError) -> AudioFrame {
        var pcm = [Int16](repeating: 0, count: AudioFrame.samplesPerChannel20ms * channels.count)
        let samplesPerChannel = try decodeFEC(from: nextPacket, into: &pcm)
        return frame(from: pcm, samplesPerChannel: samplesPerChannel)
    }

    private func frame(from pcm: [Int16], samplesPerChannel: Int) -> AudioFrame {
        let count = samplesPerChannel * channels.count
        // Copy out of an oversized scratch buffer so a frame kept in a queue holds only its samples.
        return AudioFrame(channels: channels, samples: count == pcm.count ? pcm : Array(pcm[..<count]))
    }

    private func run(_ packet: [UInt8]?, samplesPerChannel: Int, fec: Bool, output: inout [Int16]) throws(OpusError) -> Int {
        guard output.count >= samplesPerChannel * channels.count, samplesPerChannel > 0 else {
            throw .wrongFrameSize(expected: samplesPerChannel, actual: output.count / channels.count)
        }
        let decoder = self.decoder
        let frameSize = Int32(clamping: samplesPerChannel)
        let code = output.withUnsafeMutableBufferPointer { pcm -> Int32 in
            guard let samples = pcm.baseAddress else { return OPUS_BUFFER_TOO_SMALL }
            guard let packet else {
                return opus_decode(decoder, nil, 0, samples, frameSize, 0)
            }
            return packet.withUnsafeBufferPointer { data in
                opus_decode(decoder, data.baseAddress, Int32(clamping: data.count), samples, frameSize, fec ? 1 : 0)
            }
        }
        return try OpusError.check(code)
    }
}

@available(*, unavailable, message: "an Opus decoder is stateful; confine it to one thread or actor")
extension OpusDecoder: Sendable {}
