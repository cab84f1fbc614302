/// Renders the report as the Markdown tables the README embeds: the decision table (ratios in
/// instructions, the deterministic ones, next to the timed ones with their spread) over every
/// clip, then each clip's own tables.
enum MarkdownTable {
    static func render(_ report: EncodeReport, order: [String]) -> String {
        let clips = [report] + (report.otherInputs ?? [])
        var text = decisionTable(clips)
        for clip in clips { text += "\n" + renderClip(clip, order: order) }
        return text
    }

    static func decisionTable(_ clips: [EncodeReport]) -> String {
        var lines: [String] = []
        for (index, clip) in clips.enumerated() {
            lines.append("Clip \(index + 1): \(clip.input), \(clip.size), \(clip.frames) frames × \(clip.repeat_) repeats.")
            lines.append("")
        }
        let clipNumbers = clips.indices.map { "clip \($0 + 1)" }
        lines.append("| ratio | " + clipNumbers.map { "\($0) instructions" }.joined(separator: " | ") + " | "
            + clipNumbers.map { "\($0) timed median (min–max)" }.joined(separator: " | ") + " |")
        lines.append("|---|" + String(repeating: "---:|", count: 2 * clips.count))
        for definition in EncodeBenchmark.ratioDefinitions {
            guard clips.contains(where: { $0.ratios[definition.name] != nil }) else { continue }
            let counted = clips.map { clip in clip.instructionRatios?[definition.name].map { fmt($0, 4) } ?? "not counted" }
            let timed = clips.map { clip in
                clip.ratios[definition.name].map { "\(fmt($0.median, 3)) (\(fmt($0.min, 3))–\(fmt($0.max, 3)))" } ?? "n/a"
            }
            lines.append("| \(definition.name) | " + (counted + timed).joined(separator: " | ") + " |")
        }
        if let counter = clips.first?.instructionCounter { lines.append(""); lines.append("Instructions: \(counter).") }
        return lines.joined(separator: "\n") + "\n"
    }

    static func renderClip(_ report: EncodeReport, order: [String]) -> String {
        var lines: [String] = []
        lines.append("Input: \(report.input) at \(report.size), \(report.frames) frames × \(report.repeat_) repeats, "
            + "\(report.machine.cpus) CPUs (\(report.machine.cpuModel)). \(report.schedule)")
        lines.append("")
        lines.append("| config | CPU ms/frame median | p95 | min | wall ms/frame median | core share @30fps | CPU s per min | scaling share | M instructions/frame | layers (kbps, PSNR dB) |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for name in order {
            guard let c = report.configs[name] else { continue }
            let layers = c.layers.map { "\($0.width)x\($0.height): \(fmt($0.kbps, 0)) kbps, \(fmt($0.psnr, 1)) dB" }
                .joined(separator: "; ")
            lines.append("| \(name) | \(fmt(c.cpuMsPerFrame.median, 2)) | \(fmt(c.cpuMsPerFrame.p95, 2)) | "
                + "\(fmt(c.cpuMsPerFrame.min, 2)) | \(fmt(c.wallMsPerFrame.median, 2)) | "
                + "\(fmt(c.coreShareAt30fps * 100, 1))% | \(fmt(c.cpuSecondsPerMinute, 2)) | "
                + "\(fmt(c.scalingShare * 100, 1))% | \(c.instructionsPerFrame.map { fmt($0 / 1e6, 3) } ?? "n/a") | \(layers) |")
        }
        let measured = order.filter { report.configs[$0]?.packetizeProtectMsPerFrame != nil }
        if !measured.isEmpty {
            lines.append("")
            lines.append("| config | packetize+protect ms/frame median | p95 | per layer median (ms) | share of encode CPU "
                + "| SFrame seal+open ms/frame median | share of encode CPU |")
            lines.append("|---|---:|---:|---|---:|---:|---:|")
            for name in measured {
                guard let c = report.configs[name], let total = c.packetizeProtectMsPerFrame else { continue }
                let layers = (c.packetizeProtectLayerMsPerFrame ?? []).map { fmt($0.median, 3) }.joined(separator: " / ")
                lines.append("| \(name) | \(fmt(total.median, 3)) | \(fmt(total.p95, 3)) | \(layers) | "
                    + "\(fmt((c.packetizeProtectShareOfEncode ?? .nan) * 100, 2))% | "
                    + "\(c.e2eeMsPerFrame.map { fmt($0.median, 3) } ?? "n/a") | \(fmt((c.e2eeShareOfEncode ?? .nan) * 100, 3))% |")
            }
        }
        lines.append("")
        lines.append("| ratio | instructions | timed per repeat: median | min | max |")
        lines.append("|---|---:|---:|---:|---:|")
        for (name, ratio) in report.ratios.sorted(by: { $0.key < $1.key }) {
            lines.append("| \(name) | \(report.instructionRatios?[name].map { fmt($0, 4) } ?? "n/a") | "
                + "\(fmt(ratio.median, 3)) | \(fmt(ratio.min, 3)) | \(fmt(ratio.max, 3)) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func fmt(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return "n/a" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        var text = "\(rounded)"
        if decimals == 0, text.hasSuffix(".0") { text.removeLast(2) }
        if decimals > 0, let dot = text.firstIndex(of: ".") {
            let have = text.distance(from: dot, to: text.endIndex) - 1
            if have < decimals { text += String(repeating: "0", count: decimals - have) }
        }
        return text
    }
}
