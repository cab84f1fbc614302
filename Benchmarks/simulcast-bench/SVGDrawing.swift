import Foundation

/// What the bench's SVG charts share: escaping, number formatting, axis ticks a person would
/// choose (steps of 1, 2 or 5 × 10^k, so 0, 5, 10, 15, 20 and never 0.0, 5.0, 10.1), text that
/// wraps before it leaves the picture, and legends. Charts stay self-contained SVG (no fonts,
/// scripts or links), readable in a browser or on GitHub.
enum SVGDrawing {
    /// An axis from `lower` to `upper` with ticks at every `step`.
    struct Axis {
        var lower: Double
        var upper: Double
        var step: Double

        /// An axis from `lower` (default 0) up to at least `maximum` in at most `intervals` steps:
        /// the smallest step of 1, 2, 2.5 or 5 × 10^k that gets there, so the axis ends close
        /// above the data.
        init(lower: Double = 0, covering maximum: Double, intervals: Int = 5) {
            let span = max(maximum - lower, 1e-9)
            let magnitude = pow(10, floor(log10(span / Double(max(intervals, 1)))))
            let step = [1.0, 2, 2.5, 5, 10, 20].map { $0 * magnitude }
                .first { (span / $0).rounded(.up) <= Double(intervals) } ?? 20 * magnitude
            self.lower = lower
            self.step = step
            upper = lower + (span / step).rounded(.up) * step
        }

        init(lower: Double, upper: Double, step: Double) {
            (self.lower, self.upper, self.step) = (lower, upper, step)
        }

        var ticks: [Double] {
            stride(from: lower, through: upper + step / 1000, by: step).map { $0 }
        }

        /// `value`'s position along a panel of `length` points (clamped to the axis).
        func position(_ value: Double, length: Double) -> Double {
            (min(max(value, lower), upper) - lower) / (upper - lower) * length
        }

        /// A tick's label: as many decimals as the step has (0.25 → 2), no more.
        func label(_ value: Double) -> String {
            let decimals = (0...4).first { places in
                let scaled = step * pow(10, Double(places))
                return abs(scaled - scaled.rounded()) < 1e-6
            } ?? 4
            return MarkdownTable.fmt(value, decimals)
        }
    }

    /// One legend entry: a swatch (`fill`, or a line `stroke` with an optional dash) and its text.
    struct LegendEntry {
        var text: String
        var color: String
        var dash: String? = nil
        var isLine = false
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    /// One decimal, for coordinates.
    static func f(_ value: Double) -> String { MarkdownTable.fmt(value, 1) }

    /// A rough width of `text` in a sans-serif font of `size` points (average glyph ~0.56 em):
    /// enough to wrap titles and place legends without a font library.
    static func textWidth(_ text: String, size: Double) -> Double { Double(text.count) * size * 0.56 }

