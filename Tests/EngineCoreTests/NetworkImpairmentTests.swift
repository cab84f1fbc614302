import RTPWire
import Testing
@testable import EngineCore
import SessionCore

@Suite struct NetworkImpairmentTests {
    private func released(_ impairment: inout NetworkImpairment, at now: Int64) -> [[UInt8]] {
        var out: [[UInt8]] = []
        impairment.releaseDue(nowMicroseconds: now) { out.append($0) }
        return out
    }

    @Test func fixedDelayReleasesExactlyWhenDueInOfferOrder() {
        var impairment = NetworkImpairment(configuration: .init(oneWayDelayMicroseconds: 30_000))
        impairment.offer([1], nowMicroseconds: 0)
        impairment.offer([2], nowMicroseconds: 0)
        impairment.offer([3], nowMicroseconds: 10_000)
        #expect(impairment.nextDueMicroseconds == 30_000)
        #expect(released(&impairment, at: 29_999).isEmpty)
        #expect(released(&impairment, at: 30_000) == [[1], [2]])
        #expect(released(&impairment, at: 39_999).isEmpty)
        #expect(released(&impairment, at: 40_000) == [[3]])
        #expect(impairment.nextDueMicroseconds == nil)
        #expect(impairment.statistics.released == 3 && impairment.statistics.maximumQueued == 3)
    }

    @Test func reorderedDatagramsAreOvertaken() {
        var impairment = NetworkImpairment(configuration: .init(oneWayDelayMicroseconds: 1_000, reorderProbability: 0.3,
                                                                reorderDelayMicroseconds: 5_000, seed: 7))
        for index in 0..<200 { impairment.offer([UInt8(index)], nowMicroseconds: Int64(index) * 1_000) }
        let out = released(&impairment, at: 1_000_000).map { Int($0[0]) }
        #expect(out.count == 200)
        #expect(Set(out) == Set(0..<200))
        #expect(out != out.sorted())
        #expect(impairment.statistics.reordered > 30 && impairment.statistics.reordered < 90)
    }

    @Test func lossIsSeededAndReproducible() {
        func drops(seed: UInt64) -> [Bool] {
            var impairment = NetworkImpairment(configuration: .init(lossProbability: 0.2, seed: seed))
            return (0..<500).map { _ in !impairment.offer([0], nowMicroseconds: 0) }
        }
        #expect(drops(seed: 1) == drops(seed: 1))
        #expect(drops(seed: 1) != drops(seed: 2))
        let rate = Double(drops(seed: 3).filter { $0 }.count) / 500
        #expect(rate > 0.14 && rate < 0.26)
    }

    @Test(arguments: [0.01, 0.03, 0.15, 0.5, 0.97])
    func spreadLossHoldsTheRateAtEveryPrefix(probability: Double) {
        var impairment = NetworkImpairment(configuration: .init(lossProbability: probability, lossModel: .spread, seed: 11))
        var dropped = 0
        var positions: [Int] = []
        for index in 1...5_000 {
            if !impairment.offer([0], nowMicroseconds: 0) {
                dropped += 1
                positions.append(index)
            }
            #expect(abs(Double(dropped) - probability * Double(index)) <= 2)
        }
        // Positions are not a fixed stride: the gaps between drops vary.
        let gaps = Set(zip(positions.dropFirst(), positions).map { $0 - $1 })
        if probability < 0.9 { #expect(gaps.count > 1) }
    }

    @Test func extremeConfigurationsAreClampedAndNeverTrap() {
        let odd = NetworkImpairment.Configuration(lossProbability: .nan, oneWayDelayMicroseconds: -5,
                                                  reorderProbability: 7, reorderDelayMicroseconds: .min)
        #expect(odd.lossProbability == 0 && odd.oneWayDelayMicroseconds == 0)
        #expect(odd.reorderProbability == 1 && odd.reorderDelayMicroseconds == 0)
        var far = NetworkImpairment(configuration: .init(oneWayDelayMicroseconds: .max))
        far.offer([1, 2, 3], nowMicroseconds: .max - 1)  // saturates, no overflow trap
        #expect(far.nextDueMicroseconds == .max)
        var all = NetworkImpairment(configuration: .init(lossProbability: 1))
        let kept = all.offer([], nowMicroseconds: 0)
        #expect(!kept)
        #expect(all.statistics.realisedLoss == 1)
    }

    @Test func relayDelaysBothDirectionsAndLearnsTheSender() throws {
        var now: Int64 = 0
        let receiver = try UDPSocket(), sender = try UDPSocket()
        let relay = try NetworkImpairmentRelay(receiver: receiver.localEndpoint,
                                               symmetric: .init(oneWayDelayMicroseconds: 10_000), clock: MediaClock { now })
        var buffer = [UInt8](repeating: 0, count: 64)
        func read(_ socket: UDPSocket) throws -> (bytes: [UInt8], from: NetworkEndpoint)? {
            try buffer.withUnsafeMutableBytes { try socket.receive(into: $0, timeoutMilliseconds: 0) }
                .map { (Array(buffer[0..<$0.count]), $0.from) }
        }
        try sender.send([0x80, 1], to: relay.senderFacingEndpoint)
        try relay.service()
        #expect(try read(receiver) == nil)
        #expect(relay.senderEndpoint == sender.localEndpoint)
        now = 10_000
        try relay.service()
        let forwarded = try #require(try read(receiver))
        #expect(forwarded.bytes == [0x80, 1] && forwarded.from == relay.receiverFacingEndpoint)
        try receiver.send([0x81, 2], to: forwarded.from)
        try relay.service()
        #expect(try read(sender) == nil)
        now = 20_000
        try relay.service()
        #expect(try read(sender)?.bytes == [0x81, 2])
        #expect(relay.sendFailures == 0 && relay.undeliverable == 0)
    }

    /// The same relay on the real monotonic clock (its default), as the demo will drive it:
    /// nothing arrives before the one-way delay, and it arrives soon after.
    @Test func relayOnTheRealClockHoldsEachDatagramForTheDelay() throws {
        let receiver = try UDPSocket(), sender = try UDPSocket()
        let relay = try NetworkImpairmentRelay(receiver: receiver.localEndpoint,
                                               symmetric: .init(oneWayDelayMicroseconds: 30_000))
        var buffer = [UInt8](repeating: 0, count: 64)
        var delays: [Int64] = []
        for index in 0..<5 {
            let sent = monotonicMicroseconds()
            try sender.send([0x80, UInt8(index)], to: relay.senderFacingEndpoint)
            while monotonicMicroseconds() - sent < 500_000 {
                try relay.service()
                if try buffer.withUnsafeMutableBytes({ try receiver.receive(into: $0, timeoutMilliseconds: 1) }) != nil {
                    delays.append(monotonicMicroseconds() - sent)
                    break
                }
            }
        }
        print("real-clock relay, 30 ms one-way: delivered after", delays.map { "\($0 / 100 / 10).\($0 / 100 % 10) ms" })
        #expect(delays.count == 5)
        // Never early; the upper bound only allows for a busy machine's scheduling.
        #expect(delays.allSatisfy { $0 >= 30_000 && $0 < 130_000 })
    }
}
