import MediaCodecs

/// One clip `simulcast-bench encode` measures: the built-in test scene, the generated noisy
/// camera-like clip, or a Y4M file. `argument` names it on the command line and to the child
/// process that counts instructions under callgrind, which regenerates the same frames.
enum EncodeInput: Equatable {
    case scene
    case noisyPan
    case file(String)

    /// `--clips` names of the generated clips, in the order `make bench` runs them.
    static let generatedNames = ["scene", "noisy-pan"]

    init(argument: String) {
        switch argument {
        case "scene": self = .scene
        case "noisy-pan": self = .noisyPan
        default: self = .file(argument)
        }
    }

    var argument: String {
        switch self {
        case .scene: "scene"
        case .noisyPan: "noisy-pan"
        case .file(let path): path
        }
    }

    /// The first `count` frames at `width`x`height` (fewer if a file ends sooner), and the
    /// clip's human-readable name.
    func frames(count: Int, width: Int, height: Int) throws -> (frames: [VideoFrame], name: String) {
        var frames: [VideoFrame] = []
        frames.reserveCapacity(count)
        switch self {
        case .scene, .file:
            let source = try self == .scene ? VideoSource(testSceneWidth: width, height: height)
                : VideoSource(y4mPath: argument, width: width, height: height)
            while frames.count < count, let frame = try source.nextFrame() { frames.append(frame) }
            return (frames, source.name)
        case .noisyPan:
            let clip = NoisyPanClip(width: width, height: height)
            for n in 0..<count { frames.append(try clip.frame(n)) }
            return (frames, NoisyPanClip.name)
        }
    }
}
