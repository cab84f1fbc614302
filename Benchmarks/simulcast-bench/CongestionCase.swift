/// One congestion-control test case (after RFC 8867): a bottleneck whose capacity follows a
/// schedule, a one-way delay each way (or a round-trip time per flow), random loss on it, how
/// many media flows share it and when each sends, and an optional TCP-like bulk flow.
struct CongestionCase: Sendable {
    /// Which acceptance checks the case is judged by (`CongestionReport`).
    enum Criteria: Sendable {
        /// Issue 14's single-flow checks (85 % within 5 s, p95 queueing ≤ 100 ms, loss ≤ 2 %).
        case singleFlowBasic
        /// Issue 31's for §5.1: 85 % within 3 s of every step, ≥ 85 % on average, p95 ≤ 50 ms.
        case singleFlowStrict
        /// Two flows: each step 85 % within 5 s, the flows within 20 % of each other after 30 s.
        case twoFlows
        /// Random loss on an uncongested link: at least 80 % of it used.
        case randomLoss
        /// Random loss on a congested link: still backs off (p95 queueing ≤ 100 ms).
        case congestedRandomLoss
        /// Several flows: fair (Jain's index), the link used, p95 queueing ≤ 100 ms.
        case sharing(jainAtLeast: Double)
        /// A media flow beside a TCP-like flow: neither starves.
        case competingBulk
        /// §5.8: a paused flow, once resumed, gets back its share.
        case pauseAndResume(flow: Int, atSeconds: Double)
    }

    var name: String
    var summary: String
    var seconds: Double
    /// Capacity from each time on (seconds, bits per second), the first at 0.
    var capacity: [(atSeconds: Double, bitsPerSecond: Int)]
    var flows: Int
    var oneWayDelayMilliseconds: Int64 = 50
    /// Per flow, its round-trip time (the bottleneck's one-way delay there, the rest on its way
    /// back); empty: twice `oneWayDelayMilliseconds` for every flow.
    var roundTripMilliseconds: [Int64] = []
    var queueLimitMilliseconds: Int64 = 300
    var lossProbability = 0.0
    /// When each media flow starts (empty: all at 0) and when one stops sending for a while.
    var startSeconds: [Double] = []
    var pauses: [(flow: Int, fromSeconds: Double, toSeconds: Double)] = []
    /// When a long TCP-like AIMD flow (`AIMDBulkFlow`) starts on the same bottleneck; nil: none.
    var bulkFlowStartSeconds: Double?
    var criteria: Criteria = .singleFlowBasic
    /// The camera each flow publishes.
    var width = 1280, height = 720

    func capacity(atSeconds seconds: Double) -> Int {
        capacity.last { $0.atSeconds <= seconds }?.bitsPerSecond ?? capacity[0].bitsPerSecond
    }

    /// Whether media flow `flow` sends at `seconds`.
    func isSending(flow: Int, atSeconds seconds: Double) -> Bool {
        let start = startSeconds.indices.contains(flow) ? startSeconds[flow] : 0
        return seconds >= start && !pauses.contains { $0.flow == flow && seconds >= $0.fromSeconds && seconds < $0.toSeconds }
    }

    /// The time from which every media flow sends.
    var allStartedSeconds: Double { startSeconds.max() ?? 0 }

    /// RFC 8867 §5.1: one flow, the capacity steps 1 → 2.5 → 0.6 → 1 Mbps at 0/40/60/80 s of 100,
    /// 50 ms one-way.
    static let variableCapacity = CongestionCase(
        name: "5.1", summary: "RFC 8867 §5.1: one flow, capacity 1 → 2.5 → 0.6 → 1 Mbps at 0/40/60/80 s, 50 ms one way",
        seconds: 100, capacity: [(0, 1_000_000), (40, 2_500_000), (60, 600_000), (80, 1_000_000)], flows: 1,
        criteria: .singleFlowStrict)

