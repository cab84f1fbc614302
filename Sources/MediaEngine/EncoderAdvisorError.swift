/// Why `EncoderAdvisor` could not measure or recommend.
public enum EncoderAdvisorError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No measured configuration costs at most the budget.
    case nothingFits(budget: CPUBudget, cheapest: EncoderMeasurement?)
    /// Nothing to measure: an empty candidate list.
    case noCandidates
    /// Frames per measurement outside `EncoderAdvisor.framesPerMeasurementRange`.
    case invalidFrameCount(Int)
    /// A candidate the encoder refuses (size, frame rate or cpu_used out of range).
    case invalidCandidate(EncoderCandidate, reason: String)
    /// The input could not be read or holds too few frames.
    case input(String)
    /// libvpx or libyuv failed while measuring.
    case encoderFailed(EncoderCandidate, reason: String)

    public var description: String {
        switch self {
        case let .nothingFits(budget, cheapest):
            let hint = cheapest.map { "; the cheapest, \($0.candidate), costs \(CPUBudget.format($0.cpuPercentOfOneCore))%" } ?? ""
            return "no configuration fits a budget of \(budget)\(hint)"
        case .noCandidates: return "no configurations to measure"
        case let .invalidFrameCount(count):
            return "\(count) frames per measurement is out of range: use \(EncoderAdvisor.framesPerMeasurementRange.lowerBound) "
                + "to \(EncoderAdvisor.framesPerMeasurementRange.upperBound)"
        case let .invalidCandidate(candidate, reason): return "cannot encode \(candidate): \(reason)"
        case let .input(reason): return "input: \(reason)"
        case let .encoderFailed(candidate, reason): return "encoding \(candidate) failed: \(reason)"
        }
    }
}
