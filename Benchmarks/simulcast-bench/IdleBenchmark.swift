import CommandLineSupport
import Foundation
import Glibc

let idleUsage = """
usage: simulcast-bench idle [--seconds N] [--settle S] [--scenarios sleep,engine,room,camera,audio-call] [--json PATH]
  Wake-ups a second of every thread (voluntary context switches) and CPU % of one core of an idle
  engine, each scenario in a child process of its own, next to a process that only sleeps (issue 27).
  --seconds N        sampling window per scenario (default 20)
  --settle S         seconds between the child's set-up and the window (default 2)
  --scenarios NAMES  comma-separated, default all in this order:
\(IdleScenario.allCases.map { "                     \($0.rawValue): \($0.summary)" }.joined(separator: "\n"))
  --json PATH        the report as JSON: every thread's rates, where and when it was measured
"""

/// `simulcast-bench idle`: for each scenario, starts a child (`BenchChild`), waits until it is
/// ready and has settled, then reads its procfs counts at both ends of the window
/// (`ProcessActivity`, `IdleMeasurement`). One child at a time, so no scenario's process runs
/// beside another's. The parent only sleeps meanwhile; what it does is not counted.
///
/// The child is this executable, which links the allocation counter (`AllocationCounter`): it
/// adds one relaxed atomic add per allocation, nothing that wakes a thread.
func runIdle(_ arguments: ArraySlice<String>) throws {
    let options = try CommandLineArguments(arguments, valueOptions: ["seconds", "settle", "scenarios", "json", "child"])
    let seconds = try options.int("seconds", default: 20, range: 1...3600)
    if let child = options.string("child") {
        guard let scenario = IdleScenario(rawValue: child) else { throw unknownScenario(child, option: "child") }
        try BenchChild.run(scenario.rawValue, holdSeconds: seconds) { try await scenario.setUp() }
        return
    }
    let settle = try options.int("settle", default: 2, range: 0...600)
    let scenarios = try (options.string("scenarios")?.split(separator: ",").map(String.init)
        ?? IdleScenario.allCases.map(\.rawValue)).map { name in
        guard let scenario = IdleScenario(rawValue: name) else { throw unknownScenario(name, option: "scenarios") }
        return scenario
    }
    let ticksPerSecond = sysconf(Int32(_SC_CLK_TCK))
    guard ticksPerSecond > 0 else { throw ValidationError(message: "sysconf(_SC_CLK_TCK) gave \(ticksPerSecond)") }

    var results: [IdleReport.Scenario] = []
    for scenario in scenarios {
        writeToStandardError("idle: \(scenario.rawValue) (\(scenario.summary)), \(settle) + \(seconds) s...\n")
        let measurement = try measureIdle(scenario, settle: settle, seconds: seconds, ticksPerSecond: ticksPerSecond)
        results.append(IdleReport.Scenario(name: scenario.rawValue, summary: scenario.summary, measurement: measurement))
    }
    let report = IdleReport(settleSeconds: settle, seconds: seconds, clockTicksPerSecond: ticksPerSecond, scenarios: results)
    print(report.markdown())
    if let path = options.string("json") { try writeJSON(report, to: path) }
}

/// One scenario's child, from start to reaped.
private func measureIdle(_ scenario: IdleScenario, settle: Int, seconds: Int, ticksPerSecond: Int)
    throws(ChildBenchError) -> IdleMeasurement {
    // Time enough to start, settle and be measured; the parent stops it as soon as it has.
    let readyTimeout = 60
    let child = try BenchChildProcess(scenario: scenario.rawValue, arguments: [
        "idle", "--child", scenario.rawValue, "--seconds", "\(readyTimeout + settle + seconds + 30)"])
    defer { child.stop() }
    try child.waitUntilReady(timeoutSeconds: readyTimeout)
    Thread.sleep(forTimeInterval: Double(settle))
    return try IdleMeasurement.sample(child, scenario: scenario.rawValue, seconds: seconds, ticksPerSecond: ticksPerSecond)
}

private func unknownScenario(_ name: String, option: String) -> ValidationError {
    ValidationError(message: "--\(option) \(name): expected names from \(IdleScenario.allCases.map(\.rawValue).joined(separator: ","))")
}
