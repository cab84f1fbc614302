import Glibc

/// Files in one private temporary directory per process, rewritten by every input (the file
/// targets go through the readers' and writers' real file paths). Removed at exit.
///
/// The directory is in FUZZ_SCRATCH_DIR, else /dev/shm, else TMPDIR or /tmp: on ext4, truncating
/// and rewriting a file makes close() start writeback (auto_da_alloc), which would cost a disk
/// write per input.
enum ScratchFiles {
    static let directory: String = {
        let base = getenv("FUZZ_SCRATCH_DIR").map { String(cString: $0) }
            ?? (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : nil)
            ?? getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array("\(base)/fuzz-engine.XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            fatalError("fuzz-engine: mkdtemp in \(base) failed (errno \(errno))")
        }
        let path = String(cString: made)
        atexit {
            for name in ScratchFiles.names { unlink("\(ScratchFiles.directory)/\(name)") }
            rmdir(ScratchFiles.directory)
        }
        return path
    }()
    static let names = ["input", "output"]
    /// Where each input is written.
    static var input: String { "\(directory)/input" }
    /// Where a target writes its oracle's file.
    static var output: String { "\(directory)/output" }

    /// Writes `bytes` to `path` (created or truncated); traps if the disk refuses, which is not
    /// a finding about the code under test.
    static func write(_ bytes: [UInt8], to path: String) {
        guard let file = fopen(path, "wb") else { fatalError("fuzz-engine: cannot create \(path)") }
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        guard fclose(file) == 0, written == bytes.count else { fatalError("fuzz-engine: cannot write \(path)") }
    }

    /// The whole file at `path`, as the command-line tools read it (one read of the file).
    static func read(_ path: String) -> [UInt8] {
        guard let file = fopen(path, "rb") else { fatalError("fuzz-engine: cannot open \(path)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let got = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            bytes += chunk[0..<got]
            if got < chunk.count { break }
        }
        return bytes
    }
}
