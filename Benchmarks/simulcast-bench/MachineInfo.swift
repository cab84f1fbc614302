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

    /// "2026-12-03 on 2 CPUs (AMD EPYC), release build": where and when, for a table's first line.
    var sentence: String {
        "\(measuredOn ?? "an unrecorded day") on \(cpus) CPUs (\(cpuModel)), \(Self.buildConfiguration) build"
    }
}
