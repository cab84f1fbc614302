/// A CPU budget for one camera track's encoder: a share of one core, more than 0 % and at most
/// 100 % (the encoder runs single-threaded, `g_threads = 1` in libvpx, so one core is the most it
/// can use). `EncoderAdvisor` picks the best configuration whose measured cost fits.
public struct CPUBudget: Sendable, Equatable, CustomStringConvertible {
    /// The budget in percent of one core (0 < value ≤ 100).
    public let percentOfOneCore: Double

    /// A budget of `percentOfOneCore` percent. Throws for 0, negative, above 100 or not finite.
    public init(percentOfOneCore: Double) throws(CPUBudgetError) {
        guard percentOfOneCore.isFinite else { throw .notANumber("\(percentOfOneCore)") }
        guard percentOfOneCore > 0 else { throw .notPositive(percentOfOneCore) }
        guard percentOfOneCore <= 100 else { throw .aboveOneCore(percentOfOneCore) }
        self.percentOfOneCore = percentOfOneCore
    }

    /// Parses a budget as a user writes it: `20%`, `20`, `12.5 %` (percent of one core).
    public init(parsing text: String) throws(CPUBudgetError) {
        var number = Self.trimmingBlanks(text[...])
        if number.hasSuffix("%") { number = Self.trimmingBlanks(number.dropLast()) }
        guard let value = Double(String(number)), value.isFinite else {
            throw .notANumber(text)
        }
        try self.init(percentOfOneCore: value)
    }

    public var description: String { "\(CPUBudget.format(percentOfOneCore))% of one core" }

    private static func trimmingBlanks(_ text: Substring) -> Substring {
        guard let start = text.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return text[text.endIndex...] }
        let end = text.lastIndex(where: { $0 != " " && $0 != "\t" })!  // exists: `start` does
        return text[start...end]
    }

    static func format(_ percent: Double) -> String {
        let rounded = (percent * 10).rounded() / 10
        return rounded == rounded.rounded() ? "\(Int(rounded))" : "\(rounded)"
    }
}
