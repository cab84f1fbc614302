import Dispatch
import Foundation
import Glibc
internal import CShims
internal import EngineCore

/// The engine's one thread (the house rule "the engine owns its loop"): every endpoint object
/// (publishers, nodes, subscribers: none of them `Sendable`) lives on it and is touched only by
/// jobs run there. Public objects post jobs (`post`, `perform`) and wake it through an eventfd.
///
/// Readiness-driven: after each pass the loop waits in `poll` on the eventfd and every socket
/// the runtime lists, until one is readable or the earliest deadline of its `RoomSchedule` (a
/// `TimerHeap` of every room's next deadline: the earliest of its endpoints' timers, no fixed
/// grain, `RoomBackend.nextDeadline`), forever with nothing to serve. A readable socket is
/// served at once (its room only), a due deadline serves its room, a wake-up (job, pushed frame)
/// serves every room. `poll` rather than `epoll`: the set is listed afresh each wait (rooms add
/// and drop sockets as connections come and go) and holds a handful of descriptors per room.
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
    /// Written by `post`, `requestStop` and `wake`; read (reset) by the loop.
    private let wakeDescriptor: Int32
    private let stopped = DispatchSemaphore(value: 0)
    /// Only touched on the loop thread.
    private let runtime: EngineRuntime
    let tickMilliseconds: Int

    init(tickMilliseconds: Int = 2) {
        self.tickMilliseconds = max(1, tickMilliseconds)
        runtime = EngineRuntime()
        // Without an eventfd (descriptors exhausted) the loop still runs: it ticks and sleeps
        // at most `tickMilliseconds` between passes instead of being woken.
        wakeDescriptor = cshim_eventfd_nonblocking()
        runtime.signalling = SignallingWorker { [weak self] job in self?.post(job) ?? false }
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
        if accepted { wake() }
        return accepted
    }

    /// Wakes the loop for a pass now (a frame was pushed, a job posted). Any thread.
    func wake() {
        guard wakeDescriptor >= 0 else { return }
        var one: UInt64 = 1
        _ = Glibc.write(wakeDescriptor, &one, MemoryLayout<UInt64>.size)
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
        if first { wake() }
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

    /// Reused between passes (loop thread only).
    private var pollDescriptors: [pollfd] = []
    private var socketDescriptors: [Int32] = []
    /// Positions (in `socketDescriptors`) of the sockets the last wait found readable.
    private var readyIndices: [Int] = []

    /// Sleeps until the eventfd or a runtime socket is readable, or the runtime's next deadline.
    /// Returns whether the eventfd woke it (a job or a frame: the next pass serves every room);
    /// `readyIndices` holds the readable sockets.
    private func waitForReadiness() -> Bool {
        let now = runtime.clock.monotonicMicroseconds()
        socketDescriptors.removeAll(keepingCapacity: true)
        readyIndices.removeAll(keepingCapacity: true)
        let deadline = runtime.readiness(now: now, into: &socketDescriptors)
        var timeout: Int32 = -1
        if let deadline { timeout = Int32(clamping: max(0, (deadline - now + 999) / 1000)) }  // rounded up: never early
        if wakeDescriptor < 0 { timeout = timeout < 0 ? Int32(tickMilliseconds) : min(timeout, Int32(tickMilliseconds)) }
        pollDescriptors.removeAll(keepingCapacity: true)
        pollDescriptors.append(pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0))
        for descriptor in socketDescriptors { pollDescriptors.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)) }
        let ready = poll(&pollDescriptors, nfds_t(pollDescriptors.count), timeout)
        guard ready > 0 else { return wakeDescriptor < 0 }
        for index in 1..<pollDescriptors.count where pollDescriptors[index].revents != 0 { readyIndices.append(index - 1) }
        guard pollDescriptors[0].revents != 0 else { return false }
        var count: UInt64 = 0
        _ = Glibc.read(wakeDescriptor, &count, MemoryLayout<UInt64>.size)
        return true
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
        var woken = true
        while true {
            let (batch, running) = lock.withLock { () -> ([Job], Bool) in
                defer { jobs.removeAll(keepingCapacity: true) }
                return (jobs, isRunning)
            }
            for job in batch { job(runtime) }
            runtime.tick(everyRoom: woken || !batch.isEmpty, readyIndices: readyIndices)
            guard running else { break }
            woken = waitForReadiness()
        }
        runtime.shutdown()
        runtime.signalling.waitUntilIdle()  // goodbyes sent (Janus's leave), connects in flight let go of
        if wakeDescriptor >= 0 { close(wakeDescriptor) }
        // The thread's block holds the loop: let go of the thread so both can be freed.
        lock.withLock { thread = nil }
        stopped.signal()
    }
}
