/// A process's CPU time split by `CodeGroup` (issue 27): each group's share of perf's samples,
/// applied to the process's CPU time from procfs, and how much the engine's own code costs next
/// to the codec and crypto work it drives.
struct CPUSplit: Codable, Sendable {
    struct Row: Codable, Sendable {
        var group: CodeGroup
        var label: String
        var samples: Int
        /// Of all samples, 0...1.
        var share: Double
        /// `share` of the process's CPU time (utime + stime), as a percentage of one core.
        var cpuPercentOfOneCore: Double
        /// The shared objects in the group, most samples first.
        var objects: [ObjectSamples]
    }

    struct ObjectSamples: Codable, Sendable {
        var object: String
        var samples: Int
    }

    /// Issue 27: everything else at most 10 % of the codec work.
    static let goal = 0.10

    /// In `CodeGroup.allCases` order.
    var rows: [Row]
    var totalSamples: Int
    /// Samples of libvpx, libopus, libyuv and libsrtp2 + crypto.
    var codecAndCryptoSamples: Int
    /// Everything else (not the kernel) over the codec and crypto work; nil without codec work.
    var everythingElseToCodecWork: Double?
    var goal: Double
    var meetsGoal: Bool
    /// The samples as CPU time (samples / frequency / the window), a percentage of one core:
    /// near the procfs figure if perf saw the whole process.
    var sampledCPUPercentOfOneCore: Double

    init(_ profile: PerfProfile, cpuPercentOfOneCore: Double, sampledSeconds: Double) {
        var objects: [CodeGroup: [ObjectSamples]] = [:]
        for (object, samples) in profile.samplesByObject {
            objects[CodeGroup(object: object), default: []].append(ObjectSamples(object: object, samples: samples))
        }
        let total = Double(profile.totalSamples)
        rows = CodeGroup.allCases.map { group in
            let members = (objects[group] ?? []).sorted { ($0.samples, $1.object) > ($1.samples, $0.object) }
            let samples = members.reduce(0) { $0 + $1.samples }
            return Row(group: group, label: group.label, samples: samples, share: Double(samples) / total,
                       cpuPercentOfOneCore: Double(samples) / total * cpuPercentOfOneCore, objects: members)
        }
        totalSamples = profile.totalSamples
        codecAndCryptoSamples = rows.filter { $0.group.isCodecOrCrypto }.reduce(0) { $0 + $1.samples }
        let other = rows.first { $0.group == .everythingElse }?.samples ?? 0
        let ratio = codecAndCryptoSamples > 0 ? Double(other) / Double(codecAndCryptoSamples) : nil
        everythingElseToCodecWork = ratio
        goal = Self.goal
        meetsGoal = ratio.map { $0 <= Self.goal } ?? false
        sampledCPUPercentOfOneCore = total / Double(profile.frequency) / sampledSeconds * 100
    }

    func row(_ group: CodeGroup) -> Row? { rows.first { $0.group == group } }
}
