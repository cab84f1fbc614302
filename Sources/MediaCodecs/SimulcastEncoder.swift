internal import CVPX
internal import CShims
import RTPWire
import Simulcast

/// VP8 simulcast encoder over libvpx multi-resolution encoding (docs/layer-plan.md).
///
/// One `vpx_codec_enc_init_multi` (via `cshim_vpx_codec_enc_init_multi`) covers every layer of
/// the `LayerPlan`; libvpx's contexts, configs, down-sampling factors and raw images are
/// contiguous C arrays ordered highest resolution first (libvpx walks `ctx` and `img`
/// together and encodes the lowest resolution first, reusing its motion vectors for the
/// higher ones). A single-layer plan uses `cshim_vpx_codec_enc_init`. Each input frame is one
/// `vpx_codec_encode` on context 0 with flags 0 and `VPX_DL_REALTIME`; per-layer L1T3 flags go
/// through `VP8E_SET_FRAME_FLAGS` and `VP8E_SET_TEMPORAL_LAYER_ID` first, and the output of
/// every context is drained with `vpx_codec_get_cx_data`.
///
/// Layer indices in this API are plan indices: 0 = lightest.
///
/// Screen content (`plan.content == .screen`, issue 17) changes four things, everything else is
/// the camera pipeline: libvpx's screen-content settings on every layer (`VP8E_SET_SCREEN_CONTENT_MODE`
/// 1, `VP8E_SET_STATIC_THRESHOLD` `screenStaticThreshold`, no denoiser, `VP8E_SET_CPUUSED` `defaultScreenCPUUsed`);
/// two temporal layers (L1T2, `TemporalPattern`); frames are fitted whole and centred into the
/// top layer, never upscaled (`CropRect.centredFit`), instead of centre-cropped; and a frame equal
/// to the last one encoded is not encoded (`UnchangedFrameFilter`: one keep-alive frame every
/// `screenKeepAliveSeconds`), though its time still passes (RTP timestamps stay wall-clock).
///
/// Not `Sendable`: it owns mutable C encoder state; use it from one task or thread.
public final class SimulcastEncoder {
    /// Accepted non-zero layer bitrates, kbps (0 pauses a layer).
    public static let bitrateRangeKbps = 10...20000
    /// libvpx `kf_max_dist`; the encoder forces its own key frame one frame earlier so the
    /// temporal pattern always restarts cleanly.
    public static let keyFrameMaxDistance = 3000
    /// `VP8E_SET_MAX_INTRA_BITRATE_PCT`: a key frame may use at most 3x a frame's budget.
    public static let maxIntraBitratePercent: UInt32 = 300
    /// Speeds libvpx's VP8 encoder accepts for `VP8E_SET_CPUUSED` (negative: a fixed speed of
    /// that magnitude in real-time mode, larger is faster and lower quality).
    public static let cpuUsedRange = -16...16
    /// WebRTC's real-time VP8 speed, used when no `cpuUsed` is given: -6, and -4 for layers below
    /// 352x288 (they are cheap, so they get more effort).
    public static let defaultCPUUsed = -6
    /// `VP8E_SET_CPUUSED` of screen layers when no `cpuUsed` is given. Slower than the camera's
    /// -6, measured: on the 1080p test screen at 1.5 Mbps, scrolling text kept 37-38 dB at -4 and
    /// -3 but fell to 33-34 dB at -5/-6 and 28-29 dB at -8/-12, whose motion search loses the
    /// scroll (7-10 Mbps against a 1.5 Mbps target). Only changed frames pay for it.
    public static let defaultScreenCPUUsed = -4
    /// `VP8E_SET_STATIC_THRESHOLD` of screen layers: libwebrtc's screenshare value (the camera
    /// uses 1), so blocks that barely changed are coded as static. Measured on the 1080p test
    /// screen it changes little here, since unchanged frames are skipped whole
    /// (`UnchangedFrameFilter`): against 1, about 1.5 % fewer bits while scrolling and settled
    /// text 0.3-0.4 dB softer (still 38.3 dB or more).
    public static let screenStaticThreshold: UInt32 = 100
    /// An unchanged screen is still encoded once this often, seconds, as an all-skip frame
    /// (`VP8E_SET_STATIC_THRESHOLD` raised to `keepAliveStaticThreshold` for that frame).
    public static let screenKeepAliveSeconds = 2
    /// The static threshold of a keep-alive frame: every block counts as unchanged.
    static let keepAliveStaticThreshold: UInt32 = 1 << 30
    /// A screen picture that stopped changing is encoded for this long more (sharpening it)
    /// before unchanged frames stop being sent, seconds (`UnchangedFrameFilter`).
    public static let screenRefinementSeconds = 1
    /// The largest screen capture taken (either orientation): 2560x1440.
    public static let screenCaptureMaximum = (longerEdge: 2560, shorterEdge: 1440)

