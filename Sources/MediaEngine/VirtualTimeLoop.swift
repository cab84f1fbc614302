import Foundation
package import EngineCore
internal import RTPWire
internal import SessionCore

/// The engine's runtime on virtual time (issue 27 item 4), driven NIOEmbedded-style
/// (`EmbeddedEventLoop.advanceTime(by:)`): no thread. A job the public API posts runs at once, on
/// the caller's thread; timers, pacing and datagrams run only inside `advance(byMicroseconds:)`,
/// which steps the manual clock from one deadline to the next (the rooms' next tick, the
/// simulated network's next delivery) and runs each pass there. The clock is the simulated
/// network's (`SimulatedNetwork.clock`), the random source a seeded `SplitMix64`: one seed and
/// one sequence of calls replay one run exactly. Real libvpx, libopus and libsrtp do the work;
/// only time and the network are simulated. Hosted rooms only (`MediaEngine.hostRoom`): Janus
/// and plain RTP open real sockets.
///
/// Every call is serialised by one lock; a job, an `advance` and a read of the event log never
/// overlap.
package final class VirtualTimeLoop: EngineScheduler, @unchecked Sendable {
    private let lock = NSLock()
    // Everything below is guarded by `lock`.
    private let runtime: EngineRuntime
    private let network: SimulatedEngineNetwork
    private var running = true
    private var events: [String: [ParticipantEvent]] = [:]
    private var descriptors: [Int32] = []

    /// A runtime on `network`'s time, drawing random numbers from `seed`.
    package init(network: SimulatedNetwork, seed: UInt64) {
        let simulated = SimulatedEngineNetwork(network: network)
        self.network = simulated
        runtime = EngineRuntime(clock: network.clock, random: .seeded(seed), network: simulated)
        runtime.eventTap = { [unowned self] participantId, event in events[participantId, default: []].append(event) }
    }

    // MARK: - EngineScheduler

    package var isOpen: Bool { lock.withLock { running } }

    func perform<T: Sendable>(_ body: @escaping @Sendable (EngineRuntime) throws(EngineError) -> T) async throws(EngineError) -> T {
        let result = lock.withLock { () -> Result<T, EngineError> in
            guard running else { return .failure(.closed("the engine")) }
            return Result { () throws(EngineError) -> T in try body(runtime) }
        }
        return try result.get()
    }

    /// `body` runs at once; hosted rooms complete at once too (their backends are immediate).
    func performDeferred<T: Sendable>(
        _ body: @escaping @Sendable (EngineRuntime, @escaping @Sendable (Result<T, EngineError>) -> Void) throws(EngineError) -> Void
    ) async throws(EngineError) -> T {
        let result: Result<T, EngineError> = await withCheckedContinuation { continuation in
            lock.withLock {
                guard running else { return continuation.resume(returning: .failure(.closed("the engine"))) }
                do throws(EngineError) {
                    try body(runtime) { continuation.resume(returning: $0) }
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Nothing to wake: pushed frames leave at the next pass of `advance`.
    func wake() {}

    @discardableResult
    func requestStop() -> Bool {
        lock.withLock {
            guard running else { return false }
            running = false
            runtime.shutdown()
            return true
        }
    }

    func stop() async { requestStop() }

    // MARK: - Virtual time

    /// Virtual microseconds since the network's start.
    package var nowMicroseconds: Int64 { lock.withLock { network.network.nowMicroseconds } }

    /// Moves virtual time on by `microseconds`: a pass at once, then one at every deadline on the
    /// way (the rooms' next tick; the network's next delivery), each at its own virtual instant.
    /// Returns the passes run.
    @discardableResult
    package func advance(byMicroseconds microseconds: Int64) -> Int {
        lock.withLock {
            guard running else { return 0 }
            let simulated = network.network
            let end = simulated.nowMicroseconds + max(0, microseconds)
            var passes = 0
            while true {
                runtime.tick()
                passes += 1
                let now = simulated.nowMicroseconds
                descriptors.removeAll(keepingCapacity: true)
                var next = runtime.readiness(now: now, into: &descriptors) ?? end
                if let delivery = network.nextDeliveryMicroseconds { next = min(next, delivery) }
                next = max(next, now + 1)
                guard next <= end else { break }
                simulated.advance(microseconds: next - now)
            }
            simulated.advance(microseconds: end - simulated.nowMicroseconds)
            return passes
        }
    }

    /// Every event `participantId` was told so far, in order (what its `events` stream carries,
    /// kept without a reader and without a limit).
    package func events(of participantId: String) -> [ParticipantEvent] {
        lock.withLock { events[participantId] ?? [] }
    }

    /// Sends what `participantId` receives through the network's bottleneck with
    /// `configuration` (nil: nobody's).
    package func impairDownlink(of participantId: String?, with configuration: NetworkImpairment.Configuration) {
        lock.withLock { network.impairDownlink(of: participantId, with: configuration) }
    }

    /// What the bottleneck did so far (drops, queue).
    package var bottleneckStatistics: NetworkImpairment.Statistics { lock.withLock { network.network.bottleneck.statistics } }
}
