import MediaEngine
import MediaEngineTesting
import Synchronization

/// The clock of a demo call: when it started (for event times), and its moments in order: a
/// tick once a second, the throttled viewer's downlink squeezed and opened again, the end.
final class DemoTimeline: Sendable {
    private let start = Mutex<ContinuousClock.Instant?>(nil)

    /// Milliseconds since `run` began (0 before).
    var elapsedMilliseconds: Int64 {
        guard let start = start.withLock({ $0 }) else { return 0 }
        let elapsed = ContinuousClock.now - start
        return elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
    }

    /// Marks the start, then waits through the call: `tick(second)` once a second, `viewer`'s
    /// downlink in `room` limited to `throttle.kbps` from `throttle.from` to `throttle.to`
    /// seconds (none if the window is empty), until `seconds`.
    func run(seconds: Double, throttle: (viewer: String, kbps: Int, from: Double, to: Double), room: Room,
             tick: (Int) async -> Void) async throws {
        let clock = ContinuousClock()
        let begin = clock.now
        start.withLock { $0 = begin }
        var moments: [(seconds: Double, action: Moment)] = []
        for second in stride(from: 1.0, to: seconds, by: 1) { moments.append((second, .tick(Int(second)))) }
        if throttle.to > throttle.from {
            moments.append((throttle.from, .throttle(throttle.kbps * 1000)))
            moments.append((throttle.to, .throttle(nil)))
        }
        moments.append((seconds, .end))
        for (at, action) in moments.sorted(by: { $0.seconds < $1.seconds }) {
            try await clock.sleep(until: begin + .milliseconds(Int64(at * 1000)))
            switch action {
            case let .tick(second): await tick(second)
            case let .throttle(bitsPerSecond): try await room.limitDownlink(of: throttle.viewer, to: bitsPerSecond)
            case .end: return
            }
        }
    }

    private enum Moment {
        case tick(Int)
        case throttle(Int?)
        case end
    }
}
