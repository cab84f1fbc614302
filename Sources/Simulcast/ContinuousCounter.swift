/// Maps one wrapping RTP counter (16-bit sequence number, 15-bit VP8 PictureID) of a series of
/// forwarded sources onto ONE output counter that stays contiguous across source switches and
/// across values deliberately left out, while values that were merely lost stay gaps.
///
/// Inputs are unwrapped to 64-bit "extended" values relative to the highest one seen (the
/// nearest candidate within half the modulus), so wraps and out-of-order arrival need no special
/// cases. For any extended input `p` of the current source:
///
///     output(p) = p − baseOffset − (number of left-out values below p)
///
/// Left-out values are remembered in a bounded ring so out-of-order inputs behind them still map
/// exactly; inputs older than the ring's memory are refused rather than guessed.
/// All arithmetic is on Int64 extended values far from overflow (2^47 wraps of a 16-bit counter);
/// wire values are only ever converted with `truncatingIfNeeded`.
struct ContinuousCounter: Sendable {
    let bits: Int
    private let modulus: Int64

    /// Highest extended input of the current source; nil before the first source.
    private(set) var highestInput: Int64?
    /// `output = input − offset` for inputs above `highestInput` (all left-out values counted).
    private var offset: Int64 = 0
    /// Inputs at or below this precede the current source's start.
    private var sourceFloor: Int64 = 0
    /// Inputs at or below this are behind the forgotten part of the left-out history.
    private var historyFloor: Int64 = 0
    /// Highest extended output so far, across sources.
    private(set) var highestOutput: Int64?
    /// Left-out extended inputs of the current source, ascending, in a ring.
    private var leftOut: [Int64]
    private var leftOutStart = 0
    private var leftOutCount = 0

    init(bits: Int, leftOutCapacity: Int) {
        self.bits = bits
        modulus = Int64(1) << Int64(bits)
        leftOut = Array(repeating: 0, count: max(1, leftOutCapacity))
    }

    /// Reduces a wire value to the counter's width.
    func wire(_ value: UInt64) -> Int64 { Int64(truncatingIfNeeded: value) & (modulus - 1) }

    /// Converts an extended output back to the wire width.
    func truncated(_ value: Int64) -> UInt64 { UInt64(truncatingIfNeeded: value) & UInt64(modulus - 1) }

    /// Unwraps `raw` to the extended value nearest the highest input.
    func extend(_ raw: UInt64) -> Int64? {
        guard let highest = highestInput else { return nil }
        let value = wire(raw)
        var delta = (value - (highest & (modulus - 1))) & (modulus - 1)
        if delta >= modulus / 2 { delta -= modulus }
        return highest + delta
    }

    /// Starts a new source whose first value `raw` becomes the output after the highest one
    /// (or `raw` itself for the very first source). Returns that extended output.
    @discardableResult
    mutating func startSource(_ raw: UInt64) -> Int64 {
        let input = wire(raw)
        let output = highestOutput.map { $0 + 1 } ?? input
        highestInput = input
        sourceFloor = input - 1
        historyFloor = input - 1
        offset = input - output
        highestOutput = output
        leftOutStart = 0
        leftOutCount = 0
        return output
    }

    /// The result of mapping one input.
    enum Mapping: Equatable {
        /// The extended output.
        case output(Int64)
        /// Left out on purpose, or before the current source's start: never forward it.
        case leftOut
        /// Older than the left-out history remembers: cannot be mapped exactly.
        case tooOld
        /// No source has started.
        case notStarted
    }

    /// Maps `raw` of the current source to its extended output.
    mutating func map(_ raw: UInt64) -> Mapping {
        guard let highest = highestInput, let input = extend(raw) else { return .notStarted }
        if input > highest {
            highestInput = input
            let output = input - offset
            highestOutput = max(highestOutput ?? output, output)
            return .output(output)
        }
        guard input > sourceFloor else { return .leftOut }
        guard input > historyFloor else { return .tooOld }
        var leftOutAbove: Int64 = 0
        var index = leftOutCount - 1
        while index >= 0 {
            let value = leftOut[(leftOutStart + index) % leftOut.count]
            if value == input { return .leftOut }
            if value < input { break }
            leftOutAbove += 1
            index -= 1
        }
        return .output(input - offset + leftOutAbove)
    }

    /// Leaves `raw` out of the output: later values move down by one. Only values above every
    /// value seen can be left out (an earlier value's neighbours may already be forwarded);
    /// returns whether it was.
    @discardableResult
    mutating func leaveOut(_ raw: UInt64) -> Bool {
        guard let highest = highestInput, let input = extend(raw), input > highest else { return false }
        highestInput = input
        offset += 1
        if leftOutCount == leftOut.count {
            // Forget the oldest; inputs at or below it can no longer be mapped exactly.
            historyFloor = max(historyFloor, leftOut[leftOutStart])
            leftOutStart = (leftOutStart + 1) % leftOut.count
            leftOutCount -= 1
        }
        leftOut[(leftOutStart + leftOutCount) % leftOut.count] = input
        leftOutCount += 1
        return true
    }
}
