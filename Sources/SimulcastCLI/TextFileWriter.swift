import Glibc

/// Appends text to a file through stdio's buffer, so a log of any length (e.g. `frames.jsonl`)
/// goes to disk as it is produced instead of growing in memory. Closed by `close()` (which
/// reports a failure) or by `deinit`.
final class TextFileWriter {
    /// The path given to `init`.
    let path: String
    private var file: UnsafeMutablePointer<FILE>?

    /// Creates (or truncates) `path`.
    init(path: String) throws(CommandError) {
        self.path = path
        guard let file = fopen(path, "w") else { throw CommandError(cannotWrite: path, errno: errno) }
        self.file = file
    }

    deinit {
        if let file { fclose(file) }
    }

    /// Writes `text` as is (add the newline yourself).
    func write(_ text: String) throws(CommandError) {
        guard let file else { throw CommandError(cannotWrite: path, errno: EBADF) }
        var text = text
        let written = text.withUTF8 { fwrite($0.baseAddress, 1, $0.count, file) }
        guard written == text.utf8.count else { throw CommandError(cannotWrite: path, errno: errno) }
    }

    /// Flushes and closes the file. Calling it again does nothing.
    func close() throws(CommandError) {
        guard let file else { return }
        self.file = nil
        guard fclose(file) == 0 else { throw CommandError(cannotWrite: path, errno: errno) }
    }
}

extension CommandError {
    /// "cannot write PATH: <strerror>".
    init(cannotWrite path: String, errno code: Int32) {
        self.init("cannot write \(path): \(String(cString: strerror(code)))")
    }
}
