import Glibc

/// Writes text to standard error with `write(2)` (no shared `FILE*`, so it is concurrency-safe).
public func writeToStandardError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
            if written <= 0 { return }
            offset += written
        }
    }
}

/// Whether standard error is a terminal (progress bars draw only then).
public var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }
