import EngineCore
import Foundation
import InteropTestSupport
import MediaEngine
import Testing

/// Issue 29, "IPv6 only (the namespaces have no IPv4): the call works", through a real Janus
/// inside scripts/netns-run.sh's namespaces (one Janus run): both hosts lose their IPv4
/// addresses (`IPv6OnlyLink`: the veth ends, the peer host's loopback; the client host keeps
/// 127.0.0.1 on its loopback for Foundation) and get fd00:99::1 / fd00:99::2; Janus listens on
/// IPv6 (`janus-harness.sh --ipv6`: `ipv6 = true`, HTTP on [fd00:99::2]). Alice joins with the
/// URL `http://[fd00:99::2]:P/janus` and no local address (a dual-stack socket, host candidates
/// on every usable interface address: here fd00:99::1 only), publishes her camera (640x360),
/// bob subscribes on the same engine; bob decodes with no decoder error, and both peer
/// connections' selected pairs are IPv6 at both ends. No IPv4 address exists outside the client's
/// loopback during the call (checked before and during). The addresses are put back afterwards.
@Suite(.serialized) struct JanusIPv6Tests {
    @Test func anIPv6OnlyCallThroughJanusDecodesWithIPv6PairsAtBothEnds() async throws {
        try PrivateNamespace.require(for: "JanusIPv6Tests")
        defer { IPv6OnlyLink.restore() }
        try IPv6OnlyLink.enable()
        let ipv4Before = try IPv6OnlyLink.ipv4Addresses()
        #expect(ipv4Before.client.isEmpty && ipv4Before.peer.isEmpty, "IPv4 addresses left: \(ipv4Before)")
        let janus = try JanusHarness.start(["--ipv6"])
        defer { janus.stop() }
        #expect(janus.url.absoluteString.hasPrefix("http://[\(IPv6OnlyLink.peerAddress)]:"))

        let engine = MediaEngine()
        let started = ContinuousClock.now
        let alice = try await engine.joinJanusRoom(url: janus.url, room: 1234, participantId: "alice")
        let aliceEvents = JanusReconnectTests.TimedEventLog(alice)
        let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
        try await alice.publish(camera)
        let capture = Capture(camera, width: 640, height: 360)
        let publication = try #require(try await aliceEvents.publication())
        let published = ContinuousClock.now - started
        let bob = try await engine.joinJanusRoom(url: janus.url, room: 1234, participantId: "bob")
        let subscribing = ContinuousClock.now
        let track = try await bob.subscribe(to: publication.feedId)
        let sizes = SizeLog(track)
        var firstFrame: Duration?
        let decoded = try await capture.run(until: {
            if firstFrame == nil, sizes.count > 0 { firstFrame = ContinuousClock.now - subscribing }
            return sizes.count >= 60
        }, within: 10)
        let stats = try await track.stats()
        let cameraPair = try await camera.stats().selectedCandidatePair
        let receivingPair = stats.selectedCandidatePair
        let ipv4During = try IPv6OnlyLink.ipv4Addresses()
        print("IPv6-only call through Janus at \(janus.url): alice published in \(JanusReconnectTests.milliseconds(published)), "
            + "bob's first frame \(JanusReconnectTests.milliseconds(firstFrame)) after subscribing; bob decoded \(stats.framesDecoded) frames "
            + "(\(sizes.last.map { "\($0)" } ?? "-")), \(stats.decoderErrors) decoder errors; camera pair \(cameraPair.map { "\($0)" } ?? "-"), "
            + "receiving pair \(receivingPair.map { "\($0)" } ?? "-"); IPv4 addresses during the call: \(ipv4During)")

        #expect(decoded)
        #expect(stats.framesDecoded >= 60)
        #expect(stats.decoderErrors == 0)
        #expect(sizes.last?.width == 640 && sizes.last?.height == 360)
        for pair in [cameraPair, receivingPair] {
            #expect(pair?.local.address == IPv6OnlyLink.clientAddress)
            #expect(pair?.remote.address == IPv6OnlyLink.peerAddress)
        }
        #expect(ipv4During.client.isEmpty && ipv4During.peer.isEmpty, "IPv4 addresses during the call: \(ipv4During)")
        await engine.close()
    }
}