    /// Cumulative share of a layer's bitrate up to each temporal layer, as the encoder splits it
    /// (`ts_target_bitrate`): 0.4 / 0.6 / 1 for a camera's L1T3, 0.4 / 1 for a screen's L1T2. A
    /// forwarder's layer selector budgets temporal layers with it.
    public static func temporalBitrateShares(of content: VideoContent) -> [Double] {
        TemporalPattern(layerCount: content == .screen ? 2 : 3).cumulativeBitratePercents.map { Double($0) / 100 }
    }

    /// Throws `.tooLarge` for a screen capture beyond `screenCaptureMaximum`.
    public static func validateScreenCapture(width: Int, height: Int) throws(VideoFrameError) {
        guard max(width, height) <= screenCaptureMaximum.longerEdge, min(width, height) <= screenCaptureMaximum.shorterEdge else {
            throw .tooLarge(width: width, height: height, maximumLongerEdge: screenCaptureMaximum.longerEdge,
                            maximumShorterEdge: screenCaptureMaximum.shorterEdge)
        }
    }

    /// The layers encoded, lightest first.
    public let plan: LayerPlan
    /// Input frames per second; sets the pts/RTP timestamp step.
    public let frameRate: Int
    /// RTP timestamp of frame 0 (90 kHz clock); frame n carries `start + n * 90000 / frameRate`.
    public let rtpTimestampStart: UInt32

    private let count: Int
    private let denoising: [Bool]
    /// `VP8E_SET_CPUUSED` for every layer; nil: `defaultCPUUsed` (-4 below 352x288).
    private let cpuUsed: Int?
    /// C arrays, index c = count - 1 - planIndex (highest resolution first).
    private let contexts: UnsafeMutablePointer<vpx_codec_ctx_t>
    private let configs: UnsafeMutablePointer<vpx_codec_enc_cfg_t>
    private let images: UnsafeMutablePointer<vpx_image_t>
    private let factors: UnsafeMutablePointer<vpx_rational_t>
    private var imagesAllocated = 0
    private var codecInitialised = false

    private struct LayerState {
        var configuredKbps: Int
        var capped = false
        /// Other reasons the layer is paused (its configured bitrate is kept for when they end).
        var pauses: Set<LayerPauseReason> = []
        var appliedKbps: Int
        var needsKeyFrame = true
        var framesSinceKey = 0
        var pattern: TemporalPattern
        var effectiveKbps: Int { capped || !pauses.isEmpty ? 0 : configuredKbps }
    }
    private var layers: [LayerState]
    private var frameIndex: Int64 = 0
    /// Frames given to libvpx. Its pts counts these, not `frameIndex`: skipped unchanged screen
    /// frames must not stretch libvpx's frame-rate estimate, or the first frame after a quiet
    /// spell (a flip, a requested key frame) would get seconds' worth of budget (a 480x270 key
    /// frame of 34 KB instead of 10 KB, more than a squeezed link's burst takes).
    private var encodedIndex: Int64 = 0
    private let scaler = Scaler()
    /// Pooled top-layer buffer for `encode(scaling:)`: allocated once, reused every frame.
    private var scaledTop: VideoFrame?
    /// Screen content: where the last fitted frame landed in `scaledTop` (its border is black).
    private var lastFit: CropRect?
    /// Screen content: skips frames equal to the last encoded one.
    private var unchangedFilter: UnchangedFrameFilter?
    /// Screen content: input frames not encoded because nothing changed (their time still passed).
    public private(set) var framesSkippedUnchanged = 0

