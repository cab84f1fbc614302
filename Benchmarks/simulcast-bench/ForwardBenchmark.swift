import AllocationCounter
import CommandLineSupport
import Foundation
import EngineCore

let forwardUsage = """
usage: simulcast-bench forward [--subscribers 1,8,64] [--frames N] [--size WxH] [--rounds R] [--latency-seconds S] [--json PATH] [--quick]
  One publisher (a real SimulcastEncoder + Opus stream, N frames recorded once, default 60 = 2 s)
  replayed as SRTP through ForwardingNode.handle(datagram:from:) to each number of subscribers
  (real UDP sockets on 127.0.0.1, SRTP each). Subscriber i prefers high, medium, low for i % 3.
  R timed rounds (default 10) after warm-up; a round replays the whole recording.
  --quick: --frames 24 --rounds 2 --latency-seconds 1 (the `make test` smoke, a few seconds in a debug build).
  Then the forward latency through the engine's real loop (RoomForwardLatency): a hosted room, a
  640x360 camera played into it and subscribed to, S s (default 5; 0 skips) timed at the node from
  each datagram's kernel arrival stamp to each forwarded sendto: median and p99.
"""

/// `simulcast-bench forward`: thread CPU ns and heap allocations per forwarded packet on the
/// node's full path (SRTP unprotect, `TrackForwarder` selection, `StreamRewriter` rewrite, SRTP
/// protect per subscriber, `sendto` on loopback), in steady state: after every subscriber has
/// switched onto its layer and one more round. Timed windows hold only `node.handle` calls;
/// building a round (renumbering, the publisher's SRTP protect) and draining the subscribers'
/// sockets happen between windows. Allocations are reported over libsrtp's own (`LibSRTPBaseline`:
/// one unprotect per incoming packet and one protect per forwarded packet).
struct ForwardBenchmark {
    var recording: ForwardRecording
    var rounds: Int
    var baseline: LibSRTPBaseline

    /// One subscriber count's measurement.
    struct Result {
        var subscribers: Int
        var subscribersPerLayer: [Int]
        var warmUpRounds: Int
        var rounds: Int
        var incomingPackets: Int
        var forwardedVideoPackets: Int
        var forwardedAudioPackets: Int
        var forwardedPackets: Int { forwardedVideoPackets + forwardedAudioPackets }
        var cpuNanoseconds: Int64
        /// One sample per timed round.
        var nsPerForwardedPacket: Distribution
        var allocations: Int64
        var allocatedBytes: Int64
        var keyFrameRequestsSent: Int
        var sendFailures: Int
        var received: Int
        var receivedUnprotectFailures: Int
        var serviceCalls: Int
        var serviceAllocations: Int64
        var serviceNanoseconds: Int64
        /// One protect and one loopback send of the same packets, measured right after the node.
        var floor = ForwardFloor(protectNanoseconds: 0, unprotectNanoseconds: 0, sendNanoseconds: 0, packets: 0)
    }

    func measure(subscribers count: Int) throws -> Result {
        let publisherKeys = try ForwardScene.keys(seed: 250)
        let scene = try ForwardScene(recording: recording, publisherKeys: publisherKeys, subscribers: count)
        var round = try ForwardRound(recording: recording, keys: publisherKeys)
        var next = 0
        func untimedRound() throws {
            try round.prepare(next, of: recording)
            next += 1
            scene.replay(round)
            try scene.drain()
            scene.node.service()
            try scene.drain()
        }
        // Warm-up: until every subscriber forwards its target layer, then one more round.
        repeat { try untimedRound() } while !scene.everySubscriberSwitched && next < 10
        guard scene.everySubscriberSwitched else {
            throw ValidationError(message: "\(count) subscriber(s) not all switched onto their layer after \(next) rounds")
        }
        try untimedRound()
        let warmUpRounds = next

        var result = Result(subscribers: count, subscribersPerLayer: scene.subscribersPerLayer, warmUpRounds: warmUpRounds,
                            rounds: rounds, incomingPackets: 0, forwardedVideoPackets: 0, forwardedAudioPackets: 0,
                            cpuNanoseconds: 0, nsPerForwardedPacket: Distribution([]), allocations: 0, allocatedBytes: 0,
                            keyFrameRequestsSent: 0, sendFailures: 0, received: 0, receivedUnprotectFailures: 0,
                            serviceCalls: 0, serviceAllocations: 0, serviceNanoseconds: 0)
        let countersBefore = scene.node.counters
        let receivedBefore = scene.received
        var samples: [Double] = []
        for _ in 0..<rounds {
            try round.prepare(next, of: recording)
            next += 1
            let before = scene.forwardedPackets
            alloc_counter_reset()
            let start = threadCPUNanoseconds()
            scene.replay(round)
            let cpu = threadCPUNanoseconds() - start
            result.allocations += alloc_counter_get()
            result.allocatedBytes += alloc_counter_bytes()
            let after = scene.forwardedPackets
            let forwarded = (after.video - before.video) + (after.audio - before.audio)
            result.forwardedVideoPackets += after.video - before.video
            result.forwardedAudioPackets += after.audio - before.audio
            result.incomingPackets += round.count
            result.cpuNanoseconds += cpu
            samples.append(Double(cpu) / Double(max(1, forwarded)))
            try scene.drain()

            alloc_counter_reset()
            let serviceStart = threadCPUNanoseconds()
            scene.node.service()
            result.serviceNanoseconds += threadCPUNanoseconds() - serviceStart
            result.serviceAllocations += alloc_counter_get()
            result.serviceCalls += 1
            try scene.drain()
        }
        result.nsPerForwardedPacket = Distribution(samples)
        result.keyFrameRequestsSent = scene.node.counters.keyFrameRequestsSent - countersBefore.keyFrameRequestsSent
        result.sendFailures = scene.node.counters.sendFailures - countersBefore.sendFailures
        result.received = scene.received - receivedBefore
        result.receivedUnprotectFailures = scene.receivedUnprotectFailures
        let layers = scene.ids.map { id in (try? scene.node.forwarder.stats(for: id))?.current?.spatial }
        result.floor = try ForwardFloor.measure(recording: recording, publisherKeys: publisherKeys,
                                                layers: layers, keys: try ForwardScene.keys(seed: 1))
        return result
    }
}

