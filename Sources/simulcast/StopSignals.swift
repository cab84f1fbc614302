import Dispatch
import Glibc
import Synchronization

/// Set by SIGTERM/SIGINT while a sending command runs: stop sending, say goodbye, print the summary.
let stopRequested = Atomic<Bool>(false)

/// Posted by the handlers (`sem_post` is async-signal-safe) and by `restore()`, so `stopped()`
/// wakes without polling. Lives as long as the process; set up by `install()` before the
/// handlers can run.
nonisolated(unsafe) private let stopSemaphore: UnsafeMutablePointer<sem_t> = {
    let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    sem_init(semaphore, 0, 0)
    return semaphore
}()

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
        while sem_trywait(stopSemaphore) == 0 {}  // wake-ups left from an earlier command
        let handler: @convention(c) (Int32) -> Void = { _ in
            stopRequested.store(true, ordering: .relaxed)
            sem_post(stopSemaphore)
        }
        return StopSignals(previousTerm: signal(SIGTERM, handler), previousInt: signal(SIGINT, handler))
    }

    /// Whether a stop was asked for.
    var requested: Bool { stopRequested.load(ordering: .relaxed) }

    /// Waits until a stop is asked for (true) or `restore()` is called (false). One waiter per
    /// `install()`.
    func stopped() async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                while sem_wait(stopSemaphore) != 0, errno == EINTR {}
                continuation.resume(returning: stopRequested.load(ordering: .relaxed))
            }
        }
    }

    func restore() {
        signal(SIGTERM, previousTerm)
        signal(SIGINT, previousInt)
        sem_post(stopSemaphore)  // a waiting `stopped()` returns
    }
}
