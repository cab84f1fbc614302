import Foundation
import Glibc

/// The parent's handle on one `BenchChild`: this executable re-run with `arguments` (e.g.
/// `idle --child camera --seconds 90`) for one scenario. Its standard output is a pipe the parent
/// reads the ready line (and, from a child asked to finish, its summary) from; its standard input
/// is a pipe whose closing asks it to finish. Standard error is this process's, so a child's
/// failure shows.
final class BenchChildProcess {
    /// The scenario's name, for errors.
    let scenario: String
    private let process = Process()
    private let output = Pipe()
    private let input = Pipe()
    /// Bytes read from `output` after the last line handed out.
    private var pending: [UInt8] = []

    /// Starts the child. Its arguments should bound how long it runs by itself (`BenchChild`'s
    /// hold), so a child whose parent died does not run for ever.
    init(scenario: String, arguments: [String]) throws(ChildBenchError) {
        self.scenario = scenario
        do {
            process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            process.arguments = arguments
            process.standardOutput = output
            process.standardInput = input
            try process.run()
        } catch {
            throw .childNotStarted(scenario: scenario, reason: "\(error)")
        }
    }

    var processID: pid_t { process.processIdentifier }

    var isRunning: Bool { process.isRunning }

    /// Waits until the child wrote its ready line, at most `timeoutSeconds`.
    func waitUntilReady(timeoutSeconds: Int) throws(ChildBenchError) {
        let deadline = ContinuousClock.now + .seconds(timeoutSeconds)
        while !pending.contains(UInt8(ascii: "\n")) {
            guard let more = readChunk(before: deadline) else {
                throw .childReadyTimeout(scenario: scenario, seconds: timeoutSeconds)
            }
            guard more else { break }  // end of file: the child ended
        }
        let text = String(decoding: pending, as: UTF8.self)
        guard text == BenchChild.readyLine + "\n" else {
            throw .childNotReady(scenario: scenario, output: text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        pending.removeAll()
    }

    /// Asks the child to finish (closes its standard input), then returns all it writes until it
    /// ends (its summary), at most `timeoutSeconds`; the child is reaped either way.
    func finish(timeoutSeconds: Int) throws(ChildBenchError) -> String {
        try? input.fileHandleForWriting.close()
        let deadline = ContinuousClock.now + .seconds(timeoutSeconds)
        while true {
            guard let more = readChunk(before: deadline) else {
                stop()
                throw .childFinishTimeout(scenario: scenario, seconds: timeoutSeconds)
            }
            guard more else { break }
        }
        process.waitUntilExit()
        defer { pending.removeAll() }
        return String(decoding: pending, as: UTF8.self)
    }

    /// Ends the child (SIGTERM) and reaps it.
    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// Appends what the child wrote to `pending`, waiting until `deadline` for it: true if bytes
    /// came, false at the end of the output (the child ended), nil if the deadline passed first.
    private func readChunk(before deadline: ContinuousClock.Instant) -> Bool? {
        let descriptor = output.fileHandleForReading.fileDescriptor
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return nil }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            guard poll(&poller, 1, max(1, milliseconds)) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            pending += chunk[..<count]
            return true
        }
    }
}
