import Testing

/// `--help` of both executables and of every subcommand they list exits 0 and prints a usage,
/// and every option a usage names is one the subcommand accepts: `--help` is honoured only
/// after the other arguments parsed, so `tool sub --help --option [value]` exits 0 exactly when
/// `--option` is known (tried after each synopsis's leading arguments). An option that is not
/// known fails the same way, which shows the check can fail.
@Suite(.serialized) struct CommandHelpTests {
    @Test(arguments: ["simulcast", "simulcast-bench"])
    func everySubcommandsHelpExitsZeroAndEveryListedOptionIsAccepted(tool: String) throws {
        let executable = try SimulcastExecutable(name: tool)
        let top = try executable.run(["--help"], timeoutSeconds: 30)
        #expect(top.status == 0, "\(tool) --help: \(top.standardError)")
        let subcommands = UsageText(text: top.standardOutput).subcommands
        #expect(subcommands.count >= 7, "\(tool) --help lists \(subcommands)")
        for subcommand in subcommands {
            let help = try executable.run([subcommand, "--help"], timeoutSeconds: 30)
            #expect(help.status == 0 && help.standardOutput.hasPrefix("usage: \(tool) \(subcommand)"),
                    "\(tool) \(subcommand) --help exited \(help.status): \(help.standardOutput.prefix(200)) \(help.standardError)")
            let usage = UsageText(text: help.standardOutput)
            let prefixes = usage.synopsisPrefixes(tool: tool, subcommand: subcommand)
            for option in usage.options {
                let accepted = try prefixes.contains { prefix in
                    try executable.acceptsOption([subcommand] + prefix + ["--help", option])
                }
                #expect(accepted, "\(tool) \(subcommand): --help lists \(option), which the command does not accept")
            }
            let unknown = try executable.run([subcommand, "--help", "--no-such-option"], timeoutSeconds: 30)
            #expect(unknown.status != 0 && unknown.standardError.contains("unknown option --no-such-option"),
                    "\(tool) \(subcommand) took --no-such-option: exit \(unknown.status)")
        }
    }

    @Test func aBenchmarkGivenAnUnknownOptionDoesNotRun() throws {
        let outcome = try SimulcastExecutable(name: "simulcast-bench").run(["allocations", "--iterations", "5"], timeoutSeconds: 30)
        #expect(outcome.status == 1)
        #expect(outcome.standardError.contains("unknown option --iterations"))
        #expect(outcome.standardOutput.isEmpty)
    }
}
