import CommandLineSupport
import Foundation
import MediaEngine
import MediaEngineTesting

/// `simulcast advise`: argument parsing and printing over `EncoderAdvisor` (MediaEngine), which
/// measures this machine's cost per encoder configuration and picks the best that fits the budget.
enum AdviseCommand {
    static let usage = """
    usage: simulcast advise --cpu-budget PERCENT [--input FILE.y4m] [--frames N]
      --cpu-budget P  share of one core the camera track's encoder may use, e.g. 20% (more than 0, at most 100)
      --input F.y4m   measure on this clip (30 fps, scaled per configuration) instead of the built-in scene
      --frames N      frames encoded per configuration (default 30; the first, a key frame, is not timed)
    Measures MAX_LAYER_3 / MAX_LAYER_2 / single at 1280x720, 960x540 and 640x360, 30 and 15 fps,
    cpu_used -6 and -10, prints every measurement, the best-quality one that fits, and how long the
    measuring took (11 s with the default 30 frames in a release build on the project's 2-core VM,
    2026-12-03; more on a busier or slower machine).
    """

    static func run(_ arguments: ArraySlice<String>, print output: (String) -> Void = { print($0) }) throws {
        let options = try CommandLineArguments(arguments, valueOptions: ["cpu-budget", "input", "frames"])
        guard let budgetText = options.string("cpu-budget") else { throw CommandError("--cpu-budget is required, e.g. --cpu-budget 20%") }
        let budget = try CPUBudget(parsing: budgetText)
        let frames = try options.int("frames", default: 30, range: EncoderAdvisor.framesPerMeasurementRange)
        let advisor = try EncoderAdvisor(framesPerMeasurement: frames)
        let started = Date()
        let advice = try options.string("input").map { path in
            try advisor.advise(budget: budget, source: Y4MFileSource(path: path, width: 1280, height: 720))
        } ?? advisor.advise(budget: budget)
        output(AdviceTable.render(advice))
        output("measured \(advice.measurements.count) configurations of \(frames) frames in "
            + "\(decimalText(Date().timeIntervalSince(started), 1)) s")
    }
}
