import RTPWire
import Testing
@testable import SessionCore

/// A simulated 20 ms Opus sender over a network (delay per packet from `delay`, loss from `lost`)
/// and a listener that pulls one step every 20 ms (7 ms out of phase with the sender): what the
/// buffer did, step by step.
private struct PlayoutRun {
    var buffer: AudioJitterBuffer
    var steps: [AudioJitterBuffer.Step] = []
    /// The payload's first byte of each decoded step (the packet's index modulo 256).
    var decoded: [UInt8] = []
    /// The buffer's counters after each step.
    var history: [AudioJitterBufferStatistics] = []

    init(configuration: AudioJitterBuffer.Configuration = .init()) {
        buffer = AudioJitterBuffer(configuration: configuration)
    }

    /// Sends `packets` packets (index i at i × 20 ms; sequence numbers from `firstSequence`) and
    /// pulls until `seconds` have passed.
    mutating func run(packets: Int, seconds: Double, firstSequence: UInt16 = 1_000, firstTimestamp: UInt32 = 77,
                      delay: (Int) -> Int64, lost: (Int) -> Bool = { _ in false }, sent: (Int) -> Bool = { _ in true }) {
        var arrivals: [(at: Int64, index: Int)] = []
        for index in 0..<packets where !lost(index) && sent(index) {
            arrivals.append((Int64(index) * 20_000 + delay(index), index))
        }
        arrivals.sort { $0.at < $1.at }
        var next = 0
        var pull: Int64 = 7_000
        let end = Int64(seconds * 1_000_000)
        // Until `seconds`, or until the last packet has been played.
        while pull <= end, next < arrivals.count || buffer.bufferedPacketCount > 0 {
            while next < arrivals.count, arrivals[next].at <= pull {
                let index = arrivals[next].index
                buffer.insert(sequenceNumber: firstSequence &+ UInt16(truncatingIfNeeded: index),
                              timestamp: firstTimestamp &+ UInt32(truncatingIfNeeded: index * 960),
                              payload: [UInt8(truncatingIfNeeded: index), 0xAB][...], arrivalMicroseconds: arrivals[next].at)
                next += 1
            }
            let step = buffer.nextStep(nowMicroseconds: pull)
            steps.append(step)
            history.append(buffer.statistics)
            if case let .decode(payload) = step { decoded.append(payload.first ?? 0) }
            pull += 20_000
        }
    }
}

@Suite struct AudioJitterBufferTests {
    @Test func aSteadyNetworkIsPlayedWholeAfterOneStep() {
        var run = PlayoutRun()
        run.run(packets: 250, seconds: 5.2, delay: { _ in 5_000 })
        let statistics = run.buffer.statistics
        #expect(statistics.decodedSteps == 250)
        #expect(statistics.concealedSteps == 0 && statistics.packetsLost == 0 && statistics.latePackets == 0)
        #expect(run.buffer.targetDelayMilliseconds == 20)
        #expect(statistics.averageBufferDelayMilliseconds <= 22)
        #expect(run.decoded == (0..<250).map { UInt8(truncatingIfNeeded: $0) })
    }

    @Test func theTargetGrowsWithJitterSoThatLittleIsConcealed() {
        var random = SplitMix64(seed: 11)
        let delays = (0..<1_000).map { _ in Int64.random(in: 10_000...70_000, using: &random) }
        var run = PlayoutRun()
        run.run(packets: 1_000, seconds: 20.5, delay: { delays[$0] })
        let statistics = run.buffer.statistics
        // 60 ms of jitter: the target covers it (and is no longer than it needs).
        #expect((60...100).contains(run.buffer.targetDelayMilliseconds), "target \(run.buffer.targetDelayMilliseconds) ms")
        #expect(statistics.concealedShare < 0.02, "concealed \(statistics.concealedSteps) of \(statistics.steps)")
        #expect(statistics.decodedSteps + statistics.droppedSteps >= 970)
        #expect(statistics.averageBufferDelayMilliseconds < 120)
    }

    @Test func aSingleLostPacketIsRebuiltFromTheNextOnesFEC() {
        var run = PlayoutRun()
        run.run(packets: 200, seconds: 4.2, delay: { _ in 5_000 }, lost: { $0 % 25 == 12 })
        let statistics = run.buffer.statistics
        #expect(statistics.packetsLost == 8 && statistics.recoveredSteps == 8 && statistics.concealedSteps == 0)
        #expect(run.steps.contains(.decodeFEC([13, 0xAB][...])))
        #expect(statistics.decodedSteps == 192)
    }

