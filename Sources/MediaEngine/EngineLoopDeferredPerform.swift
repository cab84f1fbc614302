/// What a deferred loop job hands its result to (`EngineLoop.performDeferred`): called once,
/// from the loop or the signalling worker.
typealias LoopCompletion<T> = (Result<T, EngineError>) -> Void

extension EngineLoop {
    /// Runs `body` on the loop and returns the result it hands to its completion, at once or
    /// later (a Janus connect finishing on the signalling worker): the loop serves everything else
    /// meanwhile. A throw from `body` is the result.
    func performDeferred<T: Sendable>(
        _ body: @escaping @Sendable (EngineRuntime, @escaping @Sendable (Result<T, EngineError>) -> Void) throws(EngineError) -> Void
    ) async throws(EngineError) -> T {
        let result: Result<T, EngineError> = await withCheckedContinuation { continuation in
            let accepted = post { runtime in
                do throws(EngineError) {
                    try body(runtime) { continuation.resume(returning: $0) }
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            if !accepted { continuation.resume(returning: .failure(.closed("the engine"))) }
        }
        return try result.get()
    }
}
