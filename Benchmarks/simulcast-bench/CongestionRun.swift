import EngineCore
import Foundation

/// Runs one `CongestionCase` on a `SimulatedNetwork` (1 ms steps of simulated time) and samples
/// it every 100 ms: capacity, each flow's estimate and send rate, what the bottleneck delivered
/// (per media flow and to the bulk flow), its queueing delay and loss.
struct CongestionRun {
    struct Sample: Codable {
        var atSeconds: Double
        var capacityKbps: Int
        var estimateKbps: [Int]
        var sendKbps: [Int]
        /// What left the bottleneck over the last second (IPv4 + UDP headers included).
        var deliveredKbps: Int
        var deliveredPerFlowKbps: [Int]
        var queueingMilliseconds: Double
        /// Datagrams the bottleneck dropped over the last second, of those offered.
        var lossFraction: Double
        var activeLayers: [Int]
        /// What the TCP-like bulk flow got through over the last second (nil: the case has none).
        var bulkKbps: Int?
        /// Which media flows were sending.
        var sending: [Bool]
    }

    let testCase: CongestionCase

    func run(progress: (Double) -> Void = { _ in }) throws -> (samples: [Sample], queueingMilliseconds: [Double]) {
        var bottleneck = NetworkImpairment.Configuration(lossProbability: testCase.lossProbability,
                                                         oneWayDelayMicroseconds: testCase.oneWayDelayMilliseconds * 1000, seed: 99)
        bottleneck.capacityBitsPerSecond = testCase.capacity[0].bitsPerSecond
        bottleneck.queueLimitMicroseconds = testCase.queueLimitMilliseconds * 1000
        let network = SimulatedNetwork(bottleneck: bottleneck,
                                       otherPaths: .init(oneWayDelayMicroseconds: testCase.oneWayDelayMilliseconds * 1000))
        let flows = try (0..<testCase.flows).map { index in
            // A round trip of its own: the bottleneck's one-way delay there, the rest on the way back.
            let back = testCase.roundTripMilliseconds.indices.contains(index)
                ? max(0, testCase.roundTripMilliseconds[index] - testCase.oneWayDelayMilliseconds) : nil
            return try CongestionFlow(index: index, width: testCase.width, height: testCase.height, network: network,
                                      returnDelayMilliseconds: back)
        }
        let bulk = testCase.bulkFlowStartSeconds.map { _ in AIMDBulkFlow(network: network) }
        network.bottleneckDestinations = Set(flows.map(\.nodePort.localEndpoint) + (bulk.map { [$0.sinkPort.localEndpoint] } ?? []))
        let start = network.nowMicroseconds
        let end = start + Int64(testCase.seconds * 1_000_000)
        var samples: [Sample] = []
        var window: [(at: Int64, sent: [UInt64], delivered: [UInt64], bulk: UInt64, offered: Int, dropped: Int)] = []
        var nextSample = start + 100_000
        while network.nowMicroseconds < end {
            let seconds = Double(network.nowMicroseconds - start) / 1_000_000
            network.bottleneck.configuration.capacityBitsPerSecond = testCase.capacity(atSeconds: seconds)
            for (index, flow) in flows.enumerated() {
                try flow.step(nowMicroseconds: network.nowMicroseconds, sending: testCase.isSending(flow: index, atSeconds: seconds))
            }
            if let bulk, let start = testCase.bulkFlowStartSeconds, seconds >= start { try bulk.step(nowMicroseconds: network.nowMicroseconds) }
            network.advance(microseconds: 1_000)
            guard network.nowMicroseconds >= nextSample else { continue }
            nextSample += 100_000
            let now = network.nowMicroseconds
            let delivered = flows.map { network.deliveredBytes(to: $0.nodePort.localEndpoint) }
            let point = (at: now, sent: flows.map(\.sentBytes), delivered: delivered,
                         bulk: bulk.map { network.deliveredBytes(to: $0.sinkPort.localEndpoint) } ?? 0, offered: network.bottleneck.statistics.offered, dropped: network.bottleneck.statistics.dropped)
            window.append(point)
            while let first = window.first, now - first.at > 1_000_000 { window.removeFirst() }
            let first = window[0]
            let span = max(Double(now - first.at) / 1_000_000, 0.1)
            func kbps(_ bytes: UInt64, _ before: UInt64) -> Int { Int(Double(bytes - before) * 8 / span / 1000) }
            let deliveredPerFlow = zip(point.delivered, first.delivered).map { kbps($0, $1) }
            let bulkKbps = bulk == nil ? nil : kbps(point.bulk, first.bulk)
            let offered = point.offered - first.offered
            samples.append(Sample(
                atSeconds: (Double(now - start) / 100_000).rounded() / 10,
                capacityKbps: testCase.capacity(atSeconds: seconds) / 1000,
                estimateKbps: flows.map { Int(($0.publisher.estimatedBitsPerSecond ?? 0) / 1000) },
                sendKbps: zip(point.sent, first.sent).map { kbps($0, $1) },
                deliveredKbps: deliveredPerFlow.reduce(0, +) + (bulkKbps ?? 0), deliveredPerFlowKbps: deliveredPerFlow,
                queueingMilliseconds: Double(network.bottleneckQueueingMicroseconds) / 1000,
                lossFraction: offered > 0 ? Double(point.dropped - first.dropped) / Double(offered) : 0,
                activeLayers: flows.map(\.publisher.rembActiveLayerCount), bulkKbps: bulkKbps,
                sending: flows.indices.map { testCase.isSending(flow: $0, atSeconds: seconds) }))
            progress(seconds / testCase.seconds)
        }
        return (samples, network.bottleneckQueueingSamples.map { Double($0) / 1000 })
    }
}
