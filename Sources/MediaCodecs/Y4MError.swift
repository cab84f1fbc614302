#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a YUV4MPEG2 stream cannot be read.
public enum Y4MError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The path cannot be read as a file at all (missing, unreadable, a directory, a device, empty).
    case file(InputFileError)
    /// The stream has no bytes.
    case empty
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
    /// The stream is a header alone: nothing to play (`Y4MReader.frameCount(path:)`).
    case noFrames
    /// Reading the file failed after it was opened (errno).
    case io(path: String, errno: Int32)

    /// What was wrong, with the values involved and what is accepted.
    public var description: String {
        switch self {
        case let .file(error):
            return "cannot read \(error.path) as a Y4M video: \(error.reason)"
        case .empty:
            return "the Y4M stream is empty: expected a 'YUV4MPEG2 W<width> H<height> ...' header line"
        case .badSignature:
            return "not a Y4M stream: it must start with 'YUV4MPEG2 '"
        case let .badHeader(detail):
            return "the Y4M header is malformed: \(detail) (expected "
                + "'YUV4MPEG2 W<width> H<height> [F<num>:<den>] [I<p|t|b|m|?>] [A<num>:<den>] [C<colour space>]' and a newline)"
        case let .unsupportedColorSpace(space):
            return "the Y4M colour space C\(space) is not supported: only 4:2:0 "
                + "(C420, C420jpeg, C420paldv, C420mpeg2 or no C field) can be read"
        case let .badFrameHeader(index):
            return "frame \(index) of the Y4M stream does not start with a 'FRAME' line"
        case let .truncatedFrame(index, needed, available):
            return "frame \(index) of the Y4M file is cut short: \(available) of \(needed) bytes"
        case .noFrames:
            return "the Y4M file holds a header but no frames: expected a 'FRAME' line and the pixels of at least one frame after it"
        case let .io(path, code):
            return "reading \(path) failed: \(String(cString: strerror(code)))"
        }
    }
}
