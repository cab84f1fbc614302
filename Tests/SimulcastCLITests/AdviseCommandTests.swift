import Testing

/// `simulcast advise` refuses a bad budget before measuring anything, with one readable sentence
/// (the `CPUBudgetError` description) and exit status 1. Runs the built executable, as a user would.
@Suite struct AdviseCommandTests {
    private func failure(_ budget: String) throws -> String {
        let outcome = try SimulcastExecutable().run(["advise", "--cpu-budget", budget])
        #expect(outcome.status == 1, "exit status of simulcast advise --cpu-budget \(budget)")
        return outcome.standardError
    }

    @Test func badBudgetsAreRefusedWithWhatIsAllowed() throws {
        #expect(try failure("0") == "simulcast advise: CPU budget 0% is not positive: give more than 0% and at most 100% of one core\n")
        #expect(try failure("-5%") == "simulcast advise: CPU budget -5% is not positive: give more than 0% and at most 100% of one core\n")
        #expect(try failure("150%")
                == "simulcast advise: CPU budget 150% is more than one core: the encoder runs on one thread, give at most 100%\n")
        #expect(try failure("lots") == "simulcast advise: CPU budget 'lots' is not a number: give a percentage of one core, e.g. 20%\n")
    }

    @Test func theBudgetIsRequired() throws {
        let outcome = try SimulcastExecutable().run(["advise"])
        #expect(outcome.status == 1)
        #expect(outcome.standardError.contains("--cpu-budget is required"))
    }
}
