/// Why the simulcast encoder refused a call. One typed error for the encoder's whole API;
/// libvpx and libyuv failures arrive wrapped in `.codec` / `.scaling`.
public enum SimulcastEncoderError: Error, Equatable, Sendable {
    /// A layer bitrate outside `0` (pause) or `SimulcastEncoder.bitrateRangeKbps`.
    case bitrateOutOfRange(kbps: Int, allowed: ClosedRange<Int>)
    /// A layer index that is not in the plan.
    case layerOutOfRange(index: Int, layerCount: Int)
    /// A frame rate outside 1...120.
    case invalidFrameRate(Int)
    /// The input frame is not exactly the top layer's size (use `encode(scaling:)`), or
    /// caller pixels were malformed.
    case frame(VideoFrameError)
    /// libvpx failed (`vpx_codec_enc_init_multi`, `vpx_codec_control_`, `vpx_codec_encode`, …).
    case codec(VPXError)
    /// libyuv failed while scaling a layer.
    case scaling(YUVError)
}
