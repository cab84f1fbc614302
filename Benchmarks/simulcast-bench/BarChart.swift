import Foundation

/// Draws an encode report (every clip of the run) as a self-contained SVG a person can read
/// without the tables: per clip and configuration the instructions per frame (callgrind, the
/// deterministic measure the README decides by), the thread CPU time per frame (median bar,
/// min–p95 whisker) and PSNR per layer; below, every ratio in instructions per clip with the
/// timed median and its spread over it. Every panel has a labelled axis; colours have a legend.
enum BarChart {
    private typealias D = SVGDrawing

    private static let width = 1120.0
    private static let labelRight = 190.0
    private static let rowHeight = 30.0
    private static let instructionPanel = (x: 200.0, width: 260.0)
    private static let cpuPanel = (x: 510.0, width: 260.0)
    private static let psnrPanel = (x: 820.0, width: 260.0)
    private static let clipColors = ["#4e79a7", "#e15759"]
    private static let layerColors = ["320x180": "#b07aa1", "640x360": "#f28e2b", "1280x720": "#59a14f"]
    private static let otherLayerColors = ["#76b7b2", "#edc948", "#ff9da7"]

    static func render(_ report: EncodeReport, order: [String]) -> String {
        let clips = [report] + (report.otherInputs ?? [])
        let names = order.filter { name in clips.contains { $0.configs[name] != nil } }
        let configs = clips.flatMap { clip in names.compactMap { clip.configs[$0] } }
        let instructionAxis = D.Axis(covering: (configs.compactMap(\.instructionsPerFrame).max() ?? 1) / 1e6 * 1.15)
        let cpuAxis = D.Axis(covering: (configs.map(\.cpuMsPerFrame.p95).max() ?? 1) * 1.15)
        let psnrValues = configs.flatMap(\.layers).map(\.psnr).filter(\.isFinite)
        let psnrLower = 5 * ((psnrValues.min() ?? 30) / 5).rounded(.down)
        let psnrAxis = D.Axis(lower: psnrLower, upper: max(psnrLower + 5, 5 * ((psnrValues.max() ?? 45) / 5).rounded(.up)), step: 5)
        let layerSizes = orderedLayerSizes(configs)

        var svg = ""
        let title = "Encode cost per configuration: \(report.size), \(report.frames) frames × \(report.repeat_) repeats per clip"
        var (text, y) = D.paragraph(title, x: 16, y: 26, width: width - 32, size: 16, attributes: "font-weight=\"bold\"")
        svg += text
        var subtitle = "\(report.machine.cpus) CPUs · \(report.machine.cpuModel)"
        if let date = report.machine.measuredOn { subtitle += " · measured \(date)" }
        if let counter = report.instructionCounter { subtitle += " · instructions: \(counter)" }
        (text, y) = D.paragraph(subtitle, x: 16, y: y + 14, width: width - 32, size: 11, attributes: "fill=\"#555\"")
        svg += text
        var legend: [D.LegendEntry] = [
            .init(text: "instructions per frame (callgrind)", color: "#9c755f"),
            .init(text: "thread CPU ms per frame, median", color: "#4e79a7"),
            .init(text: "min–p95 of CPU ms", color: "#222", isLine: true),
        ]
        legend += layerSizes.map { .init(text: "PSNR of the \($0) layer", color: color(ofLayer: $0, in: layerSizes)) }
        (text, y) = D.legend(legend, x: 16, y: y + 18, maxX: width - 16)
        svg += text

        for (index, clip) in clips.enumerated() {
            (text, y) = clipBlock(clip, number: index + 1, names: names, top: y + 14, instructionAxis: instructionAxis,
                                  cpuAxis: cpuAxis, psnrAxis: psnrAxis, layerSizes: layerSizes)
            svg += text
        }
        (text, y) = ratioBlock(clips, top: y + 14)
        svg += text

        return """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(y + 16))" font-family="sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        \(svg)</svg>

        """
    }

