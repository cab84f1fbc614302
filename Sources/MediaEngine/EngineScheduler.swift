/// What the public objects (`MediaEngine`, `Room`, participants, tracks) post their work to: the
/// one place the engine's runtime is touched. `EngineLoop` runs the jobs on the engine's own
/// thread in real time; `VirtualTimeLoop` (MediaEngineTesting's `VirtualTimeEngine`) runs them
/// at once on the caller's thread and serves timers and datagrams only when a test advances its
/// manual clock.
protocol EngineScheduler: AnyObject, Sendable {
    /// Whether jobs are still taken.
    var isOpen: Bool { get }

    /// Runs `body` with the runtime and returns its result; `.closed` once the engine stopped.
    func perform<T: Sendable>(_ body: @escaping @Sendable (EngineRuntime) throws(EngineError) -> T) async throws(EngineError) -> T

    /// Runs `body` with the runtime and returns the result it hands to its completion, at once or
    /// later (a Janus connect finishing on the signalling worker); a throw from `body` is the result.
    func performDeferred<T: Sendable>(
        _ body: @escaping @Sendable (EngineRuntime, @escaping @Sendable (Result<T, EngineError>) -> Void) throws(EngineError) -> Void
    ) async throws(EngineError) -> T

    /// A frame was pushed: serve it now rather than at the next deadline. Any thread.
    func wake()

    /// Stops taking jobs and shuts the runtime down (every participant says goodbye), without
    /// waiting; false if it was already told.
    @discardableResult
    func requestStop() -> Bool

    /// Stops as `requestStop` does and waits until the runtime has shut down. Idempotent.
    func stop() async
}

extension EngineLoop: EngineScheduler {}