    /// Creates and initialises the libvpx encoders for `plan`.
    /// - Parameters:
    ///   - frameRate: frames per second (1...120); sets the pts step of `vpx_codec_encode`.
    ///   - rtpTimestampStart: RTP timestamp of the first frame (inject for tests / randomise
    ///     for the wire).
    ///   - bitratesKbps: initial target per plan layer (lightest first); default: each
    ///     layer's `bitrates.targetKbps`. 0 starts a layer paused.
    ///   - denoising: `VP8E_SET_NOISE_SENSITIVITY` per plan layer (lightest first); default
    ///     `defaultDenoising(layerCount:)`. Harnesses that run one encoder per layer pass the
    ///     multi-resolution setting of that layer so both set-ups do the same work.
    ///   - cpuUsed: `VP8E_SET_CPUUSED` for every layer (`cpuUsedRange`); nil: WebRTC's choice,
    ///     `defaultCPUUsed` and -4 for layers below 352x288.
    public init(plan: LayerPlan, frameRate: Int = 30, rtpTimestampStart: UInt32 = 0,
                bitratesKbps: [Int]? = nil, denoising: [Bool]? = nil, cpuUsed: Int? = nil) throws(SimulcastEncoderError) {
        guard (1...120).contains(frameRate) else { throw .invalidFrameRate(frameRate) }
        if let cpuUsed, !Self.cpuUsedRange.contains(cpuUsed) { throw .invalidCPUUsed(cpuUsed) }
        self.cpuUsed = cpuUsed
        let initial = bitratesKbps ?? plan.layers.map(\.bitrates.targetKbps)
        guard initial.count == plan.layers.count else {
            throw .layerOutOfRange(index: initial.count, layerCount: plan.layers.count)
        }
        for kbps in initial { try Self.validate(kbps: kbps) }
        let denoising = denoising ?? (plan.content == .screen ? Array(repeating: false, count: plan.layers.count)
                                                              : Self.defaultDenoising(layerCount: plan.layers.count))
        guard denoising.count == plan.layers.count else {
            throw .layerOutOfRange(index: denoising.count, layerCount: plan.layers.count)
        }
        self.denoising = denoising
        self.plan = plan
        self.frameRate = frameRate
        self.rtpTimestampStart = rtpTimestampStart
        count = plan.layers.count
        contexts = .allocate(capacity: count)
        contexts.initialize(repeating: vpx_codec_ctx_t(), count: count)
        configs = .allocate(capacity: count)
        configs.initialize(repeating: vpx_codec_enc_cfg_t(), count: count)
        images = .allocate(capacity: count)
        images.initialize(repeating: vpx_image_t(), count: count)
        factors = .allocate(capacity: count)
        factors.initialize(repeating: vpx_rational_t(num: 1, den: 1), count: count)
        // Initialise at the plan's targets (libvpx is not created at 0 kbps), pause afterwards.
        let temporalLayers = plan.content == .screen ? 2 : 3
        layers = plan.layers.map { LayerState(configuredKbps: $0.bitrates.targetKbps, appliedKbps: $0.bitrates.targetKbps,
                                              pattern: TemporalPattern(layerCount: temporalLayers)) }
        if plan.content == .screen {
            unchangedFilter = UnchangedFrameFilter(keepAliveFrames: Self.screenKeepAliveSeconds * frameRate,
                                                   refinementFrames: Self.screenRefinementSeconds * frameRate)
        }
        do {
            try setUpCodec()
        } catch {
            throw .codec(error)
        }
        for (index, kbps) in initial.enumerated() {
            try setBitrate(kbps: kbps, forLayer: index)
        }
    }

    deinit {
        if codecInitialised {
            for c in 0..<count { _ = vpx_codec_destroy(contexts + c) }
        }
        // Image 0 only wraps caller memory; images 1... own their buffers (vpx_img_alloc).
        if imagesAllocated > 1 {
            for c in 1..<imagesAllocated { vpx_img_free(images + c) }
        }
        contexts.deallocate()
        configs.deallocate()
        images.deallocate()
        factors.deallocate()
    }

    private func contextIndex(_ planIndex: Int) -> Int { count - 1 - planIndex }

    /// WebRTC's choice: the temporal denoiser runs on every layer but the lowest of a simulcast
    /// set, and on the only layer of a single-layer plan (lightest first).
    public static func defaultDenoising(layerCount: Int) -> [Bool] {
        layerCount == 1 ? [true] : (0..<layerCount).map { $0 > 0 }
    }

