import Glibc

/// Creates the directories and files the tools write (`--out`, `--save`, `--json`), with
/// `CommandError`s that name the path and the system's reason instead of Foundation's
/// `NSCocoaErrorDomain` codes.
enum OutputFiles {
    /// Creates `path` and any missing parents (`mkdir -p`); an existing directory is fine.
    static func createDirectory(_ path: String) throws(CommandError) {
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

    /// Creates the directory `path` will be written into, so a run can fail before it starts
    /// rather than after (e.g. a demo's `--json` path).
    static func createParentDirectory(of path: String) throws(CommandError) {
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            try createDirectory(String(path[..<slash]))
        }
    }

    /// Writes `text` to `path`, creating its parent directories.
    static func write(_ text: String, to path: String) throws(CommandError) {
        try createParentDirectory(of: path)
        let file = try TextFileWriter(path: path)
        try file.write(text)
        try file.close()
    }
}
