import Foundation

/// What one process did between two `ProcessActivity` snapshots: wake-ups (voluntary context
/// switches) a second of every thread and of all of them, preemptions a second, and CPU as a
/// percentage of one core.
struct IdleMeasurement: Codable, Sendable {
    struct ThreadRate: Codable, Sendable {
        var id: Int
        var name: String
        var wakeupsPerSecond: Double
        var preemptionsPerSecond: Double
        /// Where the thread was seen: "both", "end" (it began during the window) or "start" (it
        /// ended during the window).
        var seenAt: String
    }

    var seconds: Double
    var wakeupsPerSecond: Double
    var preemptionsPerSecond: Double
    var cpuPercentOfOneCore: Double
    /// One clock tick as a percentage of one core over `seconds`: CPU % is only this fine.
    var cpuPercentResolution: Double
    var threadsAtStart: Int
    var threadsAtEnd: Int
    /// Busiest first (most wake-ups a second; then by id).
    var threads: [ThreadRate]

    var busiestThread: ThreadRate? { threads.first }

    /// The rates between `start` and `end`, `seconds` apart, for a clock of `ticksPerSecond`.
    ///
    /// A thread seen only at the end began during the window, so all its switches happened in it:
    /// they count in full. A thread seen only at the start ended during the window: what it did
    /// after `start` is not readable anywhere (procfs keeps no per-process sum of context
    /// switches, only each live thread's), so it counts 0. A thread id whose counts went down
    /// was reused by a new thread and counts as one seen only at the end. CPU time has no such
    /// gap: the process's utime + stime hold the time of threads that ended.
    init(from start: ProcessActivity, to end: ProcessActivity, seconds: Double, ticksPerSecond: Int) {
        var rates: [ThreadRate] = []
        for (id, thread) in end.threads {
            let before = start.threads[id].flatMap { $0.voluntarySwitches <= thread.voluntarySwitches ? $0 : nil }
            rates.append(ThreadRate(
                id: id, name: thread.name,
                wakeupsPerSecond: Double(thread.voluntarySwitches - (before?.voluntarySwitches ?? 0)) / seconds,
                preemptionsPerSecond: Double(max(0, thread.nonvoluntarySwitches - (before?.nonvoluntarySwitches ?? 0))) / seconds,
                seenAt: before == nil ? "end" : "both"))
        }
        for (id, thread) in start.threads where end.threads[id] == nil {
            rates.append(ThreadRate(id: id, name: thread.name, wakeupsPerSecond: 0, preemptionsPerSecond: 0, seenAt: "start"))
        }
        rates.sort { ($0.wakeupsPerSecond, -$0.id) > ($1.wakeupsPerSecond, -$1.id) }
        let ticks = Double(ticksPerSecond)
        self.seconds = seconds
        wakeupsPerSecond = rates.reduce(0) { $0 + $1.wakeupsPerSecond }
        preemptionsPerSecond = rates.reduce(0) { $0 + $1.preemptionsPerSecond }
        cpuPercentOfOneCore = Double(end.cpuTicks - start.cpuTicks) / ticks / seconds * 100
        cpuPercentResolution = 1 / ticks / seconds * 100
        threadsAtStart = start.threads.count
        threadsAtEnd = end.threads.count
        threads = rates
    }
}

extension IdleMeasurement {
    /// What `child` did over the next `seconds`: its `/proc` activity at both ends of the
    /// window and the time between them (a child that ended meanwhile is an error).
    static func sample(_ child: BenchChildProcess, scenario: String, seconds: Int, ticksPerSecond: Int)
        throws(ChildBenchError) -> IdleMeasurement {
        let clock = ContinuousClock()
        let start = try ProcessActivity.read(child.processID)
        let startedAt = clock.now
        Thread.sleep(forTimeInterval: Double(seconds))
        let end = try ProcessActivity.read(child.processID)
        let elapsed = startedAt.duration(to: clock.now)
        // A child that ended (a zombie not yet reaped) still has a stat file: ask whether it runs.
        guard child.isRunning else { throw .childEnded(scenario: scenario) }
        let elapsedSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return IdleMeasurement(from: start, to: end, seconds: elapsedSeconds, ticksPerSecond: ticksPerSecond)
    }
}
