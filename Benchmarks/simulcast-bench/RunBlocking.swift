import Dispatch
import Foundation

/// Runs `body` on the concurrency pool and blocks the calling thread until it returns: how a
/// synchronous subcommand (`BenchSubcommand.run`) calls the engine's async API. The blocked
/// thread waits on a semaphore (a futex), so it adds no wake-ups of its own.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = BlockingOutcome<T>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do { outcome.set(.success(try await body())) } catch { outcome.set(.failure(error)) }
        done.signal()
    }
    done.wait()
    // `done` is signalled only after `set`.
    return try outcome.result!.get()
}

/// What `runBlocking`'s task ended with, handed to the blocked thread.
private final class BlockingOutcome<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    // Guarded by `lock`.
    private var stored: Result<T, any Error>?

    func set(_ result: Result<T, any Error>) { lock.withLock { stored = result } }
    var result: Result<T, any Error>? { lock.withLock { stored } }
}
