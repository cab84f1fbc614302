/// Why a YUV4MPEG2 stream cannot be read.
public enum Y4MError: Error, Equatable, Sendable {
    /// The stream does not start with `YUV4MPEG2 `.
    case badSignature
    /// The stream header is unterminated, too long, or has a malformed field.
    case badHeader(String)
    /// The header's `C` field names a layout other than 4:2:0.
    case unsupportedColorSpace(String)
    /// A frame does not start with `FRAME` or its parameter line is malformed.
    case badFrameHeader(frameIndex: Int)
    /// The stream ended inside a frame.
    case truncatedFrame(frameIndex: Int, needed: Int, available: Int)
    /// The file could not be opened or read.
    case io(path: String, errno: Int32)
}
