import MediaEngine
import Testing

/// One hosted room, one camera, a viewer over UDP and a viewer over TCP (RFC 4571) side by side
/// (issue 18: one room mixes both): both decode the call with zero decoder errors; the printed
/// round-trip times and rates are the closing note's UDP-versus-TCP numbers on the same loopback
/// call. Real time, the public API only; `make test` runs it in the serial group.
@Suite(.serialized) struct MixedTransportRoomTests {
    @Test func aRoomServesAUDPViewerAndATCPViewerAlike() async throws {
        let engine = MediaEngine()
        let room = try await engine.hostRoom()
        let alice = try await room.join(participantId: "alice")
        let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
        try await alice.publish(camera)
        let pushing = Task { try await Capture(camera, width: 640, height: 360).run(seconds: 10) }
        let bob = try await room.join(participantId: "bob", preferredProtocol: .udpOnly)
        let carol = try await room.join(participantId: "carol", preferredProtocol: .tcpOnly)
        let (udpRemote, tcpRemote) = (try await bob.subscribe(to: "alice"), try await carol.subscribe(to: "alice"))
        let (overUDP, overTCP) = (FrameWatch(udpRemote), FrameWatch(tcpRemote))
        #expect(try await overUDP.wait(forFrames: 10, within: 5))
        #expect(try await overTCP.wait(forFrames: 10, within: 5))
        let start = (udp: try await udpRemote.stats(), tcp: try await tcpRemote.stats())
        try await Task.sleep(for: .seconds(5))
        let end = (udp: try await udpRemote.stats(), tcp: try await tcpRemote.stats())
        for (name, first, last) in [("UDP", start.udp, end.udp), ("TCP", start.tcp, end.tcp)] {
            print("\(name) viewer: \(last.transportProtocol.map(\.rawValue) ?? "?"), \(last.framesDecoded - first.framesDecoded) frames "
                  + "and \((last.bytesReceived - first.bytesReceived) * 8 / 5 / 1000) kbps received in 5 s, forwarder at "
                  + "\(last.bitsPerSecond / 1000) kbps, RTT \(last.roundTripMilliseconds.map { "\(($0 * 100).rounded() / 100) ms" } ?? "-"), "
                  + "jitter \((last.jitterMilliseconds * 100).rounded() / 100) ms, \(last.decoderErrors) decoder errors, "
                  + "layer \(last.currentSpatialLayer.map(String.init) ?? "-")")
        }
        #expect(end.udp.transportProtocol == .udp && end.tcp.transportProtocol == .tcp)
        #expect(end.udp.decoderErrors == 0 && end.tcp.decoderErrors == 0)
        #expect(end.udp.framesDecoded - start.udp.framesDecoded >= 100 && end.tcp.framesDecoded - start.tcp.framesDecoded >= 100)
        #expect(end.tcp.nackCount == 0)
        pushing.cancel()
        await engine.close()
    }
}
