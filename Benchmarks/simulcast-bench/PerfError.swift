/// Why `perf` could not split a process's CPU time (`PerfRecording`). `simulcast-bench call`
/// says which, and reports the process's total CPU time alone.
enum PerfError: Error, CustomStringConvertible {
    /// No `perf` on PATH (Debian: the linux-perf package).
    case notInstalled
    /// `perf` could not be started.
    case notStarted(command: String, reason: String)
    /// `perf` ended with a failure status; `output` is the end of what it wrote.
    case failed(command: String, status: Int32, output: String)
    /// A line of `perf report`'s table that is not "percent, samples, object".
    case unreadableReport(line: String)
    /// `perf report` counted no sample at all.
    case noSamples(command: String)

    var description: String {
        switch self {
        case .notInstalled: return "perf is not installed (no perf on PATH; Debian: the linux-perf package)"
        case let .notStarted(command, reason): return "`\(command)` did not start: \(reason)"
        case let .failed(command, status, output): return "`\(command)` exited \(status): \(output)"
        case let .unreadableReport(line): return "perf report: unreadable line '\(line)'"
        case let .noSamples(command): return "`\(command)` recorded no sample"
        }
    }
}
