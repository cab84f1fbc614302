import Foundation

/// What the numbers were measured on, and when: core count and CPU model from /proc/cpuinfo,
/// the day of the run (UTC). Results written before the date was recorded have none.
struct MachineInfo: Codable, Sendable {
    var cpus: Int
    var cpuModel: String
    /// The day the measurement ran, `YYYY-MM-DD` (UTC); nil in older result files.
    var measuredOn: String? = nil

    static func current() -> MachineInfo {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n")
            .first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        let day = ISO8601DateFormatter.string(from: Date(), timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withFullDate])
        return MachineInfo(cpus: ProcessInfo.processInfo.activeProcessorCount, cpuModel: model, measuredOn: day)
    }

    /// The build the numbers came from: a debug build's timings are not the engine's.
    static var buildConfiguration: String {
        #if DEBUG
        "debug"
        #else
        "release"
        #endif
    }

    /// This machine's name (/proc/sys/kernel/hostname), "unknown" if unreadable.
    static var hostname: String { procText("/proc/sys/kernel/hostname") }

    /// The running kernel's release (/proc/sys/kernel/osrelease), "unknown" if unreadable.
    static var kernelRelease: String { procText("/proc/sys/kernel/osrelease") }

    /// The 1, 5 and 15 minute load averages (/proc/loadavg): how busy the machine was.
    static var loadAverage: String { procText("/proc/loadavg").split(separator: " ").prefix(3).joined(separator: " ") }

    private static func procText(_ path: String) -> String {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "unknown").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// "2026-12-03 on 2 CPUs (AMD EPYC), release build": where and when, for a table's first line.
    var sentence: String {
        "\(measuredOn ?? "an unrecorded day") on \(cpus) CPUs (\(cpuModel)), \(Self.buildConfiguration) build"
    }
}
