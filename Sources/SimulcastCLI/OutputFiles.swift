import Glibc

/// Creates the directories and files the tools write (`--out`, `--save`, `--json`), with
/// `CommandError`s that name the path and the system's reason instead of Foundation's
/// `NSCocoaErrorDomain` codes. Every output is made (or opened) before a command's work starts,
/// so a path that cannot be written is refused up front rather than after a whole call.
enum OutputFiles {
    /// Creates `path` and any missing parents (`mkdir -p`); an existing directory is fine. Then
    /// checks that a file can be created in it (a read-only mount, a directory of `/proc`).
    static func createDirectory(_ path: String) throws(CommandError) {
        try makeDirectories(path)
        try checkFilesCanBeCreated(in: path)
    }

    /// Creates (or empties) the file at `path`, and any missing parent directories, for the
    /// caller to write when its work is done: e.g. a demo's `--json`, refused before the call
    /// starts if it cannot be written.
    static func openForWriting(_ path: String) throws(CommandError) -> TextFileWriter {
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            try makeDirectories(String(path[..<slash]))
        }
        return try TextFileWriter(path: path)
    }

    /// `mkdir -p path`.
    private static func makeDirectories(_ path: String) throws(CommandError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + component
            if mkdir(prefix, 0o755) == 0 { continue }
            let code = errno
            var info = stat()
            if code == EEXIST, stat(prefix, &info) == 0 {
                guard info.st_mode & S_IFMT == S_IFDIR else {
                    throw CommandError("cannot create directory \(path): \(prefix) exists and is not a directory")
                }
                continue
            }
            throw CommandError("cannot create directory \(path): \(String(cString: strerror(code)))")
        }
    }

    /// Creates and removes a scratch file in `directory`: `mkdir` succeeds on an existing
    /// directory that refuses new files.
    private static func checkFilesCanBeCreated(in directory: String) throws(CommandError) {
        let probe = (directory.isEmpty ? "." : directory) + "/.simulcast-write-check-\(getpid())"
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let code = errno
            // EEXIST: an earlier process with our id left it; not ours to remove.
            guard code == EEXIST else {
                throw CommandError("cannot write into directory \(directory): \(String(cString: strerror(code)))")
            }
            return
        }
        close(descriptor)
        unlink(probe)
    }
}
