#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a file named as an input (a Y4M video, a WAV, an IVF, a pcap) cannot be read, found
/// before any of its bytes are parsed. Format errors wrap it (`Y4MError.file`, `WAVError.file`,
/// `IVFError.file`) so the message names the format too.
public struct InputFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong with the file.
    public enum Problem: Equatable, Sendable {
        /// Nothing exists at the path (`ENOENT`, `ENOTDIR`).
        case notFound
        /// The file exists but this user may not read it (`EACCES`, `EPERM`).
        case permissionDenied
        /// The path names a directory.
        case directory
        /// The path names something that is not a regular file; `kind` says what
        /// (e.g. "a character device"). Devices and pipes can be endless or block forever.
        case notRegularFile(kind: String)
        /// The file has no bytes.
        case empty
        /// The file is larger than the reader accepts (it reads whole files into memory).
        case tooLarge(bytes: Int, limit: Int)
        /// `open` or `read` failed otherwise (errno).
        case readFailed(errno: Int32)
    }

    /// The path as given.
    public let path: String
    /// What is wrong with it.
    public let problem: Problem

    /// An error for `path`.
    public init(path: String, problem: Problem) {
        self.path = path
        self.problem = problem
    }

    /// The problem alone, as the end of a sentence: "it is a directory, not a file".
    public var reason: String {
        switch problem {
        case .notFound: return "there is no such file"
        case .permissionDenied: return "permission denied (this user may not read it)"
        case .directory: return "it is a directory, not a file"
        case let .notRegularFile(kind): return "it is \(kind), not a regular file"
        case .empty: return "the file is empty (0 bytes)"
        case let .tooLarge(bytes, limit): return "the file is \(bytes) bytes; at most \(limit) bytes are read"
        case let .readFailed(code): return "reading failed: \(String(cString: strerror(code)))"
        }
    }

    /// "cannot read PATH: REASON".
    public var description: String { "cannot read \(path): \(reason)" }
}