    private func setUpCodec() throws(VPXError) {
        for planIndex in 0..<count {
            let c = contextIndex(planIndex)
            let spec = plan.layers[planIndex]
            let cfg = configs + c
            try VPXError.check(vpx_codec_enc_config_default(vpx_codec_vp8_cx(), cfg, 0),
                               call: "vpx_codec_enc_config_default")
            Self.configure(cfg, width: spec.width, height: spec.height, kbps: spec.bitrates.targetKbps,
                           temporal: layers[planIndex].pattern)
            // dsf[c] = width[c] / width[c + 1]: the factor from this layer down to the next
            // lower one (libvpx's encoder c uses its own factor to map onto the lower layer's
            // macroblocks; the lowest layer's factor is unused and stays 1/1).
            if c + 1 < count {
                let lower = plan.layers[planIndex - 1]
                let g = Self.gcd(spec.width, lower.width)
                factors[c] = vpx_rational_t(num: Int32(spec.width / g), den: Int32(lower.width / g))
            }
            if c == 0 {
                // The top image only carries the header: its planes point at the input frame
                // during each vpx_codec_encode call.
                let dummy = UnsafeMutableRawPointer(images).assumingMemoryBound(to: UInt8.self)
                guard vpx_img_wrap(images, VPX_IMG_FMT_I420, UInt32(spec.width), UInt32(spec.height),
                                   1, dummy) != nil
                else { throw VPXError(rawValue: VPXError.memoryError.rawValue, call: "vpx_img_wrap", detail: nil) }
            } else {
                guard vpx_img_alloc(images + c, VPX_IMG_FMT_I420, UInt32(spec.width), UInt32(spec.height),
                                    32) != nil
                else { throw VPXError(rawValue: VPXError.memoryError.rawValue, call: "vpx_img_alloc", detail: nil) }
            }
            // c runs from count - 1 down to 0: the first image allocated already has the highest
            // index deinit must free. (Images not allocated yet are zeroed: vpx_img_free ignores them.)
            imagesAllocated = max(imagesAllocated, c + 1)
        }
        if count == 1 {
            try VPXError.check(cshim_vpx_codec_enc_init(contexts, configs, 0),
                               call: "vpx_codec_enc_init", context: contexts)
        } else {
            try VPXError.check(cshim_vpx_codec_enc_init_multi(contexts, configs, Int32(count), 0, factors),
                               call: "vpx_codec_enc_init_multi", context: contexts)
        }
        codecInitialised = true
        for planIndex in 0..<count {
            let ctx = contexts + contextIndex(planIndex)
            let spec = plan.layers[planIndex]
            let small = spec.width * spec.height < 352 * 288
            let screen = plan.content == .screen
            let speed = cpuUsed ?? (screen ? Self.defaultScreenCPUUsed : small ? -4 : Self.defaultCPUUsed)
            try control(ctx, VP8E_SET_CPUUSED, int: Int32(speed))
            try control(ctx, VP8E_SET_STATIC_THRESHOLD, uint: screen ? Self.screenStaticThreshold : 1)
            // 1, not 2: mode 2 lets libvpx drop frames after an overshoot, which would hold back a
            // slide flip; the change-driven frame rate already spends nothing on a static screen.
            if screen { try control(ctx, VP8E_SET_SCREEN_CONTENT_MODE, uint: 1) }
            try control(ctx, VP8E_SET_TOKEN_PARTITIONS, int: Int32(VP8_ONE_TOKENPARTITION.rawValue))
            try control(ctx, VP8E_SET_NOISE_SENSITIVITY, int: denoising[planIndex] ? 1 : 0)
            try control(ctx, VP8E_SET_MAX_INTRA_BITRATE_PCT, uint: Self.maxIntraBitratePercent)
        }
    }

