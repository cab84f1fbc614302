/// A value that is not `Sendable` handed between the engine's loop and the signalling worker
/// (`SignallingWorker`): a Janus session connected on the worker and then run by the loop, a
/// completion the loop calls once the worker is done. Only one side uses the value at a time; the
/// hand-off (a queue or the loop's job list, both locked) orders the two.
struct LoopHandOff<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
