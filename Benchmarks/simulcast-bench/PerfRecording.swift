import Foundation
import Glibc

/// `perf record` of one running process for a fixed time, then `perf report` of what it
/// recorded (Linux perf; Debian's linux-perf package). The event is the software CPU clock
/// (`-e cpu-clock -F N`): each thread is sampled N times a second of its own CPU time, in user
/// or kernel mode, so the samples split the process's utime + stime by the shared object the
/// thread was in. It needs no hardware counter (the project's VM has none: `perf stat -e
/// instructions true` says `<not supported>`) and no debug symbols (objects, not functions).
final class PerfRecording {
    /// The `perf record` command line, as run.
    let command: String
    let frequency: Int
    private let perf: String
    private let dataPath: String
    private let logPath: String
    private let process = Process()

    /// The `perf` on PATH, or nil.
    static func locate() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/perf" }.first { access($0, X_OK) == 0 }
    }

    /// Starts recording process `processID` for `seconds` (`perf record ... -- sleep seconds`),
    /// the data to `dataPath`, what perf says to `logPath`.
    init(perf: String, processID: pid_t, seconds: Int, frequency: Int, dataPath: String, logPath: String) throws(PerfError) {
        self.perf = perf
        self.frequency = frequency
        self.dataPath = dataPath
        self.logPath = logPath
        let arguments = ["record", "-e", "cpu-clock", "-F", "\(frequency)", "-p", "\(processID)", "-o", dataPath,
                         "--", "sleep", "\(seconds)"]
        command = ([perf] + arguments).joined(separator: " ")
        do {
            try Self.start(process, perf: perf, arguments: arguments, outputPath: logPath)
        } catch {
            throw .notStarted(command: command, reason: "\(error)")
        }
    }

    /// Waits until perf has recorded for its time and written the data.
    func waitUntilDone() throws(PerfError) {
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw .failed(command: command, status: process.terminationStatus, output: Self.tail(of: logPath))
        }
    }

    /// Samples per shared object: `perf report --sort dso` of the data (after `waitUntilDone`).
    func profile() throws(PerfError) -> PerfProfile {
        let arguments = ["report", "-i", dataPath, "--no-children", "--sort", "dso", "--stdio", "-n", "-q"]
        let reportCommand = ([perf] + arguments).joined(separator: " ")
        let reportPath = logPath + ".report"
        let report = Process()
        do {
            try Self.start(report, perf: perf, arguments: arguments, outputPath: reportPath, errorPath: logPath + ".report-errors")
        } catch {
            throw .notStarted(command: reportCommand, reason: "\(error)")
        }
        report.waitUntilExit()
        guard report.terminationStatus == 0 else {
            throw .failed(command: reportCommand, status: report.terminationStatus, output: Self.tail(of: logPath + ".report-errors"))
        }
        let text = (try? String(contentsOfFile: reportPath, encoding: .utf8)) ?? ""
        return try PerfProfile(report: text, recordCommand: command, reportCommand: reportCommand, frequency: frequency)
    }

    /// Runs `perf arguments`, standard output to `outputPath` and standard error to `errorPath`
    /// (to `outputPath` as well if nil): files, so a chatty perf never blocks on a full pipe.
    private static func start(_ process: Process, perf: String, arguments: [String], outputPath: String,
                              errorPath: String? = nil) throws {
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.executableURL = URL(fileURLWithPath: perf)
        process.arguments = arguments
        process.standardOutput = output
        if let errorPath {
            _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        } else {
            process.standardError = output
        }
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// The last lines of a log, for an error message.
    private static func tail(of path: String) -> String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(5).joined(separator: " / ")
    }
}
