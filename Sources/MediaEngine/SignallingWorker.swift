import Dispatch

/// Where the blocking signalling of the rooms the engine joins elsewhere runs, so the engine's
/// loop never waits on it: Janus's HTTP API (`JanusHTTPClient`: requests, long polls, keepalives,
/// each bounded by `BoundedHTTPExchange`) and the ICE + DTLS connect that follows an answer. One
/// serial queue, in the order given; what a piece of work produced comes back to the loop as a
/// job (`post`, the loop's own).
final class SignallingWorker: Sendable {
    /// Posts a job to the engine's loop; false once the loop stopped.
    typealias Post = @Sendable (@escaping @Sendable (EngineRuntime) -> Void) -> Bool

    private let queue = DispatchQueue(label: "MediaEngine signalling", qos: .userInitiated)
    private let post: Post

    init(post: @escaping Post) {
        self.post = post
    }

    /// Runs `work` on the worker, after the work given before it.
    func run(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }

    /// Runs `work` on the worker, then `then` on the loop with what it produced; when the loop
    /// has stopped meanwhile, `ifStopped` gets it instead, on the worker (to let go of it there).
    func run<Value>(_ work: @escaping @Sendable () -> Value, then: @escaping @Sendable (EngineRuntime, Value) -> Void,
                    ifStopped: @escaping @Sendable (Value) -> Void) {
        let post = post
        queue.async {
            let value = LoopHandOff(work())
            if !post({ runtime in then(runtime, value.value) }) { ifStopped(value.value) }
        }
    }

    /// Hands `job` to the loop from any thread (what a Janus event long poll read, `JanusRoomPresence`);
    /// false once the loop stopped.
    func postToLoop(_ job: @escaping @Sendable (EngineRuntime) -> Void) -> Bool {
        post(job)
    }

    /// Waits until every piece of work given so far has run (the loop's last act, so that goodbyes
    /// reach the SFU before `MediaEngine.close` returns).
    func waitUntilIdle() {
        queue.sync {}
    }
}
