import CommandLineSupport
import Foundation

let chartsUsage = """
usage: simulcast-bench charts [--encode FILE.json] [--encode-svg PATH] [--cc-eval DIR]
  Redraws the charts from results already measured, without measuring anything: the encode chart
  from the JSON report `simulcast-bench encode` wrote, and DIR/<case>.svg from every DIR/<case>.json
  that `simulcast-bench cc-eval` wrote.
  --encode FILE.json   an encode report (e.g. bench-results/encode.json)
  --encode-svg PATH    where its chart goes (default: FILE.json with .svg)
  --cc-eval DIR        a cc-eval output folder (e.g. bench-results/cc-eval)
"""

/// `charts`: the SVGs again from JSON results (after a change to how they are drawn).
func runCharts(_ arguments: ArraySlice<String>) throws {
    let options = try CommandLineArguments(arguments, valueOptions: ["encode", "encode-svg", "cc-eval"])
    guard options.string("encode") != nil || options.string("cc-eval") != nil else {
        throw ValidationError(message: "give --encode FILE.json and/or --cc-eval DIR (see --help)")
    }
    let decoder = JSONDecoder()
    if let path = options.string("encode") {
        let report = try decoder.decode(EncodeReport.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        let svgPath = options.string("encode-svg") ?? (path.hasSuffix(".json") ? String(path.dropLast(5)) : path) + ".svg"
        try write(Data(BarChart.render(report, order: configurationOrder).utf8), to: svgPath)
        print(svgPath)
    }
    if let directory = options.string("cc-eval") {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }.sorted()
        guard !names.isEmpty else { throw ValidationError(message: "--cc-eval \(directory): no .json results in it") }
        for name in names {
            let path = "\(directory)/\(name)"
            let report = try decoder.decode(CongestionReport.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
            let svgPath = "\(directory)/\(name.dropLast(5)).svg"
            try write(Data(CongestionPlot.render(report).utf8), to: svgPath)
            print(svgPath)
        }
    }
}
