/// When and how hard to probe the link (the probing of GCC as libwebrtc runs it, simplified):
/// while the sender wants more than the estimate allows and the link shows no congestion, send a
/// short cluster of padding at a higher rate and let `ProbeBitrateEstimator` say what got
/// through. A cluster that proved most of its rate is followed at once by one twice as high (an
/// exponential climb back after a squeeze); one that did not waits `retryIntervalMilliseconds`
/// (2 s by default: with 1 s a probe that proved more just as the link dropped kept the queue at
/// 100-240 ms for two seconds in cc-eval's smoke case).
/// Time is a parameter; no I/O.
public struct ProbeController: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// How long one cluster lasts.
        public var clusterMilliseconds: Int64
        /// A cluster's rate over the current estimate.
        public var rateFactor: Double
        /// The wait after a cluster that proved less than `successRatio` of its rate, or whose
        /// result never came.
        public var retryIntervalMilliseconds: Int64
        public var successRatio: Double
        /// No probing this long after the link last showed over-use.
        public var quietAfterOveruseMilliseconds: Int64
        /// The least a cluster sends: enough packets for `ProbeBitrateEstimator` to measure, media
        /// packets (about 1,200 bytes) included.
        public var minimumBytes = 6_000

        public init(clusterMilliseconds: Int64 = 30, rateFactor: Double = 2, retryIntervalMilliseconds: Int64 = 2_000,
                    successRatio: Double = 0.8, quietAfterOveruseMilliseconds: Int64 = 1_000) {
            self.clusterMilliseconds = max(5, clusterMilliseconds)
            self.rateFactor = max(1.1, rateFactor)
            self.retryIntervalMilliseconds = max(100, retryIntervalMilliseconds)
            self.successRatio = min(max(successRatio, 0.1), 1)
            self.quietAfterOveruseMilliseconds = max(0, quietAfterOveruseMilliseconds)
        }
    }

    /// One burst of probing: `bitsPerSecond` for `durationMilliseconds` from `startMilliseconds`.
    public struct Cluster: Sendable, Equatable {
        public var id: Int
        public var bitsPerSecond: UInt64
        public var startMilliseconds: Int64
        public var durationMilliseconds: Int64
        public var bytesSent = 0

        /// Bytes the cluster should have sent by `nowMilliseconds` (all of them at its end).
        public func bytesDue(nowMilliseconds: Int64) -> Int {
            let elapsed = min(max(0, nowMilliseconds - startMilliseconds + 1), durationMilliseconds)
            return Int(Double(bitsPerSecond) / 8 * Double(elapsed) / 1000) - bytesSent
        }

        public var totalBytes: Int { Int(Double(bitsPerSecond) / 8 * Double(durationMilliseconds) / 1000) }
    }

    public let configuration: Configuration
    /// The cluster being sent, if any.
    public private(set) var active: Cluster?
    /// Clusters started, and those that proved their rate.
    public private(set) var clustersStarted = 0
    public private(set) var clustersSucceeded = 0
    private var nextId = 1
    /// The last cluster sent and whether its result arrived.
    private var pending: (id: Int, bitsPerSecond: UInt64, endMilliseconds: Int64)?
    private var nextAllowedMilliseconds = Int64.min

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The cluster to send from now: the active one, or a new one when the sender `wants` more
    /// than the `estimate` and nothing speaks against it.
    public mutating func cluster(estimate: UInt64, wanted: UInt64, lastOveruseMilliseconds: Int64?,
                                 nowMilliseconds now: Int64) -> Cluster? {
        if let cluster = active {
            if cluster.bytesSent < cluster.totalBytes, now < cluster.startMilliseconds + cluster.durationMilliseconds + 100 {
                return cluster
            }
            active = nil
        }
        if let pending, now > pending.endMilliseconds + configuration.retryIntervalMilliseconds {
            // Its result never came: give up on it.
            self.pending = nil
        }
        guard pending == nil, now >= nextAllowedMilliseconds, estimate < wanted,
              lastOveruseMilliseconds.map({ now - $0 >= configuration.quietAfterOveruseMilliseconds }) ?? true else { return nil }
        // Up to the factor over the estimate, never far beyond what the sender wants; long enough
        // for the packets a measurement needs.
        let target = max(min(UInt64(Double(estimate) * configuration.rateFactor), wanted + wanted / 5), estimate + 50_000)
        let minimumMilliseconds = Int64(Double(configuration.minimumBytes) * 8 / Double(target) * 1_000) + 1
        let cluster = Cluster(id: nextId, bitsPerSecond: target, startMilliseconds: now,
                              durationMilliseconds: max(configuration.clusterMilliseconds, minimumMilliseconds))
        nextId += 1
        clustersStarted += 1
        active = cluster
        pending = (cluster.id, cluster.bitsPerSecond, now + cluster.durationMilliseconds)
        return cluster
    }

    /// When `cluster` may next have something new to send (ms): the active cluster's next
    /// packet-sized step of its rate, or the first moment a time gate that holds a new cluster
    /// back (the retry wait, a result that never came, the quiet after over-use) opens. Nil
    /// when no gate is closed: a new cluster then waits on the estimate or the sender's wants,
    /// which change only when feedback or media arrive (and those bring a pass of their own).
    public func nextProbeMilliseconds(lastOveruseMilliseconds: Int64?, nowMilliseconds now: Int64) -> Int64? {
        if let cluster = active, cluster.bytesSent < cluster.totalBytes, cluster.bitsPerSecond > 0 {
            // bytesDue > 0 once elapsed (ms, counted from start - 1) exceeds the time the bytes sent took.
            let elapsed = Int64(Double(cluster.bytesSent) * 8_000 / Double(cluster.bitsPerSecond)) + 1
            return cluster.startMilliseconds - 1 + min(elapsed, cluster.durationMilliseconds)
        }
        var earliest: Int64?
        func gate(_ opens: Int64?) {
            if let opens, opens > now { earliest = min(earliest ?? .max, opens) }
        }
        gate(pending.map { $0.endMilliseconds + configuration.retryIntervalMilliseconds + 1 })
        gate(nextAllowedMilliseconds)
        gate(lastOveruseMilliseconds.map { $0 + configuration.quietAfterOveruseMilliseconds })
        return earliest
    }

    /// `bytes` of the active cluster went out.
    public mutating func sent(bytes: Int) {
        active?.bytesSent += bytes
    }

    /// A cluster measured `bitsPerSecond`: a success lets the next one start at once, a failure
    /// waits the retry interval.
    public mutating func measured(_ bitsPerSecond: UInt64, nowMilliseconds now: Int64) {
        guard let pending else { return }
        self.pending = nil
        if Double(bitsPerSecond) >= configuration.successRatio * Double(pending.bitsPerSecond) {
            clustersSucceeded += 1
            nextAllowedMilliseconds = now
        } else {
            nextAllowedMilliseconds = now + configuration.retryIntervalMilliseconds
        }
    }
}
