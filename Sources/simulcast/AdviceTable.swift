import MediaEngine

/// The text `simulcast advise` prints: every measurement, best quality first, the chosen one marked.
enum AdviceTable {
    static func render(_ advice: EncoderAdvisor.Advice) -> String {
        let ranked = advice.measurements.sorted { EncoderCandidate.isBetterQuality($0.candidate, than: $1.candidate) }
        var lines = ["| | configuration | CPU (% of one core) | layers (kbps, PSNR dB) |", "|---|---|---:|---|"]
        for measurement in ranked {
            let mark = measurement == advice.chosen ? "→" : (measurement.cpuPercentOfOneCore <= advice.budget.percentOfOneCore ? "fits" : "")
            lines.append("| \(mark) | \(measurement.candidate) | \(format(measurement.cpuPercentOfOneCore, 1)) | \(layers(measurement)) |")
        }
        lines.append("")
        lines.append("budget \(advice.budget): \(advice.chosen.candidate), measured "
            + "\(format(advice.chosen.cpuPercentOfOneCore, 1))% of one core; \(layers(advice.chosen))")
        return lines.joined(separator: "\n")
    }

    static func layers(_ measurement: EncoderMeasurement) -> String {
        measurement.layers.map { "\($0.width)x\($0.height): \(format($0.kbps, 0)) kbps, \(format($0.psnr, 1)) dB" }
            .joined(separator: "; ")
    }

    static func format(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return "n/a" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        return decimals == 0 ? "\(Int(rounded))" : "\(rounded)"
    }
}
