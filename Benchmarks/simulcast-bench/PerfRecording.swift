import Foundation
import Glibc

/// `perf record` of one running process over a window the caller opens and closes, then `perf
/// report` of what it recorded (Linux perf; Debian's linux-perf package).
///
/// The event is the software CPU clock (`-e cpu-clock -F N`): each thread is sampled N times a
/// second of its own CPU time, in user or kernel mode, so the samples split the process's
/// utime + stime by the shared object the thread was in. It needs no hardware counter (the
/// project's VM has none: `perf stat -e instructions true` says `<not supported>`) and no debug
/// symbols (objects, not functions).
///
/// perf starts with its events disabled (`-D -1`) and is switched on and off through its control
/// FIFOs (`--control fifo:CTL,ACK`; `enable`/`disable`, each answered `ack`), so the window is the
/// caller's to the millisecond: perf's own start (attaching, reading /proc) and end (writing its
/// data) fall outside it. `-B` skips collecting build ids at the end, which took perf 10 s of CPU
/// on this VM beside the measured process.
final class PerfRecording {
    /// The `perf record` command line, as run.
    let command: String
    let frequency: Int
    private let perf: String
    private let dataPath: String
    private let logPath: String
    private let process = Process()
    /// Commands to perf, and its answers.
    private let control: Int32
    private let acknowledgements: Int32

    /// The `perf` on PATH, or nil.
    static func locate() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/perf" }.first { access($0, X_OK) == 0 }
    }

    /// Starts perf on process `processID`, its events off, the data to `dataPath`; its FIFOs and
    /// log go in `scratch`. Waits (at most `timeoutSeconds`) until perf listens for commands.
    init(perf: String, processID: pid_t, frequency: Int, dataPath: String, scratch: String,
         timeoutSeconds: Int = 30) throws(PerfError) {
        self.perf = perf
        self.frequency = frequency
        self.dataPath = dataPath
        logPath = scratch + "/perf.log"
        let controlPath = scratch + "/perf-control", acknowledgementPath = scratch + "/perf-ack"
        let arguments = ["record", "-e", "cpu-clock", "-F", "\(frequency)", "-p", "\(processID)", "-o", dataPath, "-B",
                         "-D", "-1", "--control", "fifo:\(controlPath),\(acknowledgementPath)"]
        command = ([perf] + arguments).joined(separator: " ")
        for path in [controlPath, acknowledgementPath] {
            unlink(path)
            guard mkfifo(path, 0o600) == 0 else { throw .notStarted(command: command, reason: "mkfifo \(path): errno \(errno)") }
        }
        // perf opens the answer FIFO for writing and blocks until a reader has it open: open it first.
        acknowledgements = open(acknowledgementPath, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard acknowledgements >= 0 else { throw .notStarted(command: command, reason: "open \(acknowledgementPath): errno \(errno)") }
        do {
            try Self.start(process, perf: perf, arguments: arguments, outputPath: logPath)
        } catch {
            close(acknowledgements)
            throw .notStarted(command: command, reason: "\(error)")
        }
        // Opening a FIFO for writing without blocking fails (ENXIO) until perf has it open.
        let deadline = ContinuousClock.now + .seconds(timeoutSeconds)
        var descriptor: Int32 = -1
        while descriptor < 0 {
            descriptor = open(controlPath, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            guard descriptor < 0 else { break }
            guard process.isRunning, ContinuousClock.now < deadline else {
                close(acknowledgements)
                if process.isRunning { process.terminate() }
                process.waitUntilExit()
                throw .failed(command: command, status: process.terminationStatus, output: Self.tail(of: logPath))
            }
            usleep(10_000)
        }
        control = descriptor
    }

    deinit {
        close(control)
        close(acknowledgements)
        if process.isRunning { process.terminate() }
    }

    /// Switches sampling on; returns once perf has.
    func enable() throws(PerfError) { try send("enable") }

    /// Switches sampling off; returns once perf has.
    func disable() throws(PerfError) { try send("disable") }

    /// Ends perf (SIGINT, as Ctrl-C would), which writes the data file.
    func stop() throws(PerfError) {
        if process.isRunning { process.interrupt() }
        process.waitUntilExit()
        // perf ends on SIGINT by raising it again once the data is written.
        let interrupted = process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGINT
        guard process.terminationStatus == 0 || interrupted else {
            throw .failed(command: command, status: process.terminationStatus, output: Self.tail(of: logPath))
        }
    }

    /// Samples per shared object: `perf report --sort dso` of the data (after `stop`).
    func profile() throws(PerfError) -> PerfProfile {
        let arguments = ["report", "-i", dataPath, "--no-children", "--sort", "dso", "--stdio", "-n", "-q"]
        let reportCommand = ([perf] + arguments).joined(separator: " ")
        let reportPath = logPath + ".report", errorPath = logPath + ".report-errors"
        let report = Process()
        do {
            try Self.start(report, perf: perf, arguments: arguments, outputPath: reportPath, errorPath: errorPath)
        } catch {
            throw .notStarted(command: reportCommand, reason: "\(error)")
        }
        report.waitUntilExit()
        guard report.terminationStatus == 0 else {
            throw .failed(command: reportCommand, status: report.terminationStatus, output: Self.tail(of: errorPath))
        }
        let text = (try? String(contentsOfFile: reportPath, encoding: .utf8)) ?? ""
        return try PerfProfile(report: text, recordCommand: command, reportCommand: reportCommand, frequency: frequency)
    }

    /// Writes `command` to perf's control FIFO and waits (at most 10 s) for its `ack`.
    private func send(_ command: String) throws(PerfError) {
        let line = Array((command + "\n").utf8)
        let written = line.withUnsafeBytes { write(control, $0.baseAddress, $0.count) }
        guard written == line.count else {
            throw .failed(command: self.command, status: -1, output: "writing \(command) to perf: errno \(errno)")
        }
        let deadline = ContinuousClock.now + .seconds(10)
        var answer: [UInt8] = []
        while !answer.contains(UInt8(ascii: "\n")) {
            guard ContinuousClock.now < deadline, process.isRunning else {
                throw .failed(command: self.command, status: -1, output: "no ack to \(command) (perf said: \(Self.tail(of: logPath)))")
            }
            var poller = pollfd(fd: acknowledgements, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 64)
            let count = chunk.withUnsafeMutableBytes { read(acknowledgements, $0.baseAddress, $0.count) }
            // 0: no writer yet (perf has not opened the FIFO); wait for it like for an answer.
            if count <= 0 { usleep(10_000); continue }
            answer += chunk[..<count]
        }
        guard String(decoding: answer, as: UTF8.self).hasPrefix("ack") else {
            throw .failed(command: self.command, status: -1, output: "perf answered \(command) with \(String(decoding: answer, as: UTF8.self))")
        }
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
