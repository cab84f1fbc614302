import Testing
@testable import SessionCore

/// The pacer on a simulated clock: what leaves when, in which order, and what it refuses.
@Suite struct PacketPacerTests {
    func enqueue(_ pacer: inout PacketPacer, bytes: Int, ssrc: UInt32, sequence: UInt16? = nil,
                 priority: PacketPacer.Priority, at now: Int64) -> Bool {
        let packet = [UInt8](repeating: UInt8(truncatingIfNeeded: ssrc), count: bytes)
        return packet.withUnsafeBytes {
            pacer.enqueue($0, ssrc: ssrc, transportSequenceNumber: sequence, priority: priority, nowMicroseconds: now)
        }
    }

    @Test func aKeyFrameLeavesAtThePacingRateInShortBursts() {
        // 1 Mbps: 125 bytes per ms; 5 ms bursts.
        var pacer = PacketPacer(bitsPerSecond: 1_000_000)
        for index in 0..<40 { #expect(enqueue(&pacer, bytes: 1_000, ssrc: 1, sequence: UInt16(index), priority: .video, at: 0)) }
        #expect(pacer.queuedBytes == 40_000 && abs(pacer.queuedMilliseconds - 320) < 0.001)
        var departures: [(at: Int64, bytes: Int, sequence: UInt16?)] = []
        for now in stride(from: Int64(0), through: 400_000, by: 1_000) {
            pacer.drain(nowMicroseconds: now) { departures.append((now, $0.bytes.count, $0.transportSequenceNumber)) }
        }
        #expect(departures.count == 40)
        #expect(departures.map(\.sequence) == (0..<40).map { UInt16($0) })
        // 40,000 bytes at 125 bytes/ms take about 320 ms; never more than a 5 ms burst's worth ahead.
        let last = departures.last?.at ?? 0
        #expect(last >= 310_000 && last <= 330_000)
        for departure in departures {
            let sentBefore = departures.filter { $0.at <= departure.at }.reduce(0) { $0 + $1.bytes }
            #expect(Double(sentBefore) <= Double(departure.at) / 1000 * 125 + 625 + 1_000)
        }
        #expect(pacer.queuedBytes == 0)
    }

    @Test func audioAndRetransmissionsGoFirst() {
        var pacer = PacketPacer(bitsPerSecond: 8_000_000)
        for _ in 0..<5 { _ = enqueue(&pacer, bytes: 1_200, ssrc: 10, priority: .video, at: 0) }
        _ = enqueue(&pacer, bytes: 100, ssrc: 20, priority: .urgent, at: 0)
        var order: [UInt32] = []
        pacer.drain(nowMicroseconds: 0) { order.append($0.ssrc) }
        pacer.drain(nowMicroseconds: 10_000) { order.append($0.ssrc) }
        #expect(order == [20, 10, 10, 10, 10, 10])
    }

    @Test func aFullPacerRefusesAndAnOversizedPacketIsRefused() {
        var pacer = PacketPacer(bitsPerSecond: 100_000, configuration: .init(capacity: 8, maximumPacketSize: 200))
        for _ in 0..<8 { #expect(enqueue(&pacer, bytes: 100, ssrc: 1, priority: .video, at: 0)) }
        #expect(!enqueue(&pacer, bytes: 100, ssrc: 1, priority: .video, at: 0))
        #expect(!enqueue(&pacer, bytes: 201, ssrc: 1, priority: .urgent, at: 0))
        #expect(pacer.refused == 2 && pacer.queuedPackets == 8)
        // Slots come back once packets leave (100 kbps: 800 bytes in well under a second).
        for now in stride(from: Int64(0), through: 1_000_000, by: 10_000) { pacer.drain(nowMicroseconds: now) { _ in } }
        #expect(pacer.queuedPackets == 0)
        #expect(enqueue(&pacer, bytes: 100, ssrc: 1, priority: .video, at: 1_000_000))
    }

    @Test func anIdleLinkBanksNoBurst() {
        var pacer = PacketPacer(bitsPerSecond: 1_000_000)
        pacer.drain(nowMicroseconds: 0) { _ in }
        // A second of silence, then ten 1,000-byte packets: still 125 bytes per ms from now on.
        for _ in 0..<10 { _ = enqueue(&pacer, bytes: 1_000, ssrc: 1, priority: .video, at: 1_000_000) }
        var sent = 0
        pacer.drain(nowMicroseconds: 1_000_000) { _ in sent += 1 }
        pacer.drain(nowMicroseconds: 1_010_000) { _ in sent += 1 }
        #expect(sent <= 3)
    }
}
