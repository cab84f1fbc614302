/// Counts video freezes: a gap of more than `thresholdMilliseconds` between two decoded frames
/// (issue 6: "no new frame for > 500 ms"). A freeze's duration is the whole gap, from the
/// frame before it to the frame that ends it (as WebRTC's `totalFreezesDuration`).
///
/// Time is a parameter (milliseconds on any monotonic clock).
public struct FreezeDetector: Sendable {
    /// A gap longer than this is a freeze.
    public let thresholdMilliseconds: Int64
    /// When the last frame was decoded; nil before the first.
    public private(set) var lastFrameMilliseconds: Int64?
    /// Freezes that have ended (a frame arrived after them).
    public private(set) var freezeCount = 0
    /// Sum of the durations of ended freezes.
    public private(set) var totalFrozenMilliseconds: Int64 = 0
    /// Longest ended freeze.
    public private(set) var longestFreezeMilliseconds: Int64 = 0

    /// A detector with the given threshold (default 500 ms).
    public init(thresholdMilliseconds: Int64 = 500) {
        self.thresholdMilliseconds = max(0, thresholdMilliseconds)
    }

    /// Records a decoded frame at `nowMilliseconds`; returns the length of the freeze it ends, if any.
    @discardableResult
    public mutating func frameDecoded(atMilliseconds nowMilliseconds: Int64) -> Int64? {
        defer { lastFrameMilliseconds = nowMilliseconds }
        guard let last = lastFrameMilliseconds else { return nil }
        let gap = nowMilliseconds - last
        guard gap > thresholdMilliseconds else { return nil }
        freezeCount += 1
        totalFrozenMilliseconds += gap
        longestFreezeMilliseconds = max(longestFreezeMilliseconds, gap)
        return gap
    }

    /// Length of the freeze going on at `nowMilliseconds` (0 if frames are flowing or none came yet).
    public func ongoingFreezeMilliseconds(nowMilliseconds: Int64) -> Int64 {
        guard let last = lastFrameMilliseconds else { return 0 }
        let gap = nowMilliseconds - last
        return gap > thresholdMilliseconds ? gap : 0
    }

    /// Whether the picture is frozen at `nowMilliseconds`.
    public func isFrozen(nowMilliseconds: Int64) -> Bool {
        ongoingFreezeMilliseconds(nowMilliseconds: nowMilliseconds) > 0
    }

    /// The freezes as of `nowMilliseconds`: the ended ones plus the one going on, if any. A
    /// stream that stops (or a call that ends) frozen reports that freeze in its count, total
    /// and longest alike, so a summary never shows a longest freeze next to a count of 0.
    public func summary(nowMilliseconds: Int64) -> Summary {
        let ongoing = ongoingFreezeMilliseconds(nowMilliseconds: nowMilliseconds)
        guard ongoing > 0 else {
            return Summary(count: freezeCount, totalMilliseconds: totalFrozenMilliseconds,
                           longestMilliseconds: longestFreezeMilliseconds)
        }
        return Summary(count: freezeCount + 1, totalMilliseconds: totalFrozenMilliseconds + ongoing,
                       longestMilliseconds: max(longestFreezeMilliseconds, ongoing))
    }

    /// Freezes counted at one moment (`summary(nowMilliseconds:)`).
    public struct Summary: Sendable, Equatable {
        /// Freezes, the one going on included.
        public var count: Int
        /// Their total duration (the one going on up to the moment asked about).
        public var totalMilliseconds: Int64
        /// The longest of them; 0 exactly when `count` is 0.
        public var longestMilliseconds: Int64
    }
}
