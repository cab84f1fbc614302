import Testing
@testable import SessionCore

@Suite struct EventRingTests {
    @Test func keepsTheLatestEventsAndCountsTheRest() {
        var ring = EventRing<Int>(capacity: 3)
        for value in 1...5 { ring.append(value) }
        #expect(Array(ring) == [3, 4, 5] && ring.dropped == 2 && ring.totalAppended == 5)
        let drained = ring.drain()
        #expect(drained == [3, 4, 5] && ring.isEmpty)
        ring.append(6)
        #expect(Array(ring) == [6] && ring.totalAppended == 6)
    }
}

@Suite struct SSRCChangeGuardTests {
    /// One stray packet of another SSRC does not restart a receiver; four in sequence do.
    @Test func aNewSSRCNeedsARunOfPacketsInSequence() {
        var guardian = SSRCChangeGuard()
        let packets: [(ssrc: UInt32, sequence: UInt16)] = [(1, 10), (2, 500), (1, 11), (2, 501), (2, 503), (2, 504), (2, 505), (2, 506)]
        let verdicts = packets.map { guardian.admit(ssrc: $0.ssrc, sequenceNumber: $0.sequence) }
        // 503 is not in sequence after 501: the run starts over there.
        #expect(verdicts == [.start, .holdBack, .current, .holdBack, .holdBack, .holdBack, .holdBack, .start])
        #expect(guardian.current == 2 && guardian.heldBack == 5)
    }
}

@Suite struct PeerAddressLatchTests {
    @Test func pinsTheFirstAddressAndMovesOnlyAfterARun() {
        let a = "10.0.0.1:1", b = "10.0.0.1:2", c = "10.0.0.1:3"
        var latch = PeerAddressLatch<String>(takeoverRun: 3)
        // The peer speaking in between (a) starts a new address's run over, as does another one (c).
        let admitted = [a, b, b, a, b, c, b, b, b].map { latch.admit($0) }
        #expect(admitted == [true, false, false, true, false, false, false, false, true])
        #expect(latch.peer == b && latch.takeovers == 1 && latch.refused == 6)
        var configured = PeerAddressLatch(configured: a, takeoverRun: 1)
        let configuredAdmitted = [b, b, a].map { configured.admit($0) }
        #expect(configuredAdmitted == [false, false, true] && configured.peer == a)
    }
}
