/// What one `EncoderCandidate` cost on this machine and what it delivered, from a short encode
/// (`EncoderAdvisor.measure`).
public struct EncoderMeasurement: Sendable, Equatable {
    /// One published layer's result.
    public struct Layer: Sendable, Equatable {
        /// The layer's size in pixels.
        public var width: Int
        public var height: Int
        /// Bitrate over the measured frames after the first (key) frame.
        public var kbps: Double
        /// Mean luma PSNR of the decoded layer (libvpx's decoder) against the scaled source, dB.
        public var psnr: Double

        /// A layer result (tests build measurements by hand to check `EncoderAdvisor.choose`).
        public init(width: Int, height: Int, kbps: Double, psnr: Double) {
            self.width = width
            self.height = height
            self.kbps = kbps
            self.psnr = psnr
        }
    }

    /// The configuration measured.
    public var candidate: EncoderCandidate
    /// Median thread CPU time per frame (`CLOCK_THREAD_CPUTIME_ID` around `vpx_codec_encode`
    /// and the layer scaling) times the frame rate: percent of one core the track costs.
    public var cpuPercentOfOneCore: Double
    /// Lightest layer first.
    public var layers: [Layer]

    /// A measurement (tests build them by hand to check `EncoderAdvisor.choose`).
    public init(candidate: EncoderCandidate, cpuPercentOfOneCore: Double, layers: [Layer]) {
        self.candidate = candidate
        self.cpuPercentOfOneCore = cpuPercentOfOneCore
        self.layers = layers
    }
}