    /// One clip: a heading, then per configuration a row across the three panels, and their axes.
    private static func clipBlock(_ clip: EncodeReport, number: Int, names: [String], top: Double,
                                  instructionAxis: D.Axis, cpuAxis: D.Axis, psnrAxis: D.Axis,
                                  layerSizes: [String]) -> (String, Double) {
        var (svg, y) = D.paragraph("Clip \(number): \(clip.input)", x: 16, y: top + 12, width: width - 32, size: 13,
                                   attributes: "font-weight=\"bold\"")
        y += 8
        let panelTop = y
        let panelHeight = rowHeight * Double(names.count)
        for (panel, axis) in [(instructionPanel, instructionAxis), (cpuPanel, cpuAxis), (psnrPanel, psnrAxis)] {
            for tick in axis.ticks {
                let x = panel.x + axis.position(tick, length: panel.width)
                svg += "<line x1=\"\(D.f(x))\" y1=\"\(D.f(panelTop))\" x2=\"\(D.f(x))\" y2=\"\(D.f(panelTop + panelHeight))\" stroke=\"#eee\"/>\n"
            }
        }
        for (row, name) in names.enumerated() {
            let rowTop = panelTop + Double(row) * rowHeight
            svg += "<text x=\"\(labelRight)\" y=\"\(D.f(rowTop + 19))\" text-anchor=\"end\">\(D.escape(name))</text>\n"
            guard let config = clip.configs[name] else { continue }
            if let instructions = config.instructionsPerFrame {
                let millions = instructions / 1e6
                let barWidth = instructionAxis.position(millions, length: instructionPanel.width)
                svg += "<rect x=\"\(instructionPanel.x)\" y=\"\(D.f(rowTop + 7))\" width=\"\(D.f(barWidth))\" height=\"16\" fill=\"#9c755f\"/>"
                svg += "<text x=\"\(D.f(instructionPanel.x + barWidth + 4))\" y=\"\(D.f(rowTop + 19))\" font-size=\"10\" fill=\"#222\">"
                    + "\(MarkdownTable.fmt(millions, 1))</text>\n"
            }
            let cpu = config.cpuMsPerFrame
            let median = cpuAxis.position(cpu.median, length: cpuPanel.width)
            let low = cpuAxis.position(cpu.min, length: cpuPanel.width), high = cpuAxis.position(cpu.p95, length: cpuPanel.width)
            svg += "<rect x=\"\(cpuPanel.x)\" y=\"\(D.f(rowTop + 7))\" width=\"\(D.f(median))\" height=\"16\" fill=\"#4e79a7\"/>"
            svg += "<line x1=\"\(D.f(cpuPanel.x + low))\" y1=\"\(D.f(rowTop + 15))\" x2=\"\(D.f(cpuPanel.x + high))\" y2=\"\(D.f(rowTop + 15))\" stroke=\"#222\"/>"
            for end in [low, high] {
                svg += "<line x1=\"\(D.f(cpuPanel.x + end))\" y1=\"\(D.f(rowTop + 10))\" x2=\"\(D.f(cpuPanel.x + end))\" y2=\"\(D.f(rowTop + 20))\" stroke=\"#222\"/>"
            }
            svg += "<text x=\"\(D.f(cpuPanel.x + high + 4))\" y=\"\(D.f(rowTop + 19))\" font-size=\"10\" fill=\"#222\">"
                + "\(MarkdownTable.fmt(cpu.median, 1))</text>\n"
            let band = (rowHeight - 6) / Double(max(config.layers.count, 1))
            for (index, layer) in config.layers.enumerated() where layer.psnr.isFinite {
                let size = "\(layer.width)x\(layer.height)"
                let cx = psnrPanel.x + psnrAxis.position(layer.psnr, length: psnrPanel.width)
                let cy = rowTop + 3 + band * (Double(index) + 0.5)
                svg += "<circle cx=\"\(D.f(cx))\" cy=\"\(D.f(cy))\" r=\"\(D.f(min(band / 2, 4.5)))\" fill=\"\(color(ofLayer: size, in: layerSizes))\">"
                    + "<title>\(size): \(MarkdownTable.fmt(layer.psnr, 1)) dB</title></circle>"
                svg += "<text x=\"\(D.f(cx + 7))\" y=\"\(D.f(cy + 3))\" font-size=\"9\" fill=\"#444\">\(MarkdownTable.fmt(layer.psnr, 1))</text>\n"
            }
        }
        let axisY = panelTop + panelHeight + 2
        svg += D.horizontalAxis(instructionAxis, x: instructionPanel.x, y: axisY, length: instructionPanel.width,
                                title: "M instructions per frame")
        svg += D.horizontalAxis(cpuAxis, x: cpuPanel.x, y: axisY, length: cpuPanel.width,
                                title: "thread CPU ms per frame")
        svg += D.horizontalAxis(psnrAxis, x: psnrPanel.x, y: axisY, length: psnrPanel.width,
                                title: "PSNR per layer, dB (mean over the clip)")
        return (svg, axisY + 36)
    }

