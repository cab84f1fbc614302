import Glibc
import Synchronization

/// Set by SIGTERM/SIGINT while a sending command runs: stop sending, say goodbye, print the summary.
let stopRequested = Atomic<Bool>(false)

/// SIGTERM and SIGINT turned into a flag for the duration of a sending command (`send`,
/// `publish`), the previous handlers restored afterwards.
struct StopSignals {
    private let previousTerm: sighandler_t?
    private let previousInt: sighandler_t?

    private init(previousTerm: sighandler_t?, previousInt: sighandler_t?) {
        self.previousTerm = previousTerm
        self.previousInt = previousInt
    }

    static func install() -> StopSignals {
        stopRequested.store(false, ordering: .relaxed)
        return StopSignals(previousTerm: signal(SIGTERM) { _ in stopRequested.store(true, ordering: .relaxed) },
                           previousInt: signal(SIGINT) { _ in stopRequested.store(true, ordering: .relaxed) })
    }

    /// Whether a stop was asked for.
    var requested: Bool { stopRequested.load(ordering: .relaxed) }

    func restore() {
        signal(SIGTERM, previousTerm)
        signal(SIGINT, previousInt)
    }
}