    /// `text` as lines no wider than `width` at `size`, broken at spaces.
    static func wrap(_ text: String, width: Double, size: Double) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            let candidate = current.isEmpty ? String(word) : current + " " + word
            if !current.isEmpty && textWidth(candidate, size: size) > width {
                lines.append(current)
                current = String(word)
            } else {
                current = candidate
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    /// `<text>` lines of `text` wrapped to `width`, the first baseline at `y`; returns the SVG
    /// and the y below the last line.
    static func paragraph(_ text: String, x: Double, y: Double, width: Double, size: Double,
                          attributes: String = "") -> (svg: String, bottom: Double) {
        var svg = ""
        var baseline = y
        for line in wrap(text, width: width, size: size) {
            svg += "<text x=\"\(f(x))\" y=\"\(f(baseline))\" font-size=\"\(f(size))\" \(attributes)>\(escape(line))</text>\n"
            baseline += size * 1.3
        }
        return (svg, baseline - size * 1.3 + size * 0.5)
    }

    /// A horizontal axis under a panel: a baseline, ticks with labels, and the axis title.
    static func horizontalAxis(_ axis: Axis, x: Double, y: Double, length: Double, title: String) -> String {
        var svg = "<line x1=\"\(f(x))\" y1=\"\(f(y))\" x2=\"\(f(x + length))\" y2=\"\(f(y))\" stroke=\"#888\"/>\n"
        for tick in axis.ticks {
            let tx = x + axis.position(tick, length: length)
            svg += "<line x1=\"\(f(tx))\" y1=\"\(f(y))\" x2=\"\(f(tx))\" y2=\"\(f(y + 4))\" stroke=\"#888\"/>"
            svg += "<text x=\"\(f(tx))\" y=\"\(f(y + 16))\" text-anchor=\"middle\" font-size=\"11\" fill=\"#444\">\(axis.label(tick))</text>\n"
        }
        svg += "<text x=\"\(f(x + length / 2))\" y=\"\(f(y + 32))\" text-anchor=\"middle\" font-size=\"11\" fill=\"#222\">\(escape(title))</text>\n"
        return svg
    }

    /// A vertical axis beside a panel (`side` "left" or "right"): ticks with labels, grid lines
    /// across the panel if `gridWidth` > 0, and the axis title turned along the axis.
    static func verticalAxis(_ axis: Axis, x: Double, top: Double, height: Double, title: String,
                             side: String = "left", gridWidth: Double = 0, color: String = "#444") -> String {
        let outward = side == "left" ? -1.0 : 1.0
        var svg = "<line x1=\"\(f(x))\" y1=\"\(f(top))\" x2=\"\(f(x))\" y2=\"\(f(top + height))\" stroke=\"#888\"/>\n"
        for tick in axis.ticks {
            let ty = top + height - axis.position(tick, length: height)
            if gridWidth > 0 {
                svg += "<line x1=\"\(f(x))\" y1=\"\(f(ty))\" x2=\"\(f(x + gridWidth))\" y2=\"\(f(ty))\" stroke=\"#eee\"/>"
            }
            svg += "<line x1=\"\(f(x))\" y1=\"\(f(ty))\" x2=\"\(f(x + 4 * outward))\" y2=\"\(f(ty))\" stroke=\"#888\"/>"
            svg += "<text x=\"\(f(x + 7 * outward))\" y=\"\(f(ty + 4))\" text-anchor=\"\(side == "left" ? "end" : "start")\" "
                + "font-size=\"11\" fill=\"\(color)\">\(axis.label(tick))</text>\n"
        }
        let labelX = x + outward * 44, labelY = top + height / 2
        svg += "<text x=\"\(f(labelX))\" y=\"\(f(labelY))\" text-anchor=\"middle\" font-size=\"11\" fill=\"\(color)\" "
            + "transform=\"rotate(\(side == "left" ? -90 : 90) \(f(labelX)) \(f(labelY)))\">\(escape(title))</text>\n"
        return svg
    }

    /// Legend entries in a row from (x, y), wrapping to a new row before `maxX`; returns the SVG
    /// and the y below it.
    static func legend(_ entries: [LegendEntry], x: Double, y: Double, maxX: Double) -> (svg: String, bottom: Double) {
        var svg = ""
        var (cx, cy) = (x, y)
        for entry in entries {
            let width = 26 + textWidth(entry.text, size: 11) + 16
            if cx + width > maxX && cx > x {
                cx = x
                cy += 18
            }
            if entry.isLine {
                svg += "<line x1=\"\(f(cx))\" y1=\"\(f(cy - 4))\" x2=\"\(f(cx + 20))\" y2=\"\(f(cy - 4))\" stroke=\"\(entry.color)\" "
                    + "stroke-width=\"2\"\(entry.dash.map { " stroke-dasharray=\"\($0)\"" } ?? "")/>"
            } else {
                svg += "<rect x=\"\(f(cx))\" y=\"\(f(cy - 10))\" width=\"20\" height=\"10\" fill=\"\(entry.color)\"/>"
            }
            svg += "<text x=\"\(f(cx + 26))\" y=\"\(f(cy))\" font-size=\"11\" fill=\"#222\">\(escape(entry.text))</text>\n"
            cx += width
        }
        return (svg, cy + 10)
    }
}
