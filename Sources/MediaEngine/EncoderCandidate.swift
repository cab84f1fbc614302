/// One encoder configuration `EncoderAdvisor` can measure and recommend: which layers, the
/// camera track's encoder size, the frame rate and libvpx's speed (`VP8E_SET_CPUUSED`).
public struct EncoderCandidate: Sendable, Hashable, CustomStringConvertible {
    /// Which simulcast layers are published (docs/layer-plan.md; `LayerPlan`).
    public enum Layers: String, Sendable, Hashable, CaseIterable {
        /// One layer at the encoder size (`multiStream: false`).
        case single
        /// The lowest and the top layer (`MaxLayer.two`): 320x180 + 1280x720 at 720p.
        case maxLayer2 = "MAX_LAYER_2"
        /// Every layer the size allows (`MaxLayer.three`): three at 960 pixels and wider.
        case maxLayer3 = "MAX_LAYER_3"
    }

    /// Which layers are published (`LayerPlan` with `multiStream` and `MaxLayer`).
    public var layers: Layers
    /// The camera track's encoder size (the top layer).
    public var size: VideoSize
    /// Frames per second the track is encoded at.
    public var frameRate: Int
    /// libvpx `VP8E_SET_CPUUSED` of the top layers: negative values are fixed real-time speeds,
    /// larger magnitude is faster and lower quality. At `SimulcastEncoder.defaultCPUUsed` (-6,
    /// WebRTC's) layers below 352x288 keep WebRTC's -4, as the engine does; any other value
    /// applies to every layer.
    public var cpuUsed: Int

    /// A configuration; nothing is checked until `EncoderAdvisor` measures it (typed errors there).
    public init(layers: Layers, size: VideoSize, frameRate: Int, cpuUsed: Int = EncoderCandidate.defaultCPUUsed) {
        self.layers = layers
        self.size = size
        self.frameRate = frameRate
        self.cpuUsed = cpuUsed
    }

    /// WebRTC's VP8 real-time speed, the engine's default.
    public static let defaultCPUUsed = -6

    /// The set `simulcast advise` measures: MAX_LAYER_3, MAX_LAYER_2 and single at 1280x720,
    /// 960x540 and 640x360 (where MAX_LAYER_3 has only two layers it is left out: it is
    /// MAX_LAYER_2), each at 30 and 15 fps, at cpu_used -6 (WebRTC's) and -10 (faster).
    public static let standardSet: [EncoderCandidate] = {
        var set: [EncoderCandidate] = []
        for size in [VideoSize(width: 1280, height: 720), VideoSize(width: 960, height: 540), VideoSize(width: 640, height: 360)] {
            for frameRate in [30, 15] {
                for cpuUsed in [-6, -10] {
                    for layers in Layers.allCases.reversed()
                    where layers != .maxLayer3 || max(size.width, size.height) >= 960 {
                        set.append(EncoderCandidate(layers: layers, size: size, frameRate: frameRate, cpuUsed: cpuUsed))
                    }
                }
            }
        }
        return set
    }()

    /// Same size, frame rate and cpu_used: what `EncoderAdvisor` measures side by side.
    func differsOnlyInLayers(from other: EncoderCandidate) -> Bool {
        size == other.size && frameRate == other.frameRate && cpuUsed == other.cpuUsed
    }

    /// E.g. `MAX_LAYER_2 1280x720 @ 30 fps, cpu_used -6`.
    public var description: String {
        "\(layers.rawValue) \(size.width)x\(size.height) @ \(frameRate) fps, cpu_used \(cpuUsed)"
    }

    /// How `EncoderAdvisor` ranks quality, best first, one criterion after another: the larger
    /// top layer (what a full-screen viewer sees), then the higher frame rate, then more encoder
    /// effort (smaller |cpu_used|: better pictures at the same bitrate, for every viewer), then
    /// more layers (more viewers get a layer that fits their window and downlink).
    public static func isBetterQuality(_ a: EncoderCandidate, than b: EncoderCandidate) -> Bool {
        let pixelsA = a.size.width * a.size.height, pixelsB = b.size.width * b.size.height
        if pixelsA != pixelsB { return pixelsA > pixelsB }
        if a.frameRate != b.frameRate { return a.frameRate > b.frameRate }
        if abs(a.cpuUsed) != abs(b.cpuUsed) { return abs(a.cpuUsed) < abs(b.cpuUsed) }
        return a.layers.rank > b.layers.rank
    }
}

extension EncoderCandidate.Layers {
    fileprivate var rank: Int {
        switch self {
        case .single: 1
        case .maxLayer2: 2
        case .maxLayer3: 3
        }
    }
}
