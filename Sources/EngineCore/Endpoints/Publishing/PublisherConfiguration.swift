import SessionCore
import MediaCodecs
import RTPWire
import Simulcast

/// A camera track: the layer plan and how its layers appear on the wire.
public struct VideoTrackConfiguration: Sendable {
    public var plan: LayerPlan
    /// One SSRC per layer, lightest first (`plan.layers.count` of them, all distinct).
    public var ssrcs: [UInt32]
    /// RTP payload type of VP8 (dynamic, RFC 3551 §3).
    public var payloadType: UInt8
    /// MID header extension value (RFC 8843).
    public var mid: String
    public var frameRate: Int
    /// Largest RTP payload (descriptor + data) per packet.
    public var payloadBudget: Int

    public init(plan: LayerPlan, ssrcs: [UInt32], payloadType: UInt8 = 96, mid: String = "0", frameRate: Int = 30,
                payloadBudget: Int = VP8Packetizer.defaultPayloadBudget) {
        self.plan = plan
        self.ssrcs = ssrcs
        self.payloadType = payloadType
        self.mid = mid
        self.frameRate = frameRate
        self.payloadBudget = payloadBudget
    }

    /// Layer i uses `firstSSRC + i` (wrapping).
    public init(plan: LayerPlan, firstSSRC: UInt32, payloadType: UInt8 = 96, mid: String = "0") {
        self.init(plan: plan, ssrcs: plan.layers.indices.map { firstSSRC &+ UInt32($0) }, payloadType: payloadType,
                  mid: mid)
    }

    /// Payload budgets that leave room for the RTP header and every extension within
    /// `SendPath.maximumPacketSize`.
    public static let payloadBudgetRange = (VP8Packetizer.descriptorLength + 1)...1400

    /// docs/wire-and-security.md RIDs by layer, lightest first: `q`, `h`, `f` for three layers, `q`, `f` for two,
    /// none for a single layer (nothing to tell apart).
    public static func rids(layerCount: Int) -> [String?] {
        switch layerCount {
        case 1: return [nil]
        case 2: return ["q", "f"]
        default: return Array(["q", "h", "f"].prefix(layerCount))
        }
    }
}

/// A mic track: Opus in 20 ms frames (RFC 7587) with the RFC 6464 level of each frame.
public struct AudioTrackConfiguration: Sendable {
    public var ssrc: UInt32
    public var payloadType: UInt8
    public var mid: String
    /// Encoder settings (channels, bitrate, in-band FEC, DTX).
    public var opus: OpusEncoder.Configuration

    public init(ssrc: UInt32, payloadType: UInt8 = 111, mid: String = "1",
                opus: OpusEncoder.Configuration = OpusEncoder.Configuration()) {
        self.ssrc = ssrc
        self.payloadType = payloadType
        self.mid = mid
        self.opus = opus
    }
}

/// Which layers a PLI/FIR for one video SSRC refreshes.
public enum KeyFrameRequestScope: Sendable, Equatable {
    /// A request naming ANY layer's SSRC makes the next frame a key frame on EVERY active layer,
    /// rate-limited once per track (`keyFrameRequestIntervalMilliseconds`). What an SFU that
    /// switches substreams needs when its PLI does not name the layer it switches to (Janus
    /// 1.1.2's streaming plugin always names the lowest layer's SSRC).
    case everyLayer
    /// A request refreshes only the layer whose SSRC it names, rate-limited per SSRC.
    case namedLayer
}

/// What a REMB (receiver-estimated maximum bitrate) does to the video layers.
public enum REMBPolicy: Sendable, Equatable {
    /// REMB is counted but changes nothing.
    case ignore
    /// REMB is an upper bound on the total video bitrate (`REMBLayerAllocator`): the lowest layer
    /// always flows, top layers pause (encoder bitrate 0) when the REMB cannot carry them and resume
    /// with a key frame once it carries them with `resumeHeadroom` for `resumeHoldMilliseconds`;
    /// without a REMB for `expiryMilliseconds` every layer resumes.
    case limitLayers(resumeHeadroom: Double = 1.2, resumeHoldMilliseconds: Int64 = 1000, expiryMilliseconds: Int64 = 5000)
}

/// Everything a `Publisher` needs besides its transport, clock and random source.
public struct PublisherConfiguration: Sendable {
    public var video: VideoTrackConfiguration?
    public var audio: AudioTrackConfiguration?
    public var security: PublisherSecurity
    /// SDES CNAME sent with every SR (RFC 3550 §6.5.1).
    public var cname: String
    /// Interval between sender reports per SSRC, in microseconds (0 disables reports).
    public var reportIntervalMicroseconds: Int64
    /// Key-frame requests (PLI/FIR) for one SSRC pass at most once per this many milliseconds
    /// (default 500: a flood of requests costs at most two key frames per second per layer).
    /// The rest are counted in `Publisher.keyFrameRequestsThrottled` and served together by the
    /// first frame after the interval, so a request that lands inside it is late, never lost.
    public var keyFrameRequestIntervalMilliseconds: Int64
    /// Which layers a key-frame request refreshes (and what the throttle counts per).
    public var keyFrameRequestScope: KeyFrameRequestScope
    /// What a received REMB does.
    public var rembPolicy: REMBPolicy
    /// Packets kept per SSRC for NACK answers.
    public var historyCapacity: Int
    public var extensionMap: RTPHeaderExtensionMap
    /// Send-side bandwidth estimation from transport-wide feedback (GCC): nil leaves the
    /// bitrate to REMB. With it, the estimate bounds the video like a REMB would (`rembPolicy`'s
    /// layer limits) and is in `Publisher.estimatedBitsPerSecond`.
    public var sendSideEstimation: SendSideBandwidthEstimator.Configuration?
    /// How the estimate probes for more (`ProbeController`): padding-only packets on their own
    /// SSRC (`probeSSRC`; nil: the top video SSRC + 16), which receivers count for transport-wide
    /// feedback and drop. Used with `sendSideEstimation` and a camera track.
    public var probing = ProbeController.Configuration()
    public var probeSSRC: UInt32?

    public init(video: VideoTrackConfiguration? = nil, audio: AudioTrackConfiguration? = nil,
                security: PublisherSecurity, cname: String = "simulcast-engine",
                reportIntervalMicroseconds: Int64 = 1_000_000, keyFrameRequestIntervalMilliseconds: Int64 = 500,
                keyFrameRequestScope: KeyFrameRequestScope = .everyLayer,
                rembPolicy: REMBPolicy = .limitLayers(),
                historyCapacity: Int = 512, extensionMap: RTPHeaderExtensionMap = .defaults,
                sendSideEstimation: SendSideBandwidthEstimator.Configuration? = nil) {
        self.video = video
        self.audio = audio
        self.security = security
        self.cname = cname
        self.reportIntervalMicroseconds = reportIntervalMicroseconds
        self.keyFrameRequestIntervalMilliseconds = keyFrameRequestIntervalMilliseconds
        self.keyFrameRequestScope = keyFrameRequestScope
        self.rembPolicy = rembPolicy
        self.historyCapacity = historyCapacity
        self.extensionMap = extensionMap
        self.sendSideEstimation = sendSideEstimation
    }
}
