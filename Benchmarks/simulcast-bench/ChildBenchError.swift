/// Why a benchmark that measures a scenario in a child process (`simulcast-bench idle`,
/// `simulcast-bench call`) could not measure it.
enum ChildBenchError: Error, CustomStringConvertible {
    /// A procfs file could not be read (the process ended, or procfs is not mounted).
    case procUnreadable(path: String, reason: String)
    /// A procfs file did not hold the field proc(5) says it holds.
    case malformed(path: String, field: String)
    /// The child process could not be started.
    case childNotStarted(scenario: String, reason: String)
    /// The child ended, or printed something else, before it said it was ready.
    case childNotReady(scenario: String, output: String)
    /// The child did not say it was ready within the time allowed.
    case childReadyTimeout(scenario: String, seconds: Int)
    /// The child ended while it was being measured.
    case childEnded(scenario: String)
    /// The scenario's set-up through the public API failed (in the child).
    case setupFailed(scenario: String, reason: String)
    /// Asked to finish, the child did not end within the time allowed (it was killed).
    case childFinishTimeout(scenario: String, seconds: Int)
    /// The child ended, but its summary line was missing or not what it should be.
    case childSummaryUnreadable(scenario: String, output: String)

    var description: String {
        switch self {
        case let .procUnreadable(path, reason): return "cannot read \(path): \(reason)"
        case let .malformed(path, field): return "\(path): no readable \(field)"
        case let .childNotStarted(scenario, reason): return "scenario \(scenario): the child did not start: \(reason)"
        case let .childNotReady(scenario, output):
            return "scenario \(scenario): the child ended before it was ready (its output: \(output.isEmpty ? "none" : output))"
        case let .childReadyTimeout(scenario, seconds): return "scenario \(scenario): the child was not ready after \(seconds) s"
        case let .childEnded(scenario): return "scenario \(scenario): the child ended while it was measured"
        case let .setupFailed(scenario, reason): return "scenario \(scenario): set-up failed: \(reason)"
        case let .childFinishTimeout(scenario, seconds): return "scenario \(scenario): the child had not ended \(seconds) s after it was asked to"
        case let .childSummaryUnreadable(scenario, output):
            return "scenario \(scenario): the child's summary is unreadable (its output: \(output.isEmpty ? "none" : output))"
        }
    }
}