    /// The WebRTC-like real-time settings shared with the C reference harness.
    private static func configure(_ cfg: UnsafeMutablePointer<vpx_codec_enc_cfg_t>, width: Int, height: Int,
                                  kbps: Int, temporal: TemporalPattern) {
        cfg.pointee.g_w = UInt32(width)
        cfg.pointee.g_h = UInt32(height)
        cfg.pointee.g_timebase = vpx_rational_t(num: 1, den: 90000)
        cfg.pointee.g_threads = 1
        cfg.pointee.g_lag_in_frames = 0
        cfg.pointee.g_error_resilient = vpx_codec_er_flags_t(VPX_ERROR_RESILIENT_DEFAULT)
        cfg.pointee.rc_end_usage = VPX_CBR
        cfg.pointee.rc_dropframe_thresh = 0
        cfg.pointee.rc_resize_allowed = 0
        cfg.pointee.rc_min_quantizer = 2
        cfg.pointee.rc_max_quantizer = 56
        cfg.pointee.rc_undershoot_pct = 100
        cfg.pointee.rc_overshoot_pct = 15
        cfg.pointee.rc_buf_initial_sz = 500
        cfg.pointee.rc_buf_optimal_sz = 600
        cfg.pointee.rc_buf_sz = 1000
        cfg.pointee.kf_mode = VPX_KF_AUTO
        cfg.pointee.kf_max_dist = UInt32(keyFrameMaxDistance)
        cfg.pointee.ts_number_layers = UInt32(temporal.layerCount)
        cfg.pointee.ts_periodicity = UInt32(temporal.periodicity)
        withUnsafeMutableBytes(of: &cfg.pointee.ts_layer_id) { raw in
            let ids = raw.bindMemory(to: UInt32.self)
            for (position, id) in temporal.layerIds.enumerated() { ids[position] = id }
        }
        withUnsafeMutableBytes(of: &cfg.pointee.ts_rate_decimator) { raw in
            let d = raw.bindMemory(to: UInt32.self)
            for (layer, decimator) in temporal.rateDecimators.enumerated() { d[layer] = decimator }
        }
        setBitrate(cfg, kbps: kbps, temporal: temporal)
    }

    /// `rc_target_bitrate` and the cumulative temporal split (`TemporalPattern.cumulativeBitratePercents`:
    /// 40% / 60% / 100% for L1T3, 40% / 100% for L1T2).
    private static func setBitrate(_ cfg: UnsafeMutablePointer<vpx_codec_enc_cfg_t>, kbps: Int, temporal: TemporalPattern) {
        cfg.pointee.rc_target_bitrate = UInt32(kbps)
        withUnsafeMutableBytes(of: &cfg.pointee.ts_target_bitrate) { raw in
            let t = raw.bindMemory(to: UInt32.self)
            for (layer, percent) in temporal.cumulativeBitratePercents.enumerated() { t[layer] = UInt32(kbps * percent / 100) }
        }
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }

    private func control(_ ctx: UnsafeMutablePointer<vpx_codec_ctx_t>, _ id: vp8e_enc_control_id,
                         int value: Int32) throws(VPXError) {
        try VPXError.check(cshim_vpx_codec_control_int(ctx, Int32(id.rawValue), value),
                           call: "vpx_codec_control_(\(id.rawValue))", context: ctx)
    }

    private func control(_ ctx: UnsafeMutablePointer<vpx_codec_ctx_t>, _ id: vp8e_enc_control_id,
                         uint value: UInt32) throws(VPXError) {
        try VPXError.check(cshim_vpx_codec_control_uint(ctx, Int32(id.rawValue), value),
                           call: "vpx_codec_control_(\(id.rawValue))", context: ctx)
    }

    // MARK: - Rate control and layer state

    private static func validate(kbps: Int) throws(SimulcastEncoderError) {
        guard kbps == 0 || bitrateRangeKbps.contains(kbps) else {
            throw .bitrateOutOfRange(kbps: kbps, allowed: bitrateRangeKbps)
        }
    }

    private func checkLayer(_ index: Int) throws(SimulcastEncoderError) {
        guard plan.layers.indices.contains(index) else {
            throw .layerOutOfRange(index: index, layerCount: count)
        }
    }

    /// Sets a layer's target bitrate (`rc_target_bitrate` + `ts_target_bitrate`, applied with
    /// `vpx_codec_enc_config_set` on that layer's context). 0 pauses the layer without
    /// re-initialising: libvpx multi-res skips a stream whose target is 0. A paused layer that
    /// resumes starts with a key frame on that layer only.
    public func setBitrate(kbps: Int, forLayer index: Int) throws(SimulcastEncoderError) {
        try checkLayer(index)
        try Self.validate(kbps: kbps)
        layers[index].configuredKbps = kbps
        try applyEffectiveBitrate(index)
    }

