/// Why caller-provided pixels cannot become a `VideoFrame`, or a frame does not fit where it
/// was given.
public enum VideoFrameError: Error, Equatable, Sendable {
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
}
