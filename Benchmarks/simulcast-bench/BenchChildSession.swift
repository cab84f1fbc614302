/// What a `BenchChild` holds while it is measured: the engine and whatever a client would hold
/// (rooms, participants, tracks, the tasks reading their streams).
protocol BenchChildSession: Sendable {
    /// One line (no newline in it) the child writes for its parent after the measurement, or
    /// nil: what the parent cannot read from procfs (frames decoded, layers received).
    func summaryLine() async -> String?
    /// Closes the engine, which ends every stream, and waits for the readers to finish.
    func close() async
}
