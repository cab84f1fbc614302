import Dispatch
import Foundation
import Glibc

/// SIGTERM and SIGINT turned into a stop for the duration of a sending command (`send`,
/// `publish`): stop sending, say goodbye, print the summary. Each install has its own dispatch
/// signal sources and its own waiter, so commands running side by side in one process (the
/// tests do) never take each other's wake-ups; the previous dispositions come back at `restore()`.
final class StopSignals: @unchecked Sendable {
    private let lock = NSLock()
    // Guarded by `lock`.
    private var outcome: Bool?
    private var waiter: CheckedContinuation<Bool, Never>?
    private var sources: [DispatchSourceSignal] = []
    private var previous: [(signal: Int32, handler: sighandler_t?)] = []

    private init() {}

    static func install() -> StopSignals {
        let stop = StopSignals()
        for number in [SIGTERM, SIGINT] {
            // The default action would end the process before the source sees the signal.
            stop.previous.append((number, signal(number, SIG_IGN)))
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak stop] in stop?.finish(stopRequested: true) }
            source.resume()
            stop.sources.append(source)
        }
        return stop
    }

    /// Whether a stop was asked for.
    var requested: Bool { lock.withLock { outcome == true } }

    /// Waits until a stop is asked for (true) or `restore()` is called (false).
    func stopped() async -> Bool {
        await withCheckedContinuation { continuation in
            let ready = lock.withLock { () -> Bool? in
                if let outcome { return outcome }
                waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The signals' previous dispositions back; a waiting `stopped()` returns false.
    func restore() {
        for source in lock.withLock({ sources }) { source.cancel() }
        for (number, handler) in previous { signal(number, handler) }
        finish(stopRequested: false)
    }

    private func finish(stopRequested: Bool) {
        let waiting = lock.withLock { () -> CheckedContinuation<Bool, Never>? in
            guard outcome == nil else { return nil }
            outcome = stopRequested
            defer { waiter = nil }
            return waiter
        }
        waiting?.resume(returning: stopRequested)
    }
}
