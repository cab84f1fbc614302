/// What a probe cluster measured (the bandwidth-probing step of GCC as libwebrtc runs it): the
/// padding packets of one cluster, sent at a known rate, and when they arrived. The link carries
/// at least the lower of the rate they were sent at and the rate they arrived at (a bottleneck
/// spreads them out). Feed every acknowledged result of a feedback report (`add`), then ask
/// what was `measured`: a cluster counts once, after the first report that acknowledged enough
/// of its packets; clusters whose timing cannot be trusted (too few packets, no spread) give
/// nothing.
public struct ProbeBitrateEstimator: Sendable {
    /// Packets of a cluster that must arrive before it counts.
    public static let minimumPackets = 5
    /// Clusters followed at once (older ones are forgotten).
    static let clusterLimit = 4

    private struct Cluster {
        var id: Int
        var packets = 0
        var bytes = 0
        var firstSend = Int64.max, lastSend = Int64.min
        var firstArrival = Int64.max, lastArrival = Int64.min
        /// Bytes of the packet that arrived first / was sent last (left out of the rates:
        /// n packets span n − 1 intervals).
        var firstArrivalBytes = 0, lastSendBytes = 0
        var reported = false
    }

    private var clusters: [Cluster] = []
    /// Clusters measured so far.
    public private(set) var results = 0

    public init() {}

    /// Takes one acknowledged packet (media results are ignored).
    public mutating func add(_ result: PacketResult) {
        guard let id = result.probeCluster, let arrival = result.arrivalMicroseconds else { return }
        let index: Int
        if let found = clusters.firstIndex(where: { $0.id == id }) {
            index = found
        } else {
            if clusters.count >= Self.clusterLimit { clusters.removeFirst() }
            clusters.append(Cluster(id: id))
            index = clusters.count - 1
        }
        clusters[index].packets += 1
        clusters[index].bytes += result.bytes
        clusters[index].firstSend = min(clusters[index].firstSend, result.sendMicroseconds)
        if result.sendMicroseconds >= clusters[index].lastSend {
            clusters[index].lastSend = result.sendMicroseconds
            clusters[index].lastSendBytes = result.bytes
        }
        if arrival < clusters[index].firstArrival {
            clusters[index].firstArrival = arrival
            clusters[index].firstArrivalBytes = result.bytes
        }
        clusters[index].lastArrival = max(clusters[index].lastArrival, arrival)
    }

    /// The highest rate (bits per second) of the clusters that have just become measurable,
    /// each counted once; nil if none.
    public mutating func measured() -> UInt64? {
        var best: UInt64?
        for index in clusters.indices where !clusters[index].reported && clusters[index].packets >= Self.minimumPackets {
            let cluster = clusters[index]
            let sendSpan = cluster.lastSend - cluster.firstSend, arrivalSpan = cluster.lastArrival - cluster.firstArrival
            // Under a millisecond of spread either way says nothing about a rate.
            guard sendSpan >= 1_000, arrivalSpan >= 1_000 else { continue }
            clusters[index].reported = true
            results += 1
            let sendRate = Double(cluster.bytes - cluster.lastSendBytes) * 8 / (Double(sendSpan) / 1_000_000)
            let arrivalRate = Double(cluster.bytes - cluster.firstArrivalBytes) * 8 / (Double(arrivalSpan) / 1_000_000)
            let rate = UInt64(min(sendRate, arrivalRate))
            best = max(best ?? 0, rate)
        }
        return best
    }
}
