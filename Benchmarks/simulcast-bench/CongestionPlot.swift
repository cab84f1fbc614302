import Foundation

/// A congestion case over time as a self-contained SVG: capacity, each flow's estimate and send
/// rate, and what the link delivered (kbps, top); queueing delay (ms) and loss (%) below.
enum CongestionPlot {
    static func render(_ report: CongestionReport) -> String {
        let width = 900.0, left = 60.0, right = 20.0, plotWidth = width - left - right
        let rateTop = 50.0, rateHeight = 260.0, delayTop = rateTop + rateHeight + 50, delayHeight = 120.0
        let height = delayTop + delayHeight + 50
        let samples = report.samples
        let seconds = max(samples.last?.atSeconds ?? 1, 1)
        let maxKbps = Double(samples.map { max($0.capacityKbps, ($0.sendKbps + $0.estimateKbps).max() ?? 0) }.max() ?? 1) * 1.1
        let maxDelay = max(samples.map(\.queueingMilliseconds).max() ?? 1, 100) * 1.1
        func x(_ t: Double) -> Double { left + t / seconds * plotWidth }
        func rateY(_ kbps: Double) -> Double { rateTop + rateHeight - kbps / maxKbps * rateHeight }
        func delayY(_ ms: Double) -> Double { delayTop + delayHeight - ms / maxDelay * delayHeight }
        func line(_ points: [(Double, Double)], color: String, dash: String = "") -> String {
            let path = points.map { String(format: "%.1f,%.1f", $0.0, $0.1) }.joined(separator: " ")
            return "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.5\" \(dash.isEmpty ? "" : "stroke-dasharray=\"\(dash)\"") points=\"\(path)\"/>\n"
        }
        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        <text x="16" y="24" font-size="15" font-weight="bold">Congestion case \(report.testCase): \(report.summary)</text>
        <text x="\(left)" y="\(rateTop - 6)" fill="#333">kbps: capacity (black), delivered (grey), estimate (dashed), send rate (solid) per flow</text>
        <text x="\(left)" y="\(delayTop - 6)" fill="#333">queueing delay ms (blue, axis to \(Int(maxDelay))), loss % (red, same scale)</text>

        """
        for kbps in stride(from: 0.0, through: maxKbps, by: maxKbps > 3000 ? 1000 : 500) {
            svg += "<line x1=\"\(left)\" x2=\"\(left + plotWidth)\" y1=\"\(rateY(kbps))\" y2=\"\(rateY(kbps))\" stroke=\"#eee\"/>"
            svg += "<text x=\"\(left - 6)\" y=\"\(rateY(kbps) + 4)\" text-anchor=\"end\" fill=\"#777\">\(Int(kbps))</text>\n"
        }
        for t in stride(from: 0.0, through: seconds, by: 10) {
            svg += "<text x=\"\(x(t))\" y=\"\(delayTop + delayHeight + 16)\" text-anchor=\"middle\" fill=\"#777\">\(Int(t)) s</text>\n"
        }
        svg += line(samples.map { (x($0.atSeconds), rateY(Double($0.capacityKbps))) }, color: "black")
        svg += line(samples.map { (x($0.atSeconds), rateY(Double($0.deliveredKbps))) }, color: "#999")
        let colors = ["#4e79a7", "#f28e2b", "#59a14f"]
        for flow in 0..<(samples.first?.estimateKbps.count ?? 0) {
            let color = colors[flow % colors.count]
            svg += line(samples.map { (x($0.atSeconds), rateY(Double($0.estimateKbps[flow]))) }, color: color, dash: "4,3")
            svg += line(samples.map { (x($0.atSeconds), rateY(Double($0.sendKbps[flow]))) }, color: color)
        }
        svg += line(samples.map { (x($0.atSeconds), delayY($0.queueingMilliseconds)) }, color: "#1f77b4")
        svg += line(samples.map { (x($0.atSeconds), delayY($0.lossFraction * 100)) }, color: "#d62728")
        svg += "<rect x=\"\(left)\" y=\"\(delayTop)\" width=\"\(plotWidth)\" height=\"\(delayHeight)\" fill=\"none\" stroke=\"#ccc\"/>\n"
        svg += "<rect x=\"\(left)\" y=\"\(rateTop)\" width=\"\(plotWidth)\" height=\"\(rateHeight)\" fill=\"none\" stroke=\"#ccc\"/>\n"
        svg += "</svg>\n"
        return svg
    }
}
