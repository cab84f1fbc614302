/// One congestion-control test case (after RFC 8867): a bottleneck whose capacity follows a
/// schedule, a one-way delay each way, random loss on it, and how many flows share it.
struct CongestionCase: Sendable {
    var name: String
    var summary: String
    var seconds: Double
    /// Capacity from each time on (seconds, bits per second), the first at 0.
    var capacity: [(atSeconds: Double, bitsPerSecond: Int)]
    var flows: Int
    var oneWayDelayMilliseconds: Int64 = 50
    var queueLimitMilliseconds: Int64 = 300
    var lossProbability = 0.0
    /// The camera each flow publishes.
    var width = 1280, height = 720

    func capacity(atSeconds seconds: Double) -> Int {
        capacity.last { $0.atSeconds <= seconds }?.bitsPerSecond ?? capacity[0].bitsPerSecond
    }

    /// RFC 8867 §5.1: one flow, the capacity steps 1 → 2.5 → 0.6 → 1 Mbps at 0/40/60/80 s of 100,
    /// 50 ms one-way.
    static let variableCapacity = CongestionCase(
        name: "5.1", summary: "RFC 8867 §5.1: one flow, capacity 1 → 2.5 → 0.6 → 1 Mbps at 0/40/60/80 s, 50 ms one way",
        seconds: 100, capacity: [(0, 1_000_000), (40, 2_500_000), (60, 600_000), (80, 1_000_000)], flows: 1)

    /// RFC 8867 §5.2's shape: two flows starting together share one bottleneck whose capacity
    /// steps (4 → 2.5 → 3.5 Mbps at 0/35/70 s of 100), 50 ms one-way.
    static let twoFlows = CongestionCase(
        name: "5.2", summary: "two flows share one bottleneck, capacity 4 → 2.5 → 3.5 Mbps at 0/35/70 s, 50 ms one way",
        seconds: 100, capacity: [(0, 4_000_000), (35, 2_500_000), (70, 3_500_000)], flows: 2)

    /// A steady 2 Mbps link that drops 5 % of datagrams at random.
    static let randomLoss = CongestionCase(
        name: "loss5", summary: "one flow, 2 Mbps with 5 % random loss, 50 ms one way",
        seconds: 60, capacity: [(0, 2_000_000)], flows: 1, lossProbability: 0.05)

    /// What `make test` runs: 20 s, §5.1's start (1 Mbps) and a drop to 0.6 Mbps at 10 s.
    static let smoke = CongestionCase(
        name: "smoke", summary: "20 s: 1 → 0.6 Mbps at 0/10 s, 50 ms one way",
        seconds: 20, capacity: [(0, 1_000_000), (10, 600_000)], flows: 1)

    static let all = [variableCapacity, twoFlows, randomLoss]
}
