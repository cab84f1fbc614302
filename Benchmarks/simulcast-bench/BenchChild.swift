import Glibc

/// The measured side of `simulcast-bench idle` and `call`: the same executable, re-run by the
/// parent (`BenchChildProcess`) with `--child`. It sets the scenario up, writes `readyLine` to
/// standard output, then waits until the parent closes its standard input (or `holdSeconds`
/// pass), writes the session's summary line if it has one, closes the session and ends. Its
/// process holds nothing else, so what procfs (or perf) says of it is the scenario's.
enum BenchChild {
    static let readyLine = "ready"

    static func run<Session: BenchChildSession>(_ scenario: String, holdSeconds: Int,
                                                setUp: @escaping @Sendable () async throws -> Session) throws {
        let session = try runBlocking {
            do {
                return try await setUp()
            } catch {
                throw ChildBenchError.setupFailed(scenario: scenario, reason: "\(error)")
            }
        }
        writeLine(readyLine)
        waitForParent(seconds: holdSeconds)
        if let summary = try runBlocking({ await session.summaryLine() }) { writeLine(summary) }
        try runBlocking { await session.close() }
    }

    /// Blocks the main thread in one poll(2) on standard input until the parent closes it (or
    /// writes to it) or `seconds` pass. While the pool has nothing to do, no task of ours waits
    /// on a timer, so every wake-up measured is the scenario's (or the runtime's).
    private static func waitForParent(seconds: Int) {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return }
            var poller = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            let ready = poll(&poller, 1, max(1, milliseconds))
            if ready > 0 || (ready < 0 && errno != EINTR) { return }
        }
    }

    /// write(2), not print: standard output is a pipe, and a buffered line would never come.
    private static func writeLine(_ text: String) {
        var line = text + "\n"
        line.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(STDOUT_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}
