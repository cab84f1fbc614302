extension EncoderAdvisor {
    /// The best-quality measurement that costs at most the budget (`EncoderCandidate.isBetterQuality`;
    /// the cheaper one among equals). Pure: the same measurements always give the same choice.
    public static func choose(budget: CPUBudget, from measurements: [EncoderMeasurement])
        throws(EncoderAdvisorError) -> EncoderMeasurement {
        let fitting = measurements.filter { $0.cpuPercentOfOneCore <= budget.percentOfOneCore }
        guard var best = fitting.first else {
            throw .nothingFits(budget: budget, cheapest: measurements.min { $0.cpuPercentOfOneCore < $1.cpuPercentOfOneCore })
        }
        for measurement in fitting.dropFirst() {
            if EncoderCandidate.isBetterQuality(measurement.candidate, than: best.candidate)
                || (!EncoderCandidate.isBetterQuality(best.candidate, than: measurement.candidate)
                    && measurement.cpuPercentOfOneCore < best.cpuPercentOfOneCore) {
                best = measurement
            }
        }
        return best
    }
}
