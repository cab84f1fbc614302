#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why an IVF file cannot be written or read.
public enum IVFError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The path cannot be read as a file at all (missing, unreadable, a directory, a device, empty).
    case file(InputFileError)
    /// The file does not start with `DKIF`, or its header size field is below 32.
    case badSignature
    /// The file ended inside a header or a frame.
    case truncated(field: String, needed: Int, available: Int)
    /// The file could not be opened, written or read.
    case io(path: String, errno: Int32)

    /// What was wrong, with the values involved and what is accepted.
    public var description: String {
        switch self {
        case let .file(error):
            return "cannot read \(error.path) as an IVF file: \(error.reason)"
        case .badSignature:
            return "not an IVF file: it must start with 'DKIF' and a header size of at least 32 bytes"
        case let .truncated(field, needed, available):
            return "the IVF file is cut short in its \(field): \(available) of \(needed) bytes"
        case let .io(path, code):
            return "cannot write or read \(path): \(String(cString: strerror(code)))"
        }
    }
}
