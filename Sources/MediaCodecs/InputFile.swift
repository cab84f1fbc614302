#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Opens files named as inputs and refuses, with an `InputFileError`, what no reader can use:
/// a missing or unreadable path, a directory, a device, a pipe or socket (endless or blocking),
/// an empty file. Every path-taking reader in the engine (and the `simulcast` tool for pcap and
/// WAV files) goes through it, so each of these says what it is instead of failing later as a
/// malformed header.
public enum InputFile {
    /// The most `readAll` reads by default: 1 GiB.
    public static let defaultByteLimit = 1 << 30

    /// Opens `path` for reading after checking it is a non-empty regular file.
    /// The caller owns the returned `FILE*` and must `fclose` it.
    static func openRegularFile(_ path: String) throws(InputFileError) -> (file: UnsafeMutablePointer<FILE>, size: Int) {
        // O_NONBLOCK: opening a FIFO without a writer must not hang before fstat can refuse it.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw InputFileError(path: path, problem: problem(openErrno: errno)) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            close(descriptor)
            throw InputFileError(path: path, problem: .readFailed(errno: code))
        }
        if let problem = problem(mode: info.st_mode, size: Int(info.st_size)) {
            close(descriptor)
            throw InputFileError(path: path, problem: problem)
        }
        // A regular file: back to blocking reads, then a buffered stream over the descriptor.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        guard let file = fdopen(descriptor, "rb") else {
            let code = errno
            close(descriptor)
            throw InputFileError(path: path, problem: .readFailed(errno: code))
        }
        return (file, Int(info.st_size))
    }

    /// Reads the whole of `path` (a non-empty regular file of at most `limit` bytes).
    public static func readAll(_ path: String, limit: Int = defaultByteLimit) throws(InputFileError) -> [UInt8] {
        let (file, size) = try openRegularFile(path)
        defer { fclose(file) }
        guard size <= limit else { throw InputFileError(path: path, problem: .tooLarge(bytes: size, limit: limit)) }
        var bytes = [UInt8](repeating: 0, count: size)
        let got = bytes.withUnsafeMutableBytes { fread($0.baseAddress, 1, size, file) }
        guard got == size else {
            throw InputFileError(path: path, problem: ferror(file) != 0 ? .readFailed(errno: errno) : .readFailed(errno: EIO))
        }
        return bytes
    }

    /// The problem an `open(2)` errno means.
    static func problem(openErrno code: Int32) -> InputFileError.Problem {
        switch code {
        case ENOENT, ENOTDIR: return .notFound
        case EACCES, EPERM: return .permissionDenied
        case EISDIR: return .directory
        default: return .readFailed(errno: code)
        }
    }

    /// What makes a file of this mode and size unusable as input, or nil if it is a non-empty
    /// regular file.
    static func problem(mode: mode_t, size: Int) -> InputFileError.Problem? {
        switch mode & S_IFMT {
        case S_IFREG: return size == 0 ? .empty : nil
        case S_IFDIR: return .directory
        case S_IFCHR: return .notRegularFile(kind: "a character device")
        case S_IFBLK: return .notRegularFile(kind: "a block device")
        case S_IFIFO: return .notRegularFile(kind: "a named pipe (FIFO)")
        case S_IFSOCK: return .notRegularFile(kind: "a socket")
        default: return .notRegularFile(kind: "an unknown kind of file")
        }
    }
}
