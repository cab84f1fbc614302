/// Why a CPU budget was refused (`CPUBudget`, `simulcast advise --cpu-budget`).
public enum CPUBudgetError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is not a number (optionally followed by `%`).
    case notANumber(String)
    /// Zero or negative: no encoder runs on nothing.
    case notPositive(Double)
    /// More than one core: the encoder runs on one thread.
    case aboveOneCore(Double)

    public var description: String {
        switch self {
        case let .notANumber(text):
            return "CPU budget '\(text)' is not a number: give a percentage of one core, e.g. 20%"
        case let .notPositive(value):
            return "CPU budget \(CPUBudget.format(value))% is not positive: give more than 0% and at most 100% of one core"
        case let .aboveOneCore(value):
            return "CPU budget \(CPUBudget.format(value))% is more than one core: the encoder runs on one thread, "
                + "give at most 100%"
        }
    }
}
