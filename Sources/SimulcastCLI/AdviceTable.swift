import MediaEngine

/// The text `simulcast advise` prints: every measurement, best quality first, the chosen one marked.
enum AdviceTable {
    static func render(_ advice: EncoderAdvisor.Advice) -> String {
        let ranked = advice.measurements.sorted { EncoderCandidate.isBetterQuality($0.candidate, than: $1.candidate) }
        var lines = ["| | configuration | CPU (% of one core) | layers (kbps, PSNR dB) |", "|---|---|---:|---|"]
        for measurement in ranked {
            let mark = measurement == advice.chosen ? "→" : (measurement.cpuPercentOfOneCore <= advice.budget.percentOfOneCore ? "fits" : "")
            lines.append("| \(mark) | \(measurement.candidate) | \(decimalText(measurement.cpuPercentOfOneCore, 1)) | \(layers(measurement)) |")
        }
        lines.append("")
        lines.append("budget \(advice.budget): \(advice.chosen.candidate), measured "
            + "\(decimalText(advice.chosen.cpuPercentOfOneCore, 1))% of one core; \(layers(advice.chosen))")
        return lines.joined(separator: "\n")
    }

    static func layers(_ measurement: EncoderMeasurement) -> String {
        measurement.layers.map { "\($0.width)x\($0.height): \(decimalText($0.kbps, 0)) kbps, \(decimalText($0.psnr, 1)) dB" }
            .joined(separator: "; ")
    }
}