extension ForwardBenchmark.Result {
    /// libsrtp's own allocations in the timed windows: one unprotect per incoming packet, one
    /// protect per forwarded packet (and per key-frame request sent, an SRTCP protect).
    func libSRTPAllocations(_ baseline: LibSRTPBaseline) -> Double {
        Double(incomingPackets) * baseline.allocationsPerUnprotect
            + Double(forwardedPackets + keyFrameRequestsSent) * baseline.allocationsPerProtect
    }

    var allocationsPerForwardedPacket: Double { Double(allocations) / Double(max(1, forwardedPackets)) }

    func libSRTPAllocationsPerForwardedPacket(_ baseline: LibSRTPBaseline) -> Double {
        libSRTPAllocations(baseline) / Double(max(1, forwardedPackets))
    }

    func allocationsPerForwardedPacketOverBaseline(_ baseline: LibSRTPBaseline) -> Double {
        (Double(allocations) - libSRTPAllocations(baseline)) / Double(max(1, forwardedPackets))
    }

    var cpuNsPerForwardedPacket: Double { Double(cpuNanoseconds) / Double(max(1, forwardedPackets)) }

    /// The SRTP work behind one forwarded packet: its protect, and its share of the incoming
    /// datagrams' unprotects (every incoming datagram is unprotected once, whoever takes it).
    var srtpNsPerForwardedPacket: Double {
        floor.protectNanoseconds + floor.unprotectNanoseconds * Double(incomingPackets) / Double(max(1, forwardedPackets))
    }

    /// What the node spends per forwarded packet beyond its SRTP work, in % of one protect
    /// (issue 15: at most 30 % with 8 subscribers).
    var nonSRTPOverheadPercent: Double {
        (nsPerForwardedPacket.median - srtpNsPerForwardedPacket) / max(1, floor.protectNanoseconds) * 100
    }

    /// The same without the kernel's loopback send as well (what the node's own code costs).
    var overheadExcludingSendPercent: Double {
        (nsPerForwardedPacket.median - srtpNsPerForwardedPacket - floor.sendNanoseconds) / max(1, floor.protectNanoseconds) * 100
    }
    var cpuNsPerIncomingPacket: Double { Double(cpuNanoseconds) / Double(max(1, incomingPackets)) }
}

func runForward(_ arguments: ArraySlice<String>) throws {
    let options = try CommandLineArguments(arguments, valueOptions: ["subscribers", "frames", "size", "rounds", "latency-seconds", "json"],
                                           flagOptions: ["quick"])
    let quick = options.flag("quick")
    let counts = try (options.string("subscribers") ?? "1,8,64").split(separator: ",").map { text -> Int in
        guard let value = Int(text), (1...1024).contains(value) else {
            throw ValidationError(message: "--subscribers \(text): expected counts 1...1024, comma-separated")
        }
        return value
    }
    let frames = try options.int("frames", default: quick ? 24 : 60, range: 12...3000)
    let rounds = try options.int("rounds", default: quick ? 2 : 10, range: 1...10_000)
    let size = try options.size("size", default: (1280, 720))

    let selfCheck = allocationCounterSelfCheck(count: 64)
    guard selfCheck >= 1 else { throw ValidationError(message: "allocation counter is not counting") }
    let baseline = try LibSRTPBaseline.measure()
    let recording = try ForwardRecording(width: size.width, height: size.height, frames: frames)
    let benchmark = ForwardBenchmark(recording: recording, rounds: rounds, baseline: baseline)
    var results: [ForwardBenchmark.Result] = []
    for count in counts { results.append(try benchmark.measure(subscribers: count)) }

    let latencySeconds = try options.int("latency-seconds", default: quick ? 1 : 5, range: 0...600)
    let latency = latencySeconds == 0 ? nil
        : try RoomForwardLatency(warmUpSeconds: quick ? 1 : 2, seconds: Double(latencySeconds)).measure()
    let report = ForwardReport(recording: recording, baseline: baseline, selfCheck: selfCheck, results: results, latency: latency)
    print(report.table())
    if let path = options.string("json") {
        try write(Data((report.json().serialized() + "\n").utf8), to: path)
    }
}
