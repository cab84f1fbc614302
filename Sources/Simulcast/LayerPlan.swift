/// Why a layer plan cannot be built.
public enum LayerPlanError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The encoder size is zero, negative, below 16x16 or above 4096x2304.
    case unsupportedEncoderSize(width: Int, height: Int)

    /// What was wrong, with the values involved and what is accepted.
    public var description: String {
        switch self {
        case let .unsupportedEncoderSize(width, height):
            let minimum = LayerPlan.minimumEncoderSize, maximum = LayerPlan.maximumEncoderSize
            return "an encoder size of \(width)x\(height) is not supported: width must be \(minimum.width) to "
                + "\(maximum.width) and height \(minimum.height) to \(maximum.height) pixels"
        }
    }
}

/// One spatial layer of a plan: its index in the published set (0 = lightest), size, and
/// default bitrates.
public struct LayerSpec: Sendable, Equatable, Codable {
    public var index: Int
    public var width: Int
    public var height: Int
    /// How many times smaller than the top layer, per edge (1, 2 or 4).
    public var downscale: Int
    public var bitrates: LayerBitrates
}

/// The spatial layers a video track publishes (docs/layer-plan.md for cameras, `ScreenSharePlan.swift` for
/// screens): computed once from the encoder config, pure, and the single source of truth for the
/// encoder, the packetizer and the caps.
public struct LayerPlan: Sendable, Equatable {
    /// The smallest and largest encoder sizes the engine accepts.
    public static let minimumEncoderSize = (width: 16, height: 16)
    public static let maximumEncoderSize = (width: 4096, height: 2304)
    /// The default camera encoder config.
    public static let hd720 = (width: 1280, height: 720)
    /// The "standard definition" preset.
    public static let sd540 = (width: 960, height: 540)

    /// What the track shows: decides the plan's shape and how the encoder treats it.
    public let content: VideoContent
    /// The configured encoder size (before any crop for divisibility).
    public let encoderWidth: Int
    public let encoderHeight: Int
    public let multiStream: Bool
    public let maxLayer: MaxLayer
    /// Published layers, lightest first; `layers[i].index == i`.
    public let layers: [LayerSpec]

    /// - Parameters:
    ///   - width, height: the camera track's `encoderConfig` size.
    ///   - multiStream: false publishes exactly one layer at the config size.
    ///   - maxLayer: `.two` drops the middle layer of a 3-layer plan; never adds layers.
    public init(width: Int = 1280, height: Int = 720, multiStream: Bool = true,
                maxLayer: MaxLayer = .three) throws(LayerPlanError) {
        try Self.validate(width: width, height: height)
        content = .camera
        encoderWidth = width
        encoderHeight = height
        self.multiStream = multiStream
        self.maxLayer = maxLayer

        let count = multiStream ? Self.layerCount(longerEdge: max(width, height)) : 1
        // Crop the top layer to a multiple of 2^(count-1) so every layer is an exact division.
        let alignment = 1 << (count - 1)
        let topWidth = width - width % alignment
        let topHeight = height - height % alignment
        var downscales = (0..<count).map { 1 << (count - 1 - $0) }  // e.g. [4, 2, 1]
        if count == 3 && maxLayer == .two { downscales.remove(at: 1) }
        layers = downscales.enumerated().map { index, divisor in
            let w = topWidth / divisor, h = topHeight / divisor
            return LayerSpec(index: index, width: w, height: h, downscale: divisor,
                             bitrates: .defaults(width: w, height: h))
        }
    }

    /// A plan from its parts (the screen-share plan builds its own layers).
    init(content: VideoContent, encoderWidth: Int, encoderHeight: Int, multiStream: Bool, maxLayer: MaxLayer,
         layers: [LayerSpec]) {
        self.content = content
        self.encoderWidth = encoderWidth
        self.encoderHeight = encoderHeight
        self.multiStream = multiStream
        self.maxLayer = maxLayer
        self.layers = layers
    }

    /// Throws unless `width`x`height` is within `minimumEncoderSize...maximumEncoderSize`.
    static func validate(width: Int, height: Int) throws(LayerPlanError) {
        guard width >= minimumEncoderSize.width, height >= minimumEncoderSize.height,
              width <= maximumEncoderSize.width, height <= maximumEncoderSize.height
        else { throw .unsupportedEncoderSize(width: width, height: height) }
    }

    /// docs/layer-plan.md: layer count from the longer edge L (<480: 1, 480–959: 2, ≥960: 3).
    public static func layerCount(longerEdge: Int) -> Int {
        switch longerEdge {
        case ..<480: return 1
        case ..<960: return 2
        default: return 3
        }
    }

    /// The top (largest) layer.
    public var top: LayerSpec { layers[layers.count - 1] }

    /// Indices of the layers sent under a quality cap (docs/sending-caps.md): `.high` sends every layer,
    /// `.medium` stops the largest, `.low` sends only the smallest. No effect on one layer.
    public func activeLayerIndices(cap: VideoQuality) -> [Int] {
        guard layers.count > 1 else { return [0] }
        switch cap {
        case .high: return Array(layers.indices)
        case .medium: return Array(layers.indices.dropLast())
        case .low: return [0]
        }
    }
}
