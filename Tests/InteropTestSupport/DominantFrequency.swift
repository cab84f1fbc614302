import Foundation

/// The frequency with the most power in 16-bit mono PCM at 48 kHz, searched in `range` at
/// `resolution` Hz steps (a Goertzel filter per candidate): what a test reads a received tone by.
public func dominantFrequency(of samples: [Int16], in range: ClosedRange<Double> = 200...1_000, resolution: Double = 1) -> Double {
    var best = (frequency: range.lowerBound, power: -1.0)
    var frequency = range.lowerBound
    while frequency <= range.upperBound {
        let coefficient = 2 * cos(2 * Double.pi * frequency / 48_000)
        var (previous, beforePrevious) = (0.0, 0.0)
        for sample in samples {
            let current = Double(sample) + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
        if power > best.power { best = (frequency, power) }
        frequency += resolution
    }
    return best.frequency
}
