import CommandLineSupport

/// One `simulcast-bench` subcommand: its name, the usage `simulcast-bench NAME --help` prints,
/// and what runs it. Every subcommand parses all of its arguments (through
/// `CommandLineArguments`) before it measures anything, so an unknown option is an error and
/// `--help` prints `usage` instead of running a benchmark.
struct BenchSubcommand {
    let name: String
    let usage: String
    let run: (ArraySlice<String>) throws -> Void

    /// Runs the subcommand; returns false if `--help` was asked for (the caller prints `usage`).
    func callAsFunction(_ arguments: ArraySlice<String>) throws -> Bool {
        do {
            try run(arguments)
            return true
        } catch CommandLineArguments.ParseError.helpRequested {
            return false
        }
    }
}