    /// The bitrate last set for a layer (before any cap), kbps.
    public func targetBitrateKbps(forLayer index: Int) throws(SimulcastEncoderError) -> Int {
        try checkLayer(index)
        return layers[index].configuredKbps
    }

    /// Applies a publisher quality cap (docs/sending-caps.md) via `LayerPlan.activeLayerIndices(cap:)`:
    /// layers above the cap are paused (target 0), layers within it get their configured
    /// bitrate back (with a key frame if they were paused).
    public func apply(cap: VideoQuality) throws(SimulcastEncoderError) {
        let active = Set(plan.activeLayerIndices(cap: cap))
        for index in 0..<count {
            layers[index].capped = !active.contains(index)
            try applyEffectiveBitrate(index)
        }
    }

    /// Pauses or resumes a layer for one `reason`, keeping its configured bitrate: the layer runs
    /// only while no reason (and no cap) holds it, and a resumed layer starts with a key frame.
    /// Independent reasons (dynaCast, a REMB limit) can therefore never undo each other.
    public func setPaused(_ paused: Bool, layer index: Int, reason: LayerPauseReason) throws(SimulcastEncoderError) {
        try checkLayer(index)
        if paused {
            layers[index].pauses.insert(reason)
        } else {
            layers[index].pauses.remove(reason)
        }
        try applyEffectiveBitrate(index)
    }

    /// Whether the quality cap (`apply(cap:)`) stops layer `index`.
    public func isCapped(layer index: Int) -> Bool {
        layers.indices.contains(index) && layers[index].capped
    }

    /// Whether `reason` currently pauses layer `index`.
    public func isPaused(layer index: Int, reason: LayerPauseReason) -> Bool {
        layers.indices.contains(index) && layers[index].pauses.contains(reason)
    }

    /// Plan indices of the layers currently producing output (non-zero effective bitrate).
    public var activeLayerIndices: [Int] {
        layers.indices.filter { layers[$0].effectiveKbps > 0 }
    }

    /// Makes the next frame a key frame on every active layer (and on paused layers when they
    /// resume).
    public func requestKeyFrame() {
        for index in layers.indices { layers[index].needsKeyFrame = true }
    }

    /// Makes the next frame a key frame on layer `index` only (plan index, lightest first). A
    /// layer index outside the plan is ignored (request handlers pass values from the wire).
    public func requestKeyFrame(forLayer index: Int) {
        guard layers.indices.contains(index) else { return }
        layers[index].needsKeyFrame = true
    }

    private func applyEffectiveBitrate(_ index: Int) throws(SimulcastEncoderError) {
        let kbps = layers[index].effectiveKbps
        guard kbps != layers[index].appliedKbps else { return }
        if layers[index].appliedKbps == 0 { layers[index].needsKeyFrame = true }
        let c = contextIndex(index)
        Self.setBitrate(configs + c, kbps: kbps, temporal: layers[index].pattern)
        do {
            try VPXError.check(vpx_codec_enc_config_set(contexts + c, configs + c),
                               call: "vpx_codec_enc_config_set", context: contexts + c)
        } catch {
            throw .codec(error)
        }
        layers[index].appliedKbps = kbps
    }

    // MARK: - Encoding

    /// Encodes one frame of exactly the top layer's size on every active layer.
    /// - Returns: the encoded frames, lightest layer first (none for paused layers).
    /// - Throws: `.frame(.sizeMismatch…)` for any other size (see `encode(scaling:)`).
    public func encode(_ frame: VideoFrame) throws(SimulcastEncoderError) -> [EncodedFrame] {
        var out: [EncodedFrame] = []
        out.reserveCapacity(count)
        try encode(frame) { out.append($0) }
        return out
    }

    /// Encodes one top-layer-size frame, handing each layer's output to `output` (lightest
    /// first) instead of collecting an array.
    public func encode(_ frame: VideoFrame, output: (EncodedFrame) -> Void) throws(SimulcastEncoderError) {
        let top = plan.top
        guard frame.width == top.width, frame.height == top.height else {
            throw .frame(.sizeMismatch(expectedWidth: top.width, expectedHeight: top.height,
                                       width: frame.width, height: frame.height))
        }
        try frame.withUnsafePlanes { (planes) throws(SimulcastEncoderError) in
            try encodePlanes(planes, output: output)
        }
    }

