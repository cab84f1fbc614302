import Foundation

/// Debian's `ffmpeg` as an independent VP8 decoder for what the engine produced (a forwarded
/// stream, a recorded screen share). A missing ffmpeg is a failure with a clear message
/// (`make test` installs it through scripts/install-deps.sh), never a skip.
public enum FFmpeg {
    /// ffmpeg is not on PATH.
    public struct Missing: Error, CustomStringConvertible {
        public var description: String { "ffmpeg not found on PATH: apt-get install ffmpeg (scripts/install-deps.sh does it)" }
    }

    /// How one decode went.
    public struct Result: Sendable {
        public var exitStatus: Int32
        /// What `-v error` printed: empty when every frame decoded cleanly.
        public var errorOutput: String
        /// Frames decoded (one `-f framemd5` line each).
        public var frames: Int
    }

    /// The ffmpeg on PATH.
    public static func executable() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("ffmpeg")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw Missing()
    }

    /// `ffmpeg -v error -i FILE -fps_mode passthrough -f framemd5 -`: decodes every frame (no
    /// frame-rate conversion dropping or repeating any) and prints one MD5 line per
    /// frame; errors go to a file (so a chatty failure cannot fill a pipe and stall ffmpeg).
    public static func decode(_ path: String) throws -> Result {
        let errorPath = path + ".stderr"
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: errorPath) }
        let process = Process()
        process.executableURL = try executable()
        process.arguments = ["-nostdin", "-v", "error", "-i", path, "-fps_mode", "passthrough", "-f", "framemd5", "-"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let frames = String(decoding: outputData, as: UTF8.self).split(separator: "\n")
            .filter { !$0.hasPrefix("#") && !$0.isEmpty }
        let errors = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        return Result(exitStatus: process.terminationStatus,
                      errorOutput: errors.trimmingCharacters(in: .whitespacesAndNewlines), frames: frames.count)
    }
}
