import Glibc
import RTPWire
import Testing
@testable import EngineCore

/// Issue 25, items 1 and 2: the node's TCP side gives nothing to a stranger and holds strangers
/// only briefly. Real loopback sockets; the node's clock is a manual one where limits are timed.
@Suite struct TCPPeerIdentityTests {
    let rtp: [UInt8] = [0x80, 0x60, 0, 1, 0, 0, 0, 0, 0, 0, 0, 9]

    /// Reads the node until `condition` holds (at most 2 s); datagrams it hands up are returned.
    @discardableResult
    func drive(_ node: UDPAndTCPTransport, until condition: () -> Bool) throws -> [(count: Int, from: NetworkEndpoint)] {
        var buffer = [UInt8](repeating: 0, count: 2048)
        var handedUp: [(count: Int, from: NetworkEndpoint)] = []
        for _ in 0..<100 where !condition() {
            if let received = try node.receive(into: &buffer, timeoutMilliseconds: 20) { handedUp.append(received) }
        }
        return handedUp
    }

    @Test func aConnectionFromAUDPPeersPortTakesNothingMeantForItAndGivesTheNodeNothing() throws {
        let node = try UDPAndTCPTransport()
        let viewer = try UDPSocket()
        // The impostor's TCP connection comes from the viewer's very address and port.
        let impostor = try TCPFramedConnection.connect(to: node.tcpEndpoint, from: viewer.localEndpoint)
        #expect(impostor.localEndpoint.hasSameAddress(as: viewer.localEndpoint) && impostor.localEndpoint != viewer.localEndpoint)
        try impostor.send(rtp, to: impostor.peer)
        let handedUp = try drive(node) { node.tcpCounters.unverifiedDatagramsDropped == 1 }
        #expect(handedUp.isEmpty && node.tcpCounters.accepted == 1 && node.tcpPeers.isEmpty)
        for _ in 0..<10 { try node.send(rtp, to: viewer.localEndpoint) }
        #expect(throws: NetworkError.noConsent(destination: impostor.localEndpoint.description)) {
            try node.send(rtp, to: impostor.localEndpoint)
        }
        var buffer = [UInt8](repeating: 0, count: 2048)
        var atViewer = 0
        while try viewer.receive(into: &buffer, timeoutMilliseconds: 100) != nil { atViewer += 1 }
        #expect(atViewer == 10)
        #expect(try impostor.receive(into: &buffer, timeoutMilliseconds: 200) == nil)
        #expect(node.tcpCounters.sendsRefused == 1 && !node.isReliableStream(to: impostor.localEndpoint))
    }

    @Test func aCheckUnderTheWrongPasswordOrAnUnknownUsernameClosesTheConnection() throws {
        let node = try UDPAndTCPTransport()
        var random = SplitMix64(seed: 251)
        let expected = ICECredentials.random(using: &random)
        node.expectConnection(from: expected)
        let guessed = try ICECredentials(usernameFragment: expected.usernameFragment, password: String(repeating: "x", count: 24))
        let unknown = ICECredentials.random(using: &random)
        for credentials in [guessed, unknown] {
            let stranger = try TCPFramedConnection.connect(to: node.tcpEndpoint)
            try stranger.send(STUNBindingCheck.request(transactionID: .random(using: &random), credentials: credentials), to: stranger.peer)
            try stranger.send(rtp, to: stranger.peer)
            let before = node.tcpCounters.failedChecks
            #expect(try drive(node) { node.tcpCounters.failedChecks == before + 1 }.isEmpty)
            // Closed by the node: the stranger reads the end of the stream, never an answer.
            var buffer = [UInt8](repeating: 0, count: 2048)
            #expect(throws: NetworkError.self) { _ = try stranger.receive(into: &buffer, timeoutMilliseconds: 500) }
        }
        #expect(node.connectionCount == 0 && node.verifiedPeer(usernameFragment: expected.usernameFragment) == nil)
        // The participant's own check still works afterwards.
        let participant = try node.connectProven(seed: 252)
        try participant.send(rtp, to: participant.peer)
        let handedUp = try drive(node) { false }
        #expect(handedUp.count == 1 && handedUp.first?.from == participant.localEndpoint)
    }

    /// A few short reads of the node: whatever it hands up.
    func pump(_ node: UDPAndTCPTransport) throws -> [(count: Int, from: NetworkEndpoint)] {
        var buffer = [UInt8](repeating: 0, count: 2048)
        return try (0..<3).compactMap { _ in try node.receive(into: &buffer, timeoutMilliseconds: 10) }
    }

    @Test func strangersHaveTwoSecondsToProveThemselvesAndPeersFifteenSecondsOfSilence() throws {
        let clock = ManualClock()
        let node = try UDPAndTCPTransport(clock: clock.mediaClock)
        let peer = try node.connectProven(seed: 253)
        let stranger = try TCPFramedConnection.connect(to: node.tcpEndpoint)
        try drive(node) { node.connectionCount == 2 }
        // The stranger drips a 100-byte datagram one byte per 100 ms: it never completes one.
        let drip: [UInt8] = [0, 100] + [UInt8](repeating: 0x80, count: 98)
        for index in 0..<20 {
            #expect(drip.withUnsafeBytes { Glibc.send(stranger.descriptor, $0.baseAddress! + index, 1, Int32(MSG_NOSIGNAL)) } == 1)
            _ = try pump(node)
            if index < 19 { clock.advance(milliseconds: 100) }
        }
        #expect(node.connectionCount == 2 && node.tcpCounters.verificationTimeouts == 0)
        clock.advance(milliseconds: 101)
        try drive(node) { node.tcpCounters.verificationTimeouts == 1 }
        #expect(node.connectionCount == 1)
        // The proven peer: a datagram now and then keeps it; 15 s without one ends it.
        clock.advance(milliseconds: 10_000)
        try peer.send(rtp, to: peer.peer)
        #expect(try pump(node).count == 1)
        clock.advance(milliseconds: 14_900)
        _ = try pump(node)
        #expect(node.connectionCount == 1 && node.tcpCounters.idleTimeouts == 0)
        clock.advance(milliseconds: 200)
        try drive(node) { node.tcpCounters.idleTimeouts == 1 }
        #expect(node.connectionCount == 0 && node.tcpPeers.isEmpty)
        #expect(throws: NetworkError.self) { try node.send(rtp, to: peer.localEndpoint) }
    }

    @Test func aFloodOfIdleStrangersEvictsTheOldestAndLeavesRoomForAParticipant() throws {
        let node = try UDPAndTCPTransport(limits: TCPPeerLimits(maximumConnections: 8, maximumUnverifiedConnections: 4))
        var strangers: [TCPFramedConnection] = []
        for _ in 0..<12 { strangers.append(try TCPFramedConnection.connect(to: node.tcpEndpoint)) }
        try drive(node) { node.tcpCounters.accepted == 12 }
        #expect(node.connectionCount == 4 && node.tcpCounters.evictedUnverified == 8)
        // An idle stranger holds no buffer memory on the node's side.
        for stranger in strangers {
            if let held = node.connection(for: stranger.localEndpoint) { #expect(held.bufferBytes == 0) }
        }
        // A participant connecting after the flood still gets in and proves itself.
        let participant = try node.connectProven(seed: 254)
        #expect(node.tcpPeers == [participant.localEndpoint])
        // At the cap, a further connection is closed as soon as it is accepted.
        var proven: [TCPFramedConnection] = [participant]
        for seed in 255..<259 { proven.append(try node.connectProven(seed: UInt64(seed))) }
        #expect(node.connectionCount == 8)
        let late = try TCPFramedConnection.connect(to: node.tcpEndpoint)
        try drive(node) { node.tcpCounters.refusedOverCap == 1 }
        #expect(node.connectionCount == 8 && node.tcpPeers.count == 5)
        var buffer = [UInt8](repeating: 0, count: 64)
        #expect(throws: NetworkError.self) { _ = try late.receive(into: &buffer, timeoutMilliseconds: 500) }
    }
}