    /// Centre-crops and scales a frame of any size into a pooled top-layer buffer (allocated
    /// once, reused every frame), then encodes it. Screen content is fitted whole instead
    /// (`CropRect.centredFit`, never upscaled) and must be at most `screenCaptureMaximum`.
    public func encode(scaling frame: VideoFrame) throws(SimulcastEncoderError) -> [EncodedFrame] {
        var out: [EncodedFrame] = []
        try encode(scaling: frame) { out.append($0) }
        return out
    }

    /// `encode(scaling:)` with a per-layer callback.
    public func encode(scaling frame: VideoFrame, output: (EncodedFrame) -> Void) throws(SimulcastEncoderError) {
        let screen = plan.content == .screen
        if screen {
            do {
                try Self.validateScreenCapture(width: frame.width, height: frame.height)
            } catch {
                throw .frame(error)
            }
        }
        if frame.width == plan.top.width && frame.height == plan.top.height {
            try encode(frame, output: output)
            return
        }
        var buffer = scaledTop ?? VideoFrame(unchecked: plan.top.width, height: plan.top.height)
        scaledTop = nil  // keep the storage uniquely referenced while we write into it
        do {
            if screen {
                lastFit = try scaler.fit(frame, into: &buffer, previousFit: lastFit)
            } else {
                try scaler.scale(frame, into: &buffer)
            }
        } catch {
            scaledTop = buffer
            throw .scaling(error)
        }
        defer { scaledTop = buffer }
        try encode(buffer, output: output)
    }

    /// An optional clock (nanoseconds) read around the layer-to-layer downscaling of each frame,
    /// so a benchmark can split a frame's cost into scaling and encoding. Nil: no clock is read.
    public var phaseClock: (() -> Int64)?
    /// Time the last `encode` spent downscaling layer to layer, by `phaseClock` (0 without one).
    public private(set) var lastScalingNanoseconds: Int64 = 0

    /// Identity of the pooled top-layer buffer used by `encode(scaling:)` (tests check reuse).
    var scaledTopStorageIdentity: UnsafeRawPointer? { scaledTop?.storageIdentity }
    /// Identities of libvpx's per-layer image buffers (highest first; index 0 is the input).
    var layerImageIdentities: [UnsafeRawPointer?] {
        (0..<count).map { UnsafeRawPointer(images[$0].planes.0) }
    }

