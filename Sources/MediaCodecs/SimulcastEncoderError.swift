/// Why the simulcast encoder refused a call. One typed error for the encoder's whole API;
/// libvpx and libyuv failures arrive wrapped in `.codec` / `.scaling`.
public enum SimulcastEncoderError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A layer bitrate outside `0` (pause) or `SimulcastEncoder.bitrateRangeKbps`.
    case bitrateOutOfRange(kbps: Int, allowed: ClosedRange<Int>)
    /// A layer index that is not in the plan.
    case layerOutOfRange(index: Int, layerCount: Int)
    /// A frame rate outside 1...120.
    case invalidFrameRate(Int)
    /// A `VP8E_SET_CPUUSED` speed outside `SimulcastEncoder.cpuUsedRange`.
    case invalidCPUUsed(Int)
    /// The input frame is not exactly the top layer's size (use `encode(scaling:)`), or
    /// caller pixels were malformed.
    case frame(VideoFrameError)
    /// libvpx failed (`vpx_codec_enc_init_multi`, `vpx_codec_control_`, `vpx_codec_encode`, …).
    case codec(VPXError)
    /// libyuv failed while scaling a layer.
    case scaling(YUVError)

    /// What was wrong, with the values involved and what is accepted.
    public var description: String {
        switch self {
        case let .bitrateOutOfRange(kbps, allowed):
            return "a layer bitrate of \(kbps) kbps is out of range: use 0 (pause) or "
                + "\(allowed.lowerBound) to \(allowed.upperBound) kbps"
        case let .layerOutOfRange(index, layerCount):
            return "layer \(index) does not exist: the plan has \(layerCount) layer(s), 0 to \(layerCount - 1)"
        case let .invalidFrameRate(rate):
            return "a frame rate of \(rate) fps is out of range: use 1 to 120"
        case let .invalidCPUUsed(value):
            return "a cpu_used (VP8E_SET_CPUUSED) of \(value) is out of range: use "
                + "\(SimulcastEncoder.cpuUsedRange.lowerBound) to \(SimulcastEncoder.cpuUsedRange.upperBound)"
        case let .frame(error): return "the encoder refused the frame: \(error)"
        case let .codec(error): return "the VP8 encoder (libvpx) failed: \(error)"
        case let .scaling(error): return "scaling a layer (libyuv) failed: \(error)"
        }
    }
}
