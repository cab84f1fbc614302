import Foundation

/// The result of `simulcast-bench idle`: where and when it ran, how, and each scenario's
/// `IdleMeasurement`, as JSON (`--json`) and as a markdown table.
struct IdleReport: Codable, Sendable {
    struct Scenario: Codable, Sendable {
        var name: String
        var summary: String
        var measurement: IdleMeasurement
    }

    /// Issue 27's goal for an idle engine with a room and a camera: RTCP and keep-alive timers only.
    struct Goal: Codable, Sendable {
        var wakeupsPerSecond = 20.0
        var cpuPercentOfOneCore = 0.1
    }

    var benchmark = "idle"
    var measuredAt: String
    var hostname: String
    var kernel: String
    var machine: MachineInfo
    /// "debug" or "release": a debug engine spends more CPU on each wake-up.
    var build: String
    var settleSeconds: Int
    var seconds: Int
    var clockTicksPerSecond: Int
    var goal = Goal()
    var scenarios: [Scenario]

    init(settleSeconds: Int, seconds: Int, clockTicksPerSecond: Int, scenarios: [Scenario]) {
        measuredAt = ISO8601DateFormatter().string(from: Date())
        hostname = MachineInfo.hostname
        kernel = MachineInfo.kernelRelease
        machine = .current()
        build = MachineInfo.buildConfiguration
        self.settleSeconds = settleSeconds
        self.seconds = seconds
        self.clockTicksPerSecond = clockTicksPerSecond
        self.scenarios = scenarios
    }

    func markdown() -> String {
        var lines = [
            "Idle cost (\(build) build), one child process per scenario, \(seconds) s each after \(settleSeconds) s settling; "
                + "measured \(measuredAt) on \(hostname) (Linux \(kernel), \(machine.cpus) CPUs, \(machine.cpuModel)).",
            "Wake-ups are voluntary context switches (/proc/PID/task/*/status), preemptions the nonvoluntary ones; "
                + "CPU is utime + stime (/proc/PID/stat).",
            "",
            "| scenario | wake-ups/s (all threads) | busiest thread: wake-ups/s | preemptions/s | threads | CPU % of one core |",
            "|---|---:|---|---:|---:|---:|",
        ]
        for scenario in scenarios {
            let measured = scenario.measurement
            let busiest = measured.busiestThread.map { "`\($0.name)` " + Self.rate($0.wakeupsPerSecond) } ?? "-"
            lines.append("| \(scenario.name) | \(Self.rate(measured.wakeupsPerSecond)) | \(busiest) | "
                + "\(Self.rate(measured.preemptionsPerSecond)) | \(measured.threadsAtEnd) | "
                + String(format: "%.2f", measured.cpuPercentOfOneCore) + " |")
        }
        lines.append("")
        lines.append("The threads that woke, busiest first (wake-ups/s):")
        for scenario in scenarios {
            let woke = scenario.measurement.threads.filter { $0.wakeupsPerSecond > 0 }
            let list = woke.isEmpty ? "none" : woke.map { "`\($0.name)` \(Self.rate($0.wakeupsPerSecond))" }.joined(separator: ", ")
            lines.append("- \(scenario.name) (\(scenario.summary)): \(list)")
        }
        let resolution = scenarios.first.map { String(format: "%.2f", $0.measurement.cpuPercentResolution) } ?? "-"
        lines.append("")
        lines.append("Goal (issue 27, the camera scenario): at most \(Self.rate(goal.wakeupsPerSecond)) wake-ups/s in all, "
            + "CPU under \(goal.cpuPercentOfOneCore) % of one core. One clock tick is \(resolution) % of one core here.")
        return lines.joined(separator: "\n")
    }

    private static func rate(_ value: Double) -> String { String(format: "%.1f", value) }
}
