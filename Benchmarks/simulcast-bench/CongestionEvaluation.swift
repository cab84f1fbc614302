import CommandLineSupport
import Foundation

let congestionEvaluationUsage = """
usage: simulcast-bench cc-eval [--cases 5.1,5.2,5.4,5.5,5.6,5.8,loss5,loss15|smoke] [--out DIR] [--size WxH] [--require CHECK,...|all]
  Congestion control on a simulated bottleneck with real VP8 simulcast publishers: RFC 8867 §5.1
  (1 -> 2.5 -> 0.6 -> 1 Mbps), §5.2 (two flows sharing a link), §5.4 (three flows join 3.5 Mbps),
  §5.5 (five flows, RTT 10-150 ms), §5.6 (beside a TCP-like AIMD flow), §5.8 (pause and resume),
  loss5 (5 % random loss), loss15 (15 % random loss on a congested link); smoke is a 20 s §5.1
  for `make test`. Per case DIR/<case>.json (RFC 8868 metrics and the samples) and
  DIR/<case>.svg, and PASS/FAIL per acceptance check on the terminal.
  --cases NAMES       which cases (default: all but smoke)
  --out DIR           where the JSON and SVG go (default cc-eval-results)
  --size WxH          the publishers' camera size (default: the case's)
  --require CHECKS    fail unless these checks passed in every case run (all: every check)
"""

/// `simulcast-bench cc-eval`: the congestion-control evaluation (RFC 8867 cases on a simulated
/// bottleneck, RFC 8868 metrics): per case a JSON report and an SVG plot in `--out`, one line
/// per metric and a PASS/FAIL per acceptance check on the terminal. With `--require a,b` the
/// command fails unless those checks passed in every case run (`--require all`: every check).
func runCongestionEvaluation(_ arguments: ArraySlice<String>) throws {
    let options = try CommandLineArguments(arguments, valueOptions: ["cases", "out", "size", "require"])
    let known = CongestionCase.all + [CongestionCase.smoke]
    let names = options.string("cases").map { $0.split(separator: ",").map(String.init) } ?? CongestionCase.all.map(\.name)
    let out = options.string("out") ?? "cc-eval-results"
    var failed: [String] = []
    let required = options.string("require").map { Set($0.split(separator: ",").map(String.init)) }
    for name in names {
        guard var testCase = known.first(where: { $0.name == name }) else {
            throw ValidationError(message: "--cases \(name): expected names from \(known.map(\.name).joined(separator: ","))")
        }
        if options.string("size") != nil {
            let size = try options.size("size", default: (testCase.width, testCase.height))
            (testCase.width, testCase.height) = (size.width, size.height)
        }
        let started = Date()
        let (samples, queueing) = try CongestionRun(testCase: testCase).run()
        let report = CongestionReport(testCase: testCase, samples: samples, queueingMilliseconds: queueing)
        for line in report.lines { print(line) }
        print(String(format: "  (%.0f s of simulated time in %.1f s)", testCase.seconds, Date().timeIntervalSince(started)))
        try writeJSON(report, to: "\(out)/\(name).json")
        try write(Data(CongestionPlot.render(report).utf8), to: "\(out)/\(name).svg")
        print("  \(out)/\(name).json, \(out)/\(name).svg")
        if let required {
            failed += report.checks.filter { !$0.value && (required.contains("all") || required.contains($0.key)) }
                .map { "\(name): \($0.key)" }
            failed += required.subtracting(["all"]).subtracting(report.checks.keys).map { "\(name): no check named \($0)" }
        }
    }
    if !failed.isEmpty {
        throw ValidationError(message: "required checks failed: \(failed.joined(separator: "; "))")
    }
}
