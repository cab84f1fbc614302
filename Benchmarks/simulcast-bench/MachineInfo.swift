import Foundation

/// What the numbers were measured on: core count and CPU model from /proc/cpuinfo.
struct MachineInfo: Codable, Sendable {
    var cpus: Int
    var cpuModel: String

    static func current() -> MachineInfo {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n")
            .first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        return MachineInfo(cpus: ProcessInfo.processInfo.activeProcessorCount, cpuModel: model)
    }
}