    @Test func aBurstIsConcealedExceptItsLastPacketWhichTheFECRebuilds() {
        var run = PlayoutRun()
        run.run(packets: 100, seconds: 2.2, delay: { _ in 5_000 }, lost: { (40...42).contains($0) })
        let statistics = run.buffer.statistics
        // At 40's turn nothing later has come: the buffer stretches (conceals in place) until 43
        // shows 40–42 lost; then 40 and 41 are concealed and 42 rebuilt from 43's FEC.
        #expect(statistics.packetsLost == 3 && statistics.recoveredSteps == 1)
        #expect(statistics.underruns == 1 && statistics.concealedSteps == 4)
        #expect(run.decoded == (0..<100).filter { !(40...42).contains($0) }.map { UInt8($0) })
    }

    @Test func reorderedPacketsAreAllPlayedInOrder() {
        var run = PlayoutRun()
        // Every odd packet overtakes the even one before it by 10 ms.
        run.run(packets: 200, seconds: 4.4, delay: { $0 % 2 == 0 ? 30_000 : 0 })
        #expect(run.buffer.statistics.packetsLost == 0 && run.buffer.statistics.concealedSteps == 0)
        #expect(run.decoded == (0..<200).map { UInt8(truncatingIfNeeded: $0) })
    }

    @Test func sequenceNumbersAndTimestampsWrapSeamlessly() {
        var run = PlayoutRun()
        run.run(packets: 300, seconds: 6.2, firstSequence: 65_400, firstTimestamp: UInt32.max - 100_000, delay: { _ in 3_000 })
        #expect(run.buffer.statistics.decodedSteps == 300 && run.buffer.statistics.concealedSteps == 0)
    }

    @Test func aSenderThatStopsIsSilenceNotEndlessConcealmentAndPlayoutRestarts() {
        var run = PlayoutRun()
        run.run(packets: 300, seconds: 6.2, delay: { _ in 5_000 }, sent: { !(100..<200).contains($0) })
        let statistics = run.buffer.statistics
        #expect(statistics.starts == 2)
        #expect(statistics.concealedSteps <= run.buffer.configuration.maximumExpandSteps)
        #expect(statistics.silentSteps >= 85)
        #expect(statistics.decodedSteps == 200 && statistics.latePackets == 0)
    }

    @Test func aDelaySpikeThatPassesIsDrainedByDroppingSteps() {
        var run = PlayoutRun()
        // 300 ms of extra delay for a second, then back to 5 ms: a bunch arrives together.
        run.run(packets: 400, seconds: 8.2, delay: { (50..<100).contains($0) ? 300_000 : 5_000 })
        let statistics = run.buffer.statistics
        #expect(statistics.droppedSteps > 0)
        let decodedLate = run.steps.suffix(50).filter { if case .decode = $0 { return true } else { return false } }.count
        #expect(decodedLate == 50)
        // Once drained, a packet waits about one step again (not the spike's 300 ms).
        let (early, last) = (run.history[run.history.count - 51], run.history[run.history.count - 1])
        let recentDelay = Double(last.totalBufferDelayMicroseconds - early.totalBufferDelayMicroseconds)
            / Double(last.decodedSteps - early.decodedSteps) / 1_000
        #expect(recentDelay < 70, "recent buffer delay \(recentDelay) ms")
    }

    @Test func duplicatesLateAndOversizedPacketsAreCountedNotKept() {
        var buffer = AudioJitterBuffer()
        #expect(buffer.insert(sequenceNumber: 5, timestamp: 0, payload: [1][...], arrivalMicroseconds: 0) == .buffered)
        #expect(buffer.insert(sequenceNumber: 5, timestamp: 0, payload: [1][...], arrivalMicroseconds: 1) == .duplicate)
        #expect(buffer.insert(sequenceNumber: 6, timestamp: 960, payload: Array(repeating: 0, count: 1_501)[...],
                              arrivalMicroseconds: 2) == .tooLarge)
        #expect(buffer.nextStep(nowMicroseconds: 30_000) == .decode([1][...]))
        #expect(buffer.insert(sequenceNumber: 4, timestamp: 0, payload: [9][...], arrivalMicroseconds: 40_000) == .late)
        #expect(buffer.statistics.duplicatePackets == 1 && buffer.statistics.packetsRefused == 1 && buffer.statistics.latePackets == 1)
    }

    @Test func anyHeaderValuesInAnyOrderNeverTrap() {
        var random = SplitMix64(seed: 3)
        var buffer = AudioJitterBuffer(configuration: .init(capacity: 8))
        var now: Int64 = 0
        for _ in 0..<5_000 {
            now += Int64.random(in: -5_000...30_000, using: &random)
            if Bool.random(using: &random) {
                buffer.insert(sequenceNumber: UInt16.random(in: 0...UInt16.max, using: &random),
                              timestamp: UInt32.random(in: 0...UInt32.max, using: &random),
                              payload: [UInt8(7)][...], arrivalMicroseconds: now)
            } else {
                _ = buffer.nextStep(nowMicroseconds: now)
            }
        }
        #expect(buffer.statistics.steps > 0)
    }
}
