import CommandLineSupport
import Foundation
import Glibc

let callUsage = """
usage: simulcast-bench call [--seconds N] [--settle S] [--frequency HZ] [--json PATH] [--perf-data PATH]
  A 1:1 call through a hosted room in a child process (public API only): two participants, each
  publishing a 1280x720 camera with three layers and Opus, each receiving the other at a 1280x720
  viewport. The process's total CPU (/proc) split by shared object with `perf record -e cpu-clock`
  into libvpx, libopus, libyuv, libsrtp2 + its crypto, the kernel and everything else (issue 27:
  everything else at most 10 % of the codec work). Without perf, only the total.
  --seconds N        the measured window (default 30)
  --settle S         seconds between the call's set-up and the window (default 3)
  --frequency HZ     perf samples a second of CPU time (default 999)
  --json PATH        the report as JSON: the split, every shared object's samples, the call's counters
  --perf-data PATH   keep perf's data file here (default: a temporary file, removed)
"""

/// `simulcast-bench call`: starts the call in a child (`BenchChild` running `CallScenario`),
/// waits until it is ready and has settled, then over the window samples it with perf
/// (`PerfRecording`, switched on and off at the window's ends) and reads its procfs counts at
/// both ends (`ProcessActivity`), asks it for its summary (`CallSummary`) and reports
/// (`CallReport`). The parent only waits meanwhile; perf runs beside the child, its own cost not
/// counted in the child's.
func runCall(_ arguments: ArraySlice<String>) throws {
    let options = try CommandLineArguments(arguments, valueOptions: ["seconds", "settle", "frequency", "json", "perf-data"],
                                           flagOptions: ["child"])
    let seconds = try options.int("seconds", default: 30, range: 1...3600)
    if options.flag("child") {
        try BenchChild.run(CallScenario.name, holdSeconds: seconds) { try await CallScenario.setUp() }
        return
    }
    let settle = try options.int("settle", default: 3, range: 0...600)
    let frequency = try options.int("frequency", default: 999, range: 1...10_000)
    let ticksPerSecond = sysconf(Int32(_SC_CLK_TCK))
    guard ticksPerSecond > 0 else { throw ValidationError(message: "sysconf(_SC_CLK_TCK) gave \(ticksPerSecond)") }
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("simulcast-bench-call-\(getpid())").path
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let dataPath = options.string("perf-data") ?? scratch + "/perf.data"

    writeToStandardError("call: \(CallScenario.summary); \(settle) + \(seconds) s...\n")
    let readyTimeout = 60
    // The child ends by itself after this if the parent is gone; the parent asks it sooner.
    let child = try BenchChildProcess(scenario: CallScenario.name, arguments: [
        "call", "--child", "--seconds", "\(readyTimeout + settle + seconds + 120)"])
    defer { child.stop() }
    try child.waitUntilReady(timeoutSeconds: readyTimeout)
    // perf starts while the call settles, its events off: its start-up is not in the window.
    var recording: Result<PerfRecording, PerfError>
    if let perf = PerfRecording.locate() {
        recording = Result { () throws(PerfError) in
            try PerfRecording(perf: perf, processID: child.processID, frequency: frequency, dataPath: dataPath, scratch: scratch)
        }
    } else {
        recording = .failure(.notInstalled)
    }
    Thread.sleep(forTimeInterval: Double(settle))
    recording = recording.flatMap { perf in Result { () throws(PerfError) in try perf.enable(); return perf } }
    let measurement = try IdleMeasurement.sample(child, scenario: CallScenario.name, seconds: seconds, ticksPerSecond: ticksPerSecond)
    recording = recording.flatMap { perf in Result { () throws(PerfError) in try perf.disable(); try perf.stop(); return perf } }

    let summaryText = try child.finish(timeoutSeconds: 60)
    guard let summary = try? JSONDecoder().decode(CallSummary.self, from: Data(summaryText.utf8)) else {
        throw ChildBenchError.childSummaryUnreadable(scenario: CallScenario.name,
                                                    output: summaryText.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    let profile = recording.flatMap { perf in Result { () throws(PerfError) in try perf.profile() } }
    let report = CallReport(settleSeconds: settle, seconds: seconds, process: measurement, profile: profile, call: summary)
    print(report.markdown())
    if let path = options.string("json") { try writeJSON(report, to: path) }
}
