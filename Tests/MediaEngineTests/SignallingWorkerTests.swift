import Dispatch
import Foundation
import Testing
@testable import MediaEngine

/// Blocking signalling off the loop (`SignallingWorker`, `EngineLoop.performDeferred`): the loop
/// serves other jobs while the worker works, the result comes back as a loop job, and work that
/// finishes after the loop stopped is handed to `ifStopped` instead.
@Suite struct SignallingWorkerTests {
    @Test func theLoopServesOtherJobsWhileTheWorkerBlocks() async throws {
        let loop = EngineLoop()
        let released = DispatchSemaphore(value: 0)
        async let answer: Int = loop.performDeferred { runtime, finish in
            runtime.signalling.run({ () -> Int in
                released.wait()  // a slow HTTP exchange
                return 42
            }, then: { _, value in finish(.success(value)) }, ifStopped: { _ in finish(.failure(.closed("the engine"))) })
        }
        // The loop is free meanwhile.
        #expect(try await loop.perform { runtime in runtime.rooms.count } == 0)
        released.signal()
        #expect(try await answer == 42)
        await loop.stop()
    }

    @Test func workFinishingAfterTheLoopStoppedGoesToIfStopped() async {
        let loop = EngineLoop()
        let worker = SignallingWorker { job in loop.post(job) }
        await loop.stop()
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            worker.run({ "connected" }, then: { _, _ in continuation.resume(returning: "on the loop") },
                       ifStopped: { value in continuation.resume(returning: "\(value), let go of") })
        }
        #expect(outcome == "connected, let go of")
    }
}
