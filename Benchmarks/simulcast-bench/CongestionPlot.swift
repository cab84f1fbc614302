import Foundation

/// A congestion case over time as a self-contained SVG: capacity, what the link delivered and
/// each flow's estimate and send rate, a TCP-like flow's delivered rate (kbps, top panel); queueing delay (ms, left axis) and loss
/// (%, right axis) below. Both panels share the time axis; a legend names every line.
enum CongestionPlot {
    private typealias D = SVGDrawing
    private static let flowColors = ["#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#9c755f"]
    private static let bulkColor = "#e15759"

    static func render(_ report: CongestionReport) -> String {
        let width = 1000.0, left = 80.0, right = 80.0, plotWidth = width - left - right
        let samples = report.samples
        var (svg, y) = D.paragraph("cc-eval case \(report.testCase)", x: 16, y: 26, width: width - 32, size: 16,
                                   attributes: "font-weight=\"bold\"")
        var text: String
        (text, y) = D.paragraph(report.summary, x: 16, y: y + 12, width: width - 32, size: 12, attributes: "fill=\"#333\"")
        svg += text
        let verdicts = report.checks.sorted { $0.key < $1.key }.map { "\($0.value ? "PASS" : "FAIL") \($0.key)" }
        (text, y) = D.paragraph(verdicts.isEmpty ? "no acceptance check for this case: measured, not judged"
                                    : verdicts.joined(separator: " · "),
                                x: 16, y: y + 12, width: width - 32, size: 11, attributes: "fill=\"#555\"")
        svg += text

        let flows = samples.first?.estimateKbps.count ?? 0
        var legend: [D.LegendEntry] = [
            .init(text: "link capacity", color: "black", isLine: true),
            .init(text: "delivered by the link (all flows)", color: "#aaa", isLine: true),
        ]
        for flow in 0..<flows {
            let color = flowColors[flow % flowColors.count]
            legend.append(.init(text: "flow \(flow + 1) send rate", color: color, isLine: true))
            legend.append(.init(text: "flow \(flow + 1) estimate", color: color, dash: "5,3", isLine: true))
        }
        let hasBulk = samples.contains { $0.bulkKbps != nil }
        if hasBulk { legend.append(.init(text: "TCP-like flow delivered", color: bulkColor, isLine: true)) }
        (text, y) = D.legend(legend, x: left, y: y + 20, maxX: width - 16)
        svg += text

        let time = D.Axis(covering: max(samples.last?.atSeconds ?? 1, 1), intervals: 10)
        func x(_ t: Double) -> Double { left + time.position(t, length: plotWidth) }
        func polyline(_ points: [(Double, Double)], color: String, dash: String? = nil) -> String {
            let path = points.map { "\(D.f($0.0)),\(D.f($0.1))" }.joined(separator: " ")
            return "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.5\"\(dash.map { " stroke-dasharray=\"\($0)\"" } ?? "") "
                + "points=\"\(path)\"/>\n"
        }

        // Rates.
        let rateTop = y + 10, rateHeight = 260.0
        let maxKbps = Double(samples.map { max($0.capacityKbps, $0.deliveredKbps, ($0.sendKbps + $0.estimateKbps).max() ?? 0) }.max() ?? 1)
        let rate = D.Axis(covering: maxKbps * 1.05)
        func rateY(_ kbps: Int) -> Double { rateTop + rateHeight - rate.position(Double(kbps), length: rateHeight) }
        svg += D.verticalAxis(rate, x: left, top: rateTop, height: rateHeight, title: "kbps", gridWidth: plotWidth)
        svg += polyline(samples.map { (x($0.atSeconds), rateY($0.capacityKbps)) }, color: "black")
        svg += polyline(samples.map { (x($0.atSeconds), rateY($0.deliveredKbps)) }, color: "#aaa")
        for flow in 0..<flows {
            let color = flowColors[flow % flowColors.count]
            svg += polyline(samples.map { (x($0.atSeconds), rateY($0.estimateKbps[flow])) }, color: color, dash: "5,3")
            svg += polyline(samples.map { (x($0.atSeconds), rateY($0.sendKbps[flow])) }, color: color)
        }
        if hasBulk { svg += polyline(samples.map { (x($0.atSeconds), rateY($0.bulkKbps ?? 0)) }, color: bulkColor) }
        svg += "<rect x=\"\(left)\" y=\"\(D.f(rateTop))\" width=\"\(plotWidth)\" height=\"\(rateHeight)\" fill=\"none\" stroke=\"#ccc\"/>\n"
        svg += D.horizontalAxis(time, x: left, y: rateTop + rateHeight, length: plotWidth, title: "time (s)")

        // Queueing delay and loss.
        let delayTop = rateTop + rateHeight + 76, delayHeight = 140.0
        (text, _) = D.legend([.init(text: "queueing delay at the bottleneck (ms, left axis)", color: "#1f77b4", isLine: true),
                              .init(text: "datagrams lost over the last second (%, right axis)", color: "#d62728", isLine: true)],
                             x: left, y: delayTop - 12, maxX: width - 16)
        svg += text
        let delay = D.Axis(covering: max(samples.map(\.queueingMilliseconds).max() ?? 1, 100) * 1.05)
        let loss = D.Axis(covering: max((samples.map(\.lossFraction).max() ?? 0) * 100, 5) * 1.05)
        svg += D.verticalAxis(delay, x: left, top: delayTop, height: delayHeight, title: "queueing delay (ms)",
                              gridWidth: plotWidth, color: "#1f77b4")
        svg += D.verticalAxis(loss, x: left + plotWidth, top: delayTop, height: delayHeight, title: "loss (%)",
                              side: "right", color: "#d62728")
        svg += polyline(samples.map { (x($0.atSeconds), delayTop + delayHeight - delay.position($0.queueingMilliseconds, length: delayHeight)) },
                        color: "#1f77b4")
        svg += polyline(samples.map { (x($0.atSeconds), delayTop + delayHeight - loss.position($0.lossFraction * 100, length: delayHeight)) },
                        color: "#d62728")
        svg += "<rect x=\"\(left)\" y=\"\(D.f(delayTop))\" width=\"\(plotWidth)\" height=\"\(delayHeight)\" fill=\"none\" stroke=\"#ccc\"/>\n"
        svg += D.horizontalAxis(time, x: left, y: delayTop + delayHeight, length: plotWidth, title: "time (s)")
        let height = delayTop + delayHeight + 48

        return """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        \(svg)</svg>

        """
    }
}
