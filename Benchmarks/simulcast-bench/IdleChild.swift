import CommandLineSupport
import Foundation
import Glibc

/// The measured side of `simulcast-bench idle`: the same executable, re-run by the parent as
/// `simulcast-bench idle --child SCENARIO --seconds N`. It sets the scenario up, writes
/// `IdleChild.readyLine` to standard output, then idles for N s (the parent stops it sooner)
/// and closes. Its process holds nothing else, so what procfs says of it is the scenario's.
enum IdleChild {
    static let readyLine = "ready"

    static func run(_ scenario: IdleScenario, seconds: Int) throws {
        let session = try runBlocking {
            do {
                return try await scenario.setUp()
            } catch {
                throw IdleBenchError.setupFailed(scenario: scenario.rawValue, reason: "\(error)")
            }
        }
        // write(2), not print: standard output is a pipe, and a buffered line would never come.
        var line = readyLine + "\n"
        line.withUTF8 { bytes in _ = Glibc.write(STDOUT_FILENO, bytes.baseAddress, bytes.count) }
        // The main thread sleeps in nanosleep while the pool has nothing to do: no task of ours
        // waits on a timer, so every wake-up measured is the scenario's (or the runtime's).
        Thread.sleep(forTimeInterval: Double(seconds))
        try runBlocking { await session.close() }
    }
}
