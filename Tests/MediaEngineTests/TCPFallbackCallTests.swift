import Foundation
import InteropTestSupport
import MediaEngine
import Testing

/// docs/joining-a-room.md `preferredProtocol` with UDP blocked for real (issue 18): inside the private network
/// namespace of scripts/netns-run.sh, an nftables rule drops every UDP datagram (never this
/// machine's interfaces), and the room's participants find their way over TCP, or do not when
/// told to use only UDP. `.tcpOnly` is checked against the kernel's own count of UDP datagrams
/// sent in the namespace. Real time, the public API only; `make test` runs it in the netns group.
@Suite(.serialized) struct TCPFallbackCallTests {
    @Test func withUDPBlockedAUDPOverTCPSubscriberReceivesVideoWithinFiveSecondsAndAUDPOnlyOneNothing() async throws {
        try PrivateNamespace.require(for: "TCPFallbackCallTests")
        let ((), dropped) = try await NamespaceFirewall.withUDPBlocked {
            let engine = MediaEngine()
            let room = try await engine.hostRoom()
            let alice = try await room.join(participantId: "alice")  // nil: .udpOverTCP
            let aliceEvents = EventLog(alice)
            let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
            try await alice.publish(camera)
            let capture = Capture(camera, width: 640, height: 360)
            let pushing = Task { try await capture.run(seconds: 12) }
            let joined = ContinuousClock.now
            let bob = try await room.join(participantId: "bob", preferredProtocol: .udpOverTCP)
            let carol = try await room.join(participantId: "carol", preferredProtocol: .udpOnly)
            let (bobEvents, carolEvents) = (EventLog(bob), EventLog(carol))
            let overTCP = FrameWatch(try await bob.subscribe(to: "alice"))
            let overUDP = FrameWatch(try await carol.subscribe(to: "alice"))
            let remote = try await bob.subscribe(to: "alice")

            #expect(try await overTCP.wait(forFrames: 1, within: 5))
            let timeToMedia = overTCP.firstFrameAt.map { joined.duration(to: $0) }
            #expect(try await overTCP.wait(forFrames: 60, within: 5))  // and it keeps coming
            let stats = try await remote.stats()
            let cameraStats = try await camera.stats()
            let switches = bobEvents.protocolSwitches
            print("UDP blocked (\(NamespaceFirewall.table)): bob (.udpOverTCP) decoded its first frame "
                  + "\(timeToMedia.map { "\(milliseconds($0)) ms" } ?? "never") "
                  + "after joining; events: \(switches.map(\.description)); \(stats.framesDecoded) frames, "
                  + "\(stats.decoderErrors) decoder errors, \(stats.nackCount) NACKs, over \(stats.transportProtocol.map(\.rawValue) ?? "?"); "
                  + "carol (.udpOnly) decoded \(overUDP.frames)")
            #expect(timeToMedia.map { $0 < .seconds(5) } == true)
            #expect(switches.count == 1)
            if let change = switches.first {
                #expect(change.connection == .receiving(publisherId: "alice") && change.from == .udp && change.to == .tcp)
                #expect((2_000..<3_000).contains(change.afterMilliseconds))
            }
            #expect(stats.transportProtocol == .tcp && stats.protocolSwitchMilliseconds == switches.first?.afterMilliseconds)
            #expect(stats.decoderErrors == 0 && stats.framesDecoded >= 60)
            #expect(stats.nackCount == 0)  // TCP retransmits: nothing to NACK
            // alice's camera went the same way; carol, told to use UDP only, never switched and got nothing.
            #expect(cameraStats.transportProtocol == .tcp)
            #expect(aliceEvents.protocolSwitches.map(\.connection) == [.publishing])
            #expect(overUDP.frames == 0)
            #expect(carolEvents.protocolSwitches.isEmpty)
            #expect(try await carol.subscribe(to: "alice").stats().transportProtocol == .udp)
            pushing.cancel()
            await engine.close()
        }
        print("UDP datagrams dropped by the namespace's rule: \(dropped)")
        #expect(dropped > 100)  // UDP really was tried, and really was dropped
    }

    @Test func tcpOnlyParticipantsSendNoUDPDatagram() async throws {
        try PrivateNamespace.require(for: "TCPFallbackCallTests")
        let before = try NamespaceFirewall.udpDatagramsSent()
        let engine = MediaEngine()
        let room = try await engine.hostRoom()
        let alice = try await room.join(participantId: "alice", preferredProtocol: .tcpOnly)
        let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
        try await alice.publish(camera)
        let pushing = Task { try await Capture(camera, width: 640, height: 360).run(seconds: 8) }
        let joined = ContinuousClock.now
        let bob = try await room.join(participantId: "bob", preferredProtocol: .tcpOnly)
        let bobEvents = EventLog(bob)
        let remote = try await bob.subscribe(to: "alice")
        let watch = FrameWatch(remote)
        #expect(try await watch.wait(forFrames: 60, within: 5))
        let stats = try await remote.stats()
        let after = try NamespaceFirewall.udpDatagramsSent()
        print("TCP only: first frame \(watch.firstFrameAt.map { "\(milliseconds(joined.duration(to: $0))) ms" } ?? "never") after joining, "
              + "\(stats.framesDecoded) frames, \(stats.decoderErrors) decoder errors; UDP datagrams sent in the namespace: \(after - before)")
        #expect(after == before)
        #expect(stats.transportProtocol == .tcp && stats.protocolSwitchMilliseconds == nil && stats.decoderErrors == 0)
        #expect(try await camera.stats().transportProtocol == .tcp)
        #expect(bobEvents.protocolSwitches.isEmpty)

        // The count is the kernel's and sees this engine: a .udpOnly viewer moves it at once.
        let carol = try await room.join(participantId: "carol", preferredProtocol: .udpOnly)
        let overUDP = FrameWatch(try await carol.subscribe(to: "alice"))
        #expect(try await overUDP.wait(forFrames: 10, within: 5))
        #expect(try NamespaceFirewall.udpDatagramsSent() > after)
        pushing.cancel()
        await engine.close()
    }
}

/// A duration in whole milliseconds, for the printed numbers.
private func milliseconds(_ duration: Duration) -> Int64 {
    duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
}