    /// Every ratio: one bar per clip in instructions, the timed median with its min–max over it.
    private static func ratioBlock(_ clips: [EncodeReport], top: Double) -> (String, Double) {
        let definitions = EncodeBenchmark.ratioDefinitions.filter { definition in
            clips.contains { $0.instructionRatios?[definition.name] != nil || $0.ratios[definition.name] != nil }
        }
        var (svg, y) = D.paragraph("Ratios: the first configuration's cost over the second's (below 1: the first is cheaper)",
                                   x: 16, y: top + 12, width: width - 32, size: 13, attributes: "font-weight=\"bold\"")
        var legend = clips.indices.map { D.LegendEntry(text: "clip \($0 + 1), instructions (decide by these)", color: clipColors[$0 % clipColors.count]) }
        legend.append(.init(text: "timed median, min–max over repeats", color: "#222", isLine: true))
        var text: String
        (text, y) = D.legend(legend, x: 16, y: y + 16, maxX: width - 16)
        svg += text
        let panel = (x: 330.0, width: 560.0)
        let maximum = clips.flatMap { clip in
            definitions.flatMap { [clip.instructionRatios?[$0.name] ?? 0, clip.ratios[$0.name]?.max ?? 0] }
        }.max() ?? 1
        let axis = D.Axis(covering: max(maximum * 1.1, 1.2), intervals: 6)
        let groupHeight = 14.0 * Double(clips.count) + 10
        let panelTop = y + 8
        let panelHeight = groupHeight * Double(definitions.count)
        for tick in axis.ticks {
            let x = panel.x + axis.position(tick, length: panel.width)
            svg += "<line x1=\"\(D.f(x))\" y1=\"\(D.f(panelTop))\" x2=\"\(D.f(x))\" y2=\"\(D.f(panelTop + panelHeight))\" stroke=\"#eee\"/>\n"
        }
        let one = panel.x + axis.position(1, length: panel.width)
        svg += "<line x1=\"\(D.f(one))\" y1=\"\(D.f(panelTop))\" x2=\"\(D.f(one))\" y2=\"\(D.f(panelTop + panelHeight))\" stroke=\"#666\" stroke-dasharray=\"4,3\"/>\n"
        for (row, definition) in definitions.enumerated() {
            let groupTop = panelTop + Double(row) * groupHeight
            svg += "<text x=\"\(D.f(panel.x - 8))\" y=\"\(D.f(groupTop + groupHeight / 2 + 4))\" text-anchor=\"end\">"
                + "\(D.escape(definition.numerator)) / \(D.escape(definition.denominator))</text>\n"
            for (index, clip) in clips.enumerated() {
                let barTop = groupTop + 5 + 14 * Double(index)
                if let ratio = clip.instructionRatios?[definition.name] {
                    let barWidth = axis.position(ratio, length: panel.width)
                    svg += "<rect x=\"\(panel.x)\" y=\"\(D.f(barTop))\" width=\"\(D.f(barWidth))\" height=\"11\" "
                        + "fill=\"\(clipColors[index % clipColors.count])\"/>"
                    svg += "<text x=\"\(D.f(panel.x + 4))\" y=\"\(D.f(barTop + 9))\" font-size=\"9\" fill=\"white\">"
                        + "\(MarkdownTable.fmt(ratio, 3))</text>\n"
                }
                if let timed = clip.ratios[definition.name] {
                    let (low, median, high) = (axis.position(timed.min, length: panel.width), axis.position(timed.median, length: panel.width),
                                               axis.position(timed.max, length: panel.width))
                    let cy = barTop + 5.5
                    svg += "<line x1=\"\(D.f(panel.x + low))\" y1=\"\(D.f(cy))\" x2=\"\(D.f(panel.x + high))\" y2=\"\(D.f(cy))\" stroke=\"#222\"/>"
                    svg += "<circle cx=\"\(D.f(panel.x + median))\" cy=\"\(D.f(cy))\" r=\"3\" fill=\"#222\"/>"
                    svg += "<text x=\"\(D.f(panel.x + high + 5))\" y=\"\(D.f(cy + 3))\" font-size=\"9\" fill=\"#444\">"
                        + "timed \(MarkdownTable.fmt(timed.median, 3))</text>\n"
                }
            }
        }
        svg += D.horizontalAxis(axis, x: panel.x, y: panelTop + panelHeight + 2, length: panel.width,
                                title: "ratio (dashed line: 1, the same cost)")
        return (svg, panelTop + panelHeight + 38)
    }

    /// Layer sizes in the order of their area, smallest first.
    private static func orderedLayerSizes(_ configs: [EncodeReport.ConfigResult]) -> [String] {
        var seen: [String: Int] = [:]
        for layer in configs.flatMap(\.layers) { seen["\(layer.width)x\(layer.height)"] = layer.width * layer.height }
        return seen.sorted { $0.value < $1.value }.map(\.key)
    }

    /// The same colour for a layer size in every configuration.
    private static func color(ofLayer size: String, in sizes: [String]) -> String {
        layerColors[size] ?? otherLayerColors[(sizes.firstIndex(of: size) ?? 0) % otherLayerColors.count]
    }
}
