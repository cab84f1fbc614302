import Dispatch
import Foundation
import Glibc

/// The engine's one thread (the house rule "the engine owns its loop"): every endpoint object
/// (publishers, nodes, subscribers: none of them `Sendable`) lives on it and is touched only by
/// jobs run there. Public objects post jobs (`post`, `perform`); between jobs the loop runs
/// `tick` at least every `tickMilliseconds` (sockets drained, timers and pacing served) while
/// the runtime has a room or output, and sleeps until the next job while it has none.
final class EngineLoop: @unchecked Sendable {
    /// A job: runs on the loop thread with the loop-confined runtime.
    typealias Job = (EngineRuntime) -> Void

    private let lock = NSLock()
    // Guarded by `lock`.
    private var jobs: [Job] = []
    private var isRunning = true
    // Guarded by `lock`: the running thread, nil once it ended.
    private var thread: Thread?
    // Guarded by `lock`: the loop thread's kernel id (`gettid`), once it runs.
    private var kernelThreadID: pid_t?
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    /// Only touched on the loop thread.
    private let runtime: EngineRuntime
    let tickMilliseconds: Int

    init(tickMilliseconds: Int = 2) {
        self.tickMilliseconds = max(1, tickMilliseconds)
        runtime = EngineRuntime()
        let thread = Thread { [self] in run() }
        thread.name = "MediaEngine loop"
        thread.qualityOfService = .userInteractive
        self.thread = thread
        thread.start()
    }

    /// Whether jobs are still taken.
    var isOpen: Bool { lock.withLock { isRunning } }

    /// Queues `job`; false once the loop stopped (the job is not run).
    @discardableResult
    func post(_ job: @escaping @Sendable Job) -> Bool {
        let accepted = lock.withLock { () -> Bool in
            guard isRunning else { return false }
            jobs.append(job)
            return true
        }
        if accepted { wake.signal() }
        return accepted
    }

    /// Runs `body` on the loop and returns its result.
    func perform<T: Sendable>(_ body: @escaping @Sendable (EngineRuntime) throws(EngineError) -> T) async throws(EngineError) -> T {
        let result: Result<T, EngineError> = await withCheckedContinuation { continuation in
            let accepted = post { runtime in
                continuation.resume(returning: Result { () throws(EngineError) -> T in try body(runtime) })
            }
            if !accepted { continuation.resume(returning: .failure(.closed("the engine"))) }
        }
        return try result.get()
    }

    /// Tells the loop to stop after the jobs already queued and a last `shutdown` of the
    /// runtime, without waiting; false if it was already told.
    @discardableResult
    func requestStop() -> Bool {
        let first = lock.withLock { () -> Bool in
            guard isRunning else { return false }
            isRunning = false
            return true
        }
        if first { wake.signal() }
        return first
    }

    /// Stops the loop as `requestStop` does and waits for it. Idempotent.
    func stop() async {
        guard requestStop() else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { [stopped] in
                stopped.wait()
                stopped.signal()  // later stop() calls find it signalled too
                continuation.resume()
            }
        }
    }

    /// The loop thread's kernel id (`/proc/self/task/<id>`), once it has started.
    var threadID: pid_t? { lock.withLock { kernelThreadID } }

    /// The loop thread's name as the system shows it (`/proc/<pid>/task/<tid>/comm`, at most 15 bytes).
    static let threadName = "MediaEngine"

    private func run() {
        // pthread_setname_np is not visible to Swift here; the kernel takes the same write (PR_SET_NAME).
        if let comm = fopen("/proc/thread-self/comm", "w") {
            fputs(Self.threadName, comm)
            fclose(comm)
        }
        // /proc/thread-self links to "<pid>/task/<tid>" (gettid's number without a syscall binding).
        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
        let id = link.split(separator: "/").last.flatMap { pid_t($0) }
        lock.withLock { kernelThreadID = id }
        while true {
            let (batch, running) = lock.withLock { () -> ([Job], Bool) in
                defer { jobs.removeAll(keepingCapacity: true) }
                return (jobs, isRunning)
            }
            for job in batch { job(runtime) }
            runtime.tick()
            guard running else { break }
            if runtime.rooms.isEmpty {
                wake.wait()  // nothing to serve: sleep until a job comes (no idle wake-ups)
            } else {
                _ = wake.wait(timeout: .now() + .milliseconds(tickMilliseconds))
            }
        }
        runtime.shutdown()
        // The thread's block holds the loop: let go of the thread so both can be freed.
        lock.withLock { thread = nil }
        stopped.signal()
    }
}