    /// RFC 8867 §5.2's shape: two flows starting together share one bottleneck whose capacity
    /// steps (4 → 2.5 → 3.5 Mbps at 0/35/70 s of 100), 50 ms one-way.
    static let twoFlows = CongestionCase(
        name: "5.2", summary: "two flows share one bottleneck, capacity 4 → 2.5 → 3.5 Mbps at 0/35/70 s, 50 ms one way",
        seconds: 100, capacity: [(0, 4_000_000), (35, 2_500_000), (70, 3_500_000)], flows: 2, criteria: .twoFlows)

    /// RFC 8867 §5.4: three flows with the same congestion control join one 3.5 Mbps bottleneck
    /// at 0, 10 and 20 s (80 s, 50 ms one way; the RFC's times shortened to keep the run short).
    static let threeFlows = CongestionCase(
        name: "5.4", summary: "RFC 8867 §5.4: three flows join a 3.5 Mbps bottleneck at 0/10/20 s, 50 ms one way",
        seconds: 80, capacity: [(0, 3_500_000)], flows: 3, startSeconds: [0, 10, 20], criteria: .sharing(jainAtLeast: 0.9))

    /// RFC 8867 §5.5: five flows with round-trip times of 10, 25, 50, 100 and 150 ms join one
    /// 4 Mbps bottleneck 5 s apart (80 s).
    static let roundTripFairness = CongestionCase(
        name: "5.5", summary: "RFC 8867 §5.5: five flows, RTT 10/25/50/100/150 ms, join a 4 Mbps bottleneck at 0/5/10/15/20 s",
        seconds: 80, capacity: [(0, 4_000_000)], flows: 5, oneWayDelayMilliseconds: 5, roundTripMilliseconds: [10, 25, 50, 100, 150],
        startSeconds: [0, 5, 10, 15, 20], criteria: .sharing(jainAtLeast: 0.8))

    /// RFC 8867 §5.6: one media flow and a long TCP-like AIMD flow (from 5 s) share 2 Mbps (60 s,
    /// 50 ms one way).
    static let competingTCP = CongestionCase(
        name: "5.6", summary: "RFC 8867 §5.6: one media flow and a long TCP-like AIMD flow (from 5 s) share 2 Mbps, 50 ms one way",
        seconds: 60, capacity: [(0, 2_000_000)], flows: 1, bulkFlowStartSeconds: 5, criteria: .competingBulk)

    /// RFC 8867 §5.8: three flows share 3.5 Mbps; flow 2 pauses from 25 to 40 s (60 s, 50 ms one way).
    static let pauseAndResume = CongestionCase(
        name: "5.8", summary: "RFC 8867 §5.8: three flows share 3.5 Mbps, flow 2 pauses 25-40 s, 50 ms one way",
        seconds: 60, capacity: [(0, 3_500_000)], flows: 3, pauses: [(1, 25, 40)], criteria: .pauseAndResume(flow: 1, atSeconds: 40))

    /// A steady 2 Mbps link that drops 5 % of datagrams at random.
    static let randomLoss = CongestionCase(
        name: "loss5", summary: "one flow, 2 Mbps with 5 % random loss, 50 ms one way",
        seconds: 60, capacity: [(0, 2_000_000)], flows: 1, lossProbability: 0.05, criteria: .randomLoss)

    /// A congested 1 Mbps link (the camera wants more) that also drops 15 % at random.
    static let congestedRandomLoss = CongestionCase(
        name: "loss15", summary: "one flow, 1 Mbps (less than the camera wants) with 15 % random loss, 50 ms one way",
        seconds: 40, capacity: [(0, 1_000_000)], flows: 1, lossProbability: 0.15, criteria: .congestedRandomLoss)

    /// What `make test` runs: 20 s, §5.1's start (1 Mbps) and a drop to 0.6 Mbps at 10 s.
    static let smoke = CongestionCase(
        name: "smoke", summary: "20 s: 1 → 0.6 Mbps at 0/10 s, 50 ms one way",
        seconds: 20, capacity: [(0, 1_000_000), (10, 600_000)], flows: 1)

    static let all = [variableCapacity, twoFlows, threeFlows, roundTripFairness, competingTCP, pauseAndResume,
                      randomLoss, congestedRandomLoss]
}
