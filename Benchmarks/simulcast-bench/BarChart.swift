import Foundation

/// Draws the report as a self-contained SVG: per-frame CPU per configuration (median bar,
/// p95 whisker) on the left, PSNR per layer on the right. Needs no other tool to read.
enum BarChart {
    static func render(_ report: EncodeReport, order: [String]) -> String {
        let names = order.filter { report.configs[$0] != nil }
        let rowHeight = 48.0, top = 70.0, left = 230.0, chartWidth = 420.0
        let psnrLeft = left + chartWidth + 60, psnrWidth = 300.0
        let height = top + rowHeight * Double(names.count) + 60
        let width = psnrLeft + psnrWidth + 40
        let maxCPU = names.compactMap { report.configs[$0]?.cpuMsPerFrame.p95 }.max() ?? 1
        let scale = chartWidth / max(maxCPU * 1.1, 0.001)
        let psnrMin = 20.0, psnrMax = 50.0
        let psnrScale = psnrWidth / (psnrMax - psnrMin)
        let colors = ["#4e79a7", "#f28e2b", "#59a14f"]

        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        <text x="16" y="24" font-size="16" font-weight="bold">Per-frame encode cost (\(esc(report.size)), \(report.frames) frames × \(report.repeat_))</text>
        <text x="16" y="44" fill="#555">\(esc(report.input)) · \(report.machine.cpus) CPUs · \(esc(report.machine.cpuModel))</text>
        <text x="\(left)" y="\(top - 8)" fill="#333">thread CPU ms per frame (bar = median, whisker = p95)</text>
        <text x="\(psnrLeft)" y="\(top - 8)" fill="#333">PSNR per layer (dB, \(Int(psnrMin))–\(Int(psnrMax)))</text>

        """
        for (row, name) in names.enumerated() {
            guard let config = report.configs[name] else { continue }
            let y = top + Double(row) * rowHeight
            let barWidth = config.cpuMsPerFrame.median * scale
            let whisker = config.cpuMsPerFrame.p95 * scale
            svg += """
            <text x="\(left - 8)" y="\(y + 21)" text-anchor="end">\(esc(name))</text>
            <rect x="\(left)" y="\(y + 5)" width="\(f(barWidth))" height="24" fill="#4e79a7"/>
            <line x1="\(left + barWidth)" y1="\(y + 17)" x2="\(left + whisker)" y2="\(y + 17)" stroke="#222"/>
            <line x1="\(left + whisker)" y1="\(y + 10)" x2="\(left + whisker)" y2="\(y + 24)" stroke="#222"/>
            <text x="\(left + whisker + 6)" y="\(y + 21)" fill="#222">\(MarkdownTable.fmt(config.cpuMsPerFrame.median, 2)) ms</text>

            """
            let band = 36.0 / Double(max(config.layers.count, 1))
            for (index, layer) in config.layers.enumerated() {
                let value = min(max(layer.psnr, psnrMin), psnrMax)
                let ly = y + 5 + Double(index) * band
                svg += """
                <rect x="\(psnrLeft)" y="\(f(ly))" width="\(f((value - psnrMin) * psnrScale))" height="\(f(band - 1))" fill="\(colors[index % colors.count])"><title>\(layer.width)x\(layer.height): \(MarkdownTable.fmt(layer.psnr, 1)) dB</title></rect>
                <text x="\(psnrLeft + (value - psnrMin) * psnrScale + 4)" y="\(f(ly + band - 2))" font-size="\(f(min(band, 11)))">\(layer.width)x\(layer.height) \(MarkdownTable.fmt(layer.psnr, 1))</text>

                """
            }
        }
        let axisY = top + rowHeight * Double(names.count) + 10
        svg += "<line x1=\"\(left)\" y1=\"\(axisY)\" x2=\"\(left + chartWidth)\" y2=\"\(axisY)\" stroke=\"#999\"/>\n"
        for tick in 0...4 {
            let value = maxCPU * 1.1 * Double(tick) / 4
            let x = left + value * scale
            svg += "<text x=\"\(f(x))\" y=\"\(axisY + 16)\" text-anchor=\"middle\" fill=\"#555\">\(MarkdownTable.fmt(value, 1))</text>\n"
        }
        svg += "</svg>\n"
        return svg
    }

    private static func f(_ value: Double) -> String { MarkdownTable.fmt(value, 1) }

    private static func esc(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