    private func encodePlanes(_ input: ConstPlanes, output: (EncodedFrame) -> Void) throws(SimulcastEncoderError) {
        var keepAlive = false, baseLayerOnly = false
        if unchangedFilter != nil {
            let keyFrameDue = layers.contains { $0.appliedKbps > 0 && ($0.needsKeyFrame || $0.framesSinceKey >= Self.keyFrameMaxDistance - 1) }
            switch unchangedFilter!.decide(input, keyFrameDue: keyFrameDue) {
            case .skip:
                frameIndex += 1
                framesSkippedUnchanged += 1
                return
            case .keepAlive: (keepAlive, baseLayerOnly) = (true, true)
            case .refine: baseLayerOnly = true
            case .encode: break
            }
            unchangedFilter!.encoded(input)
        }
        if keepAlive {
            // Every block of an unchanged, refined picture counts as static: an all-skip frame.
            try setStaticThreshold(Self.keepAliveStaticThreshold)
        }
        // Restored on every path out (an encode that throws too); a failure to restore surfaces
        // at the next keep-alive's set, which throws.
        defer { if keepAlive { try? setStaticThreshold(Self.screenStaticThreshold) } }
        // Point image 0 at the caller's frame (no copy); valid for this call only.
        images[0].planes.0 = UnsafeMutablePointer(mutating: input.y)
        images[0].planes.1 = UnsafeMutablePointer(mutating: input.u)
        images[0].planes.2 = UnsafeMutablePointer(mutating: input.v)
        images[0].stride.0 = Int32(input.strideY)
        images[0].stride.1 = Int32(input.strideU)
        images[0].stride.2 = Int32(input.strideV)
        // Downscale layer to layer (box filter) into the preallocated images.
        let scalingStart = phaseClock?() ?? 0
        for c in 1..<max(1, count) {
            do {
                try Scaler.scaleBox(Self.planes(of: images + (c - 1)).readOnly, into: Self.planes(of: images + c))
            } catch {
                throw .scaling(error)
            }
        }
        if let phaseClock { lastScalingNanoseconds = phaseClock() - scalingStart }
        // Per-layer L1T3 decision.
        var decisions = [TemporalPattern.Frame?](repeating: nil, count: count)
        for index in 0..<count where layers[index].appliedKbps > 0 {
            let ctx = contexts + contextIndex(index)
            var decision = baseLayerOnly ? layers[index].pattern.baseLayerFrame : layers[index].pattern.next
            if layers[index].needsKeyFrame || layers[index].framesSinceKey >= Self.keyFrameMaxDistance - 1 {
                decision = TemporalPattern.Frame(flags: TemporalPattern.forceKeyFrameFlags, temporalId: 0,
                                                 layerSync: true)
            }
            decisions[index] = decision
            do {
                try control(ctx, VP8E_SET_FRAME_FLAGS, int: decision.flags)
                try control(ctx, VP8E_SET_TEMPORAL_LAYER_ID, int: Int32(decision.temporalId))
            } catch {
                throw .codec(error)
            }
        }
        let step = Int64(90000 / frameRate)
        let rtpTimestamp = rtpTimestampStart &+ UInt32(truncatingIfNeeded: frameIndex * 90000 / Int64(frameRate))
        let pts = encodedIndex * 90000 / Int64(frameRate)
        do {
            try VPXError.check(vpx_codec_encode(contexts, images, vpx_codec_pts_t(pts), UInt(step), 0,
                                                UInt(VPX_DL_REALTIME)),
                               call: "vpx_codec_encode", context: contexts)
        } catch {
            throw .codec(error)
        }
        frameIndex += 1
        encodedIndex += 1
        // Drain every context, lightest layer first.
        for index in 0..<count {
            guard let decision = decisions[index] else { continue }
            let ctx = contexts + contextIndex(index)
            let spec = plan.layers[index]
            var iterator: vpx_codec_iter_t? = nil
            var producedKey = false
            while let packet = vpx_codec_get_cx_data(ctx, &iterator) {
                guard packet.pointee.kind == VPX_CODEC_CX_FRAME_PKT else { continue }
                let frame = packet.pointee.data.frame
                let isKey = (frame.flags & vpx_codec_frame_flags_t(VPX_FRAME_IS_KEY)) != 0
                producedKey = producedKey || isKey
                let bytes = [UInt8](UnsafeRawBufferPointer(start: frame.buf, count: frame.sz))
                output(EncodedFrame(spatialIndex: index, width: spec.width, height: spec.height,
                                    temporalId: isKey ? 0 : decision.temporalId,
                                    layerSync: isKey ? true : decision.layerSync,
                                    keyFrame: isKey, rtpTimestamp: rtpTimestamp, data: bytes))
            }
            if producedKey {
                layers[index].pattern.keyFrameEncoded()
                layers[index].needsKeyFrame = false
                layers[index].framesSinceKey = 1
            } else {
                // A base-layer-only frame (screen refinement, keep-alive) is outside the cycle.
                if !baseLayerOnly { layers[index].pattern.advance() }
                layers[index].framesSinceKey += 1
            }
        }
    }

    /// `VP8E_SET_STATIC_THRESHOLD` on every layer.
    private func setStaticThreshold(_ threshold: UInt32) throws(SimulcastEncoderError) {
        do {
            for c in 0..<count { try control(contexts + c, VP8E_SET_STATIC_THRESHOLD, uint: threshold) }
        } catch {
            throw .codec(error)
        }
    }

    private static func planes(of image: UnsafeMutablePointer<vpx_image_t>) -> MutablePlanes {
        // Planes are non-nil: image 0 is pointed at the input first, images 1... come from vpx_img_alloc.
        MutablePlanes(y: image.pointee.planes.0!, strideY: Int(image.pointee.stride.0),
                      u: image.pointee.planes.1!, strideU: Int(image.pointee.stride.1),
                      v: image.pointee.planes.2!, strideV: Int(image.pointee.stride.2),
                      width: Int(image.pointee.d_w), height: Int(image.pointee.d_h))
    }
}
