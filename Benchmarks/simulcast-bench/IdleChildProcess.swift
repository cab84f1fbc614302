import Foundation
import Glibc

/// The parent's handle on one `IdleChild`: this executable re-run for one scenario, with its
/// standard output on a pipe the parent reads the ready line from. Standard error is this
/// process's, so a child's failure shows.
final class IdleChildProcess {
    let scenario: IdleScenario
    private let process = Process()
    private let output = Pipe()

    /// Starts the child, which idles for at most `holdSeconds` (the parent stops it sooner; the
    /// bound keeps a child whose parent died from idling for ever).
    init(_ scenario: IdleScenario, holdSeconds: Int) throws(IdleBenchError) {
        self.scenario = scenario
        do {
            process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            process.arguments = ["idle", "--child", scenario.rawValue, "--seconds", "\(holdSeconds)"]
            process.standardOutput = output
            try process.run()
        } catch {
            throw .childNotStarted(scenario: scenario.rawValue, reason: "\(error)")
        }
    }

    var processID: pid_t { process.processIdentifier }

    var isRunning: Bool { process.isRunning }

    /// Waits until the child wrote its ready line, at most `timeoutSeconds`.
    func waitUntilReady(timeoutSeconds: Int) throws(IdleBenchError) {
        let descriptor = output.fileHandleForReading.fileDescriptor
        let deadline = ContinuousClock.now + .seconds(timeoutSeconds)
        var received: [UInt8] = []
        while !received.contains(UInt8(ascii: "\n")) {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { throw .childReadyTimeout(scenario: scenario.rawValue, seconds: timeoutSeconds) }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            guard poll(&poller, 1, max(1, milliseconds)) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 256)
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }  // end of file: the child ended
            received += chunk[..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        guard text == IdleChild.readyLine + "\n" else {
            throw .childNotReady(scenario: scenario.rawValue, output: text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// Ends the child (SIGTERM) and reaps it.
    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
