import Foundation

/// The result of `simulcast-bench call`: where and when it ran, the process's CPU time over the
/// window (procfs), its split by `CodeGroup` (perf, when it could sample) and what the child
/// said of the call, as JSON (`--json`) and as markdown.
struct CallReport: Codable, Sendable {
    var benchmark = "call"
    var scenario = CallScenario.summary
    var measuredAt: String
    var hostname: String
    var kernel: String
    /// /proc/loadavg at the end of the window: other work on the machine (a CI run) shows here.
    var loadAverage: String
    var machine: MachineInfo
    /// "debug" or "release": a debug engine's own code costs several times more.
    var build: String
    var settleSeconds: Int
    var seconds: Int
    /// What procfs says the process did over the window (CPU time, wake-ups, threads).
    var process: IdleMeasurement
    /// The split; nil when perf could not sample (see `profilerUnavailable`).
    var split: CPUSplit?
    var profile: PerfProfile?
    var profilerUnavailable: String?
    var call: CallSummary

    init(settleSeconds: Int, seconds: Int, process: IdleMeasurement, profile: Result<PerfProfile, PerfError>, call: CallSummary) {
        measuredAt = ISO8601DateFormatter().string(from: Date())
        hostname = MachineInfo.hostname
        kernel = MachineInfo.kernelRelease
        loadAverage = MachineInfo.loadAverage
        machine = .current()
        build = MachineInfo.buildConfiguration
        self.settleSeconds = settleSeconds
        self.seconds = seconds
        self.process = process
        switch profile {
        case let .success(profile):
            self.profile = profile
            // perf samples between the two procfs reads (switched on just before, off just after).
            split = CPUSplit(profile, cpuPercentOfOneCore: process.cpuPercentOfOneCore, sampledSeconds: process.seconds)
        case let .failure(error):
            profilerUnavailable = error.description
        }
        self.call = call
    }

    func markdown() -> String {
        var lines = [
            "Call CPU (\(build) build): \(scenario); one child process, \(seconds) s after \(settleSeconds) s settling; "
                + "measured \(measuredAt) on \(hostname) (Linux \(kernel), \(machine.cpus) CPUs, \(machine.cpuModel), "
                + "load average \(loadAverage)).",
            "Total CPU of the process (utime + stime, /proc/PID/stat, over \(MarkdownTable.fmt(process.seconds, 1)) s): "
                + "\(Self.percent(process.cpuPercentOfOneCore)) % of one core "
                + "(\(Self.percent(process.cpuPercentResolution)) % a clock tick), \(process.threadsAtEnd) threads, "
                + "\(Self.percent(process.wakeupsPerSecond)) wake-ups/s.",
            "",
        ]
        if let split, let profile {
            lines += splitTable(split, profile: profile)
        } else {
            lines.append("No split: \(profilerUnavailable ?? "perf did not run"). Only the total above was measured.")
        }
        lines.append("")
        lines.append("The call (from set-up to the end, public API counters):")
        for participant in call.participants {
            let received = [participant.framesDecoded.map { "\($0) frames decoded" }, participant.frameSize,
                            participant.spatialLayer.map { "layer \($0)" }, participant.freezeCount.map { "\($0) freezes" },
                            participant.packetsLost.map { "\($0) packets lost" },
                            participant.receivedKilobitsPerSecond.map { "\(Int($0.rounded())) kbps" }]
                .compactMap { $0 }.joined(separator: ", ")
            let fps = Double(participant.videoFramesPlayed) / call.seconds
            lines.append("- \(participant.id): played \(participant.videoFramesPlayed) camera frames (\(Self.percent(fps)) a second, "
                + "sending layers \(participant.sendingLayers.map { "\($0)" } ?? "unknown")) and \(participant.audioFramesPlayed) "
                + "microphone frames; received \(participant.receivedFrom)'s camera: \(received.isEmpty ? "no stats" : received).")
        }
        lines.append("  (\(MarkdownTable.fmt(call.seconds, 1)) s from set-up to the summary.)")
        return lines.joined(separator: "\n")
    }

    private func splitTable(_ split: CPUSplit, profile: PerfProfile) -> [String] {
        var lines = [
            "Split by shared object: `perf record -e cpu-clock -F \(profile.frequency) -p PID` switched on and off at the window's "
                + "ends (`--control`), then `perf report --sort dso`; \(split.totalSamples) samples "
                + "(\(Self.percent(split.sampledCPUPercentOfOneCore)) % of one core by count). CPU % of one core = share x the total above.",
            "",
            "| group | samples | share | CPU % of one core |",
            "|---|---:|---:|---:|",
        ]
        func line(_ name: String, _ samples: Int) -> String {
            let share = Double(samples) / Double(split.totalSamples)
            return "| \(name) | \(samples) | \(Self.percent(share * 100)) % | \(Self.percent(share * process.cpuPercentOfOneCore)) |"
        }
        for row in split.rows where row.group.isCodecOrCrypto { lines.append(line(row.label, row.samples)) }
        lines.append(line("**codec + crypto work**", split.codecAndCryptoSamples))
        for row in split.rows where !row.group.isCodecOrCrypto { lines.append(line(row.label, row.samples)) }
        lines.append(line("**total**", split.totalSamples))
        lines.append("")
        let ratio = split.everythingElseToCodecWork.map { "\(Self.percent($0 * 100)) %" } ?? "n/a (no codec work sampled)"
        lines.append("Everything else (not the kernel) / codec + crypto work: **\(ratio)**; goal (issue 27): at most "
            + "\(Int(split.goal * 100)) % — \(split.meetsGoal ? "met" : "not met").")
        lines.append("")
        lines.append("Shared objects (samples): " + split.rows.flatMap(\.objects).sorted { $0.samples > $1.samples }
            .map { "`\($0.object)` \($0.samples)" }.joined(separator: ", ") + ".")
        return lines
    }

    private static func percent(_ value: Double) -> String { String(format: "%.1f", value) }
}
