import MediaCodecs
import EngineCore
import RTPWire
import SRTP
import Simulcast

/// What `simulcast-bench forward` replays: a real publisher's plain RTP for a whole number of
/// seconds' worth of frames (`Publisher` with its `SimulcastEncoder` over the built-in test scene,
/// L1T3 on every layer, plus an Opus mic track from `TestSignal`), recorded once in memory.
///
/// Replayed round after round as ONE continuous stream: round `k` moves every sequence number,
/// RTP timestamp, PictureID and TL0PICIDX on by `k` times what one round spans, so the node
/// sees no gap, no reordering and no replay (which SRTP would refuse). Each round starts with
/// the recording's first frame, a key frame on every layer.
struct ForwardRecording {
    /// One recorded packet (plain RTP, as the publisher's `RTPStreamSender` built it).
    struct Packet {
        var bytes: [UInt8]
        var ssrc: UInt32
        /// Spatial layer; nil for audio.
        var layer: Int?
        /// Media time of its frame since the recording's start.
        var mediaMicroseconds: Int64
        var sequenceNumber: UInt16
        var timestamp: UInt32
        /// Where its VP8 payload descriptor starts, and the fields in it (video only).
        var descriptorOffset = 0
        var pictureID: UInt16?
        var tl0PicIdx: UInt8?
    }

    /// How far one round moves one stream's counters.
    struct Step {
        var sequenceNumber: UInt16 = 0
        var timestamp: UInt32 = 0
        var pictureID: UInt16 = 0
        var tl0PicIdx: UInt8 = 0
    }

    let plan: LayerPlan
    let videoSSRCs: [UInt32]
    let audioSSRC: UInt32
    let frames: Int
    let packets: [Packet]
    let durationMicroseconds: Int64
    /// Per SSRC.
    let steps: [UInt32: Step]

    static let frameRate = 30

    /// Records `frames` video frames (rounded up to a multiple of 12: whole L1T3 patterns and
    /// whole 20 ms audio frames) of a `width`x`height` publication.
    init(width: Int, height: Int, frames requested: Int) throws {
        frames = (max(12, requested) + 11) / 12 * 12
        let plan = try LayerPlan(width: width, height: height)
        let videoSSRCs = plan.layers.indices.map { 0x0B00_0000 + UInt32($0) }
        let audioSSRC: UInt32 = 0x0A00_0001
        let duration = Int64(frames) * 1_000_000 / Int64(Self.frameRate)
        self.plan = plan
        self.videoSSRCs = videoSSRCs
        self.audioSSRC = audioSSRC
        durationMicroseconds = duration
        let transport = MemoryTransport()
        let publisher = try Publisher(
            configuration: PublisherConfiguration(video: VideoTrackConfiguration(plan: plan, ssrcs: videoSSRCs),
                                                  audio: AudioTrackConfiguration(ssrc: audioSSRC),
                                                  security: .insecure, rembPolicy: .ignore),
            transport: transport, routing: PublisherRouting(destination: .loopback(port: 5006)))
        let source = try VideoSource(testSceneWidth: plan.top.width, height: plan.top.height)
        let signal = TestSignal()

        var recorded: [Packet] = []
        var taken = 0
        func take(at media: Int64) throws {
            for datagram in transport.sent[taken...] {
                guard (try? RTPOrRTCP.classify(datagram.bytes[...])) == .rtp else { continue }  // sender reports
                recorded.append(try Self.describe(datagram.bytes, at: media, videoSSRCs: videoSSRCs))
            }
            taken = transport.sent.count
        }
        var audioFrame = 0
        for index in 0..<frames {
            let media = Int64(index) * 1_000_000 / Int64(Self.frameRate)
            while Int64(audioFrame) * 20_000 <= media {
                try publisher.send(audio: signal.frame(audioFrame))
                try take(at: Int64(audioFrame) * 20_000)
                audioFrame += 1
            }
            guard let frame = try source.nextFrame() else {
                throw ValidationError(message: "the test scene ended after \(index) frames")
            }
            try publisher.send(video: frame)
            try take(at: media)
        }
        while Int64(audioFrame) * 20_000 < duration {
            try publisher.send(audio: signal.frame(audioFrame))
            try take(at: Int64(audioFrame) * 20_000)
            audioFrame += 1
        }
        packets = recorded

        var steps: [UInt32: Step] = [:]
        for ssrc in videoSSRCs + [audioSSRC] {
            let stream = recorded.filter { $0.ssrc == ssrc }
            guard let first = stream.first, let last = stream.last else {
                throw ValidationError(message: "the publisher sent nothing on SSRC \(ssrc)")
            }
            let isAudio = ssrc == audioSSRC
            let tick = isAudio ? UInt32(OpusRTP.clockRate / 50) : UInt32(90_000 / Self.frameRate)
            var step = Step(sequenceNumber: UInt16(truncatingIfNeeded: stream.count),
                            timestamp: last.timestamp &- first.timestamp &+ tick)
            if !isAudio {
                guard let firstPicture = first.pictureID, let lastPicture = last.pictureID,
                      let firstTL0 = first.tl0PicIdx, let lastTL0 = last.tl0PicIdx else {
                    throw ValidationError(message: "VP8 packets without PictureID or TL0PICIDX")
                }
                step.pictureID = (lastPicture &- firstPicture &+ 1) & 0x7FFF
                step.tl0PicIdx = lastTL0 &- firstTL0 &+ 1
            }
            steps[ssrc] = step
        }
        self.steps = steps
    }

    private static func describe(_ bytes: [UInt8], at media: Int64, videoSSRCs: [UInt32]) throws -> Packet {
        let parsed = try RTPPacket(parsing: bytes[...])
        var packet = Packet(bytes: bytes, ssrc: parsed.header.ssrc, layer: videoSSRCs.firstIndex(of: parsed.header.ssrc),
                            mediaMicroseconds: media, sequenceNumber: parsed.header.sequenceNumber,
                            timestamp: parsed.header.timestamp)
        if packet.layer != nil {
            let (descriptor, _) = try VP8PayloadDescriptor.parse(parsed.payload)
            packet.descriptorOffset = parsed.payload.startIndex - bytes.startIndex
            packet.pictureID = descriptor.pictureID?.value
            packet.tl0PicIdx = descriptor.tl0PicIdx
        }
        return packet
    }
}
