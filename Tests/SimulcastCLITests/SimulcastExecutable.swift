import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `simulcast` executable, or another of the package's (`name:`, e.g.
/// `simulcast-bench`), next to the test bundle after `swift build --build-tests`, as a child
/// process: its exit status, what it printed, and its peak resident set size.
///
/// The peak is `VmHWM` of `/proc/<pid>/status`, sampled every 20 ms while the child runs (it
/// only grows, so the last sample is the peak up to the last 20 ms). `wait4`'s `ru_maxrss` would
/// not do: Linux carries the high-water mark of the memory a process had before `exec` into it,
/// and `posix_spawn` starts the child in the test runner's own (large, growing) memory.
struct SimulcastExecutable {
    struct Outcome {
        var status: Int32
        var standardOutput: String
        var standardError: String
        var maximumResidentKiB: Int
        /// The child was killed at the deadline `run(_:timeoutSeconds:)` was given.
        var timedOut = false
    }

    struct NotFound: Error, CustomStringConvertible {
        var description: String
    }

    let path: String

    /// Any program (e.g. `/usr/bin/make`), run the same way.
    init(path: String) {
        self.path = path
    }

    /// The debug build's binary, or with `configuration: "release"` the release build's, if built.
    init(configuration: String? = nil, name: String = "simulcast") throws {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // Inside an .xctest bundle the binary sits one level deeper.
        if !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent(name).path) {
            directory = directory.deletingLastPathComponent()
        }
        if let configuration {
            // .build/<triple>/debug → .build/<triple>/<configuration>
            directory = directory.deletingLastPathComponent().appendingPathComponent(configuration)
        }
        let candidate = directory.appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: candidate) else {
            throw NotFound(description: "no \(name) executable at \(candidate): run `swift build --build-tests` first")
        }
        path = candidate
    }

    /// Runs the executable with `arguments` to completion, or until `timeoutSeconds` have passed
    /// (then the child is killed and the outcome says `timedOut`).
    func run(_ arguments: [String], timeoutSeconds: Double? = nil) throws -> Outcome {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("simulcast-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outPath = scratch.appendingPathComponent("stdout").path
        let errPath = scratch.appendingPathComponent("stderr").path
        let argv = [path] + arguments
        var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var child: pid_t = 0
        let spawned = posix_spawn(&child, path, &actions, nil, &cArguments, environ)
        guard spawned == 0 else { throw NotFound(description: "posix_spawn \(path) failed: \(spawned)") }
        var status: Int32 = 0
        var peakKiB = 0
        var timedOut = false
        let deadline = timeoutSeconds.map { Date().addingTimeInterval($0) }
        while true {
            let waited = waitpid(child, &status, WNOHANG)
            if waited == child { break }
            if waited < 0 && errno != EINTR { break }
            if let deadline, !timedOut, Date() > deadline {
                kill(child, SIGKILL)
                timedOut = true
            }
            peakKiB = max(peakKiB, Self.highWaterMarkKiB(of: child) ?? 0)
            usleep(20_000)
        }
        let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Outcome(status: exitStatus,
                       standardOutput: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
                       standardError: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "",
                       maximumResidentKiB: peakKiB, timedOut: timedOut)
    }

    /// `VmHWM` (peak resident set, KiB) of a running process; nil once it has exited.
    static func highWaterMarkKiB(of pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }
}
