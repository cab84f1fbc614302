/// Bytes counted over a sliding time window, in a fixed ring of buckets (no allocation after
/// init): the incoming rate of a receive-side estimator, the media rate a retransmission budget
/// is a share of.
///
/// Before a full window has passed since the first count, rates are taken over the time since
/// that first count, so a fresh window does not read low. Time is a parameter (milliseconds on
/// any monotonic clock); a clock that goes backwards only lands bytes in an older bucket.
public struct ByteRateWindow: Sendable {
    /// The window length and how many buckets it is cut into.
    public let windowMilliseconds: Int64
    public let bucketCount: Int
    private let bucketMilliseconds: Int64
    private var bucketBytes: [Int64]
    private var bucketEpochs: [Int64]
    private var firstMilliseconds: Int64?

    /// - Parameters:
    ///   - windowMilliseconds: at least 10 ms.
    ///   - bucketCount: 1...1000.
    public init(windowMilliseconds: Int64 = 1000, bucketCount: Int = 20) {
        self.windowMilliseconds = max(10, windowMilliseconds)
        self.bucketCount = min(max(1, bucketCount), 1000)
        bucketMilliseconds = max(1, self.windowMilliseconds / Int64(self.bucketCount))
        bucketBytes = Array(repeating: 0, count: self.bucketCount)
        bucketEpochs = Array(repeating: .min, count: self.bucketCount)
    }

    private func bucket(for epoch: Int64) -> Int {
        let remainder = Int(epoch % Int64(bucketCount))
        return remainder < 0 ? remainder + bucketCount : remainder
    }

    /// Counts `bytes` (negative counts as 0) at `nowMilliseconds`.
    public mutating func add(bytes: Int, nowMilliseconds: Int64) {
        if firstMilliseconds == nil { firstMilliseconds = nowMilliseconds }
        let epoch = nowMilliseconds / bucketMilliseconds
        let index = bucket(for: epoch)
        if bucketEpochs[index] != epoch {
            bucketEpochs[index] = epoch
            bucketBytes[index] = 0
        }
        bucketBytes[index] &+= Int64(max(0, bytes))
    }

    /// Bytes counted in the window ending at `nowMilliseconds`.
    public func bytes(nowMilliseconds: Int64) -> Int64 {
        let currentEpoch = nowMilliseconds / bucketMilliseconds
        let oldestEpoch = currentEpoch &- Int64(bucketCount) &+ 1
        var total: Int64 = 0
        for index in 0..<bucketCount where bucketEpochs[index] >= oldestEpoch && bucketEpochs[index] <= currentEpoch {
            total &+= bucketBytes[index]
        }
        return max(0, total)
    }

    /// The rate over the window ending at `nowMilliseconds`, bits per second (0 before any count).
    public func bitsPerSecond(nowMilliseconds: Int64) -> UInt64 {
        guard let first = firstMilliseconds else { return 0 }
        let sinceFirst = nowMilliseconds.subtractingReportingOverflow(first)
        let elapsed = sinceFirst.overflow ? windowMilliseconds : sinceFirst.partialValue &+ bucketMilliseconds
        let span = min(windowMilliseconds, max(bucketMilliseconds, elapsed))
        return UInt64(bytes(nowMilliseconds: nowMilliseconds)) &* 8 &* 1000 / UInt64(span)
    }
}
