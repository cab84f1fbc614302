/// Why caller-provided pixels cannot become a `VideoFrame`, or a frame does not fit where it
/// was given.
public enum VideoFrameError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Width or height is zero or negative (or too large to address).
    case invalidDimensions(width: Int, height: Int)
    /// A dimension must be even here (e.g. a crop or an encoder size) but is odd.
    case oddDimension(width: Int, height: Int)
    /// A row stride is smaller than the bytes one row of that plane needs.
    case strideTooSmall(plane: String, stride: Int, minimum: Int)
    /// A plane's buffer holds fewer bytes than `stride * rows` requires.
    case planeTooSmall(plane: String, bytes: Int, required: Int)
    /// The frame is not the size this consumer needs (e.g. the encoder's top layer).
    case sizeMismatch(expectedWidth: Int, expectedHeight: Int, width: Int, height: Int)
    /// The frame is larger than this consumer takes (a screen share takes captures up to
    /// `SimulcastEncoder.screenCaptureMaximum`, in either orientation).
    case tooLarge(width: Int, height: Int, maximumLongerEdge: Int, maximumShorterEdge: Int)

    /// What was wrong, with the values involved and what is accepted.
    public var description: String {
        switch self {
        case let .invalidDimensions(width, height):
            return "a \(width)x\(height) frame is impossible: width and height must be 1 to "
                + "\(VideoFrame.maximumDimension) pixels"
        case let .oddDimension(width, height):
            return "\(width)x\(height) has an odd dimension: width and height must be even here"
        case let .strideTooSmall(plane, stride, minimum):
            return "the \(plane) plane's stride of \(stride) bytes is shorter than one row (\(minimum) bytes)"
        case let .planeTooSmall(plane, bytes, required):
            return required == .max
                ? "the \(plane) plane's size overflows: its stride times its rows does not fit in memory"
                : "the \(plane) plane holds \(bytes) bytes; its stride times its rows needs \(required)"
        case let .sizeMismatch(expectedWidth, expectedHeight, width, height):
            return "the frame is \(width)x\(height) but \(expectedWidth)x\(expectedHeight) is required here"
        case let .tooLarge(width, height, longer, shorter):
            return "a \(width)x\(height) frame is too large here: at most \(longer)x\(shorter) (or \(shorter)x\(longer)) is taken"
        }
    }
}
