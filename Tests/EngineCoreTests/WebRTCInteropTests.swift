import DTLS
import Foundation
import InteropTestSupport
import Glibc
import MediaCodecs
import RTPWire
import SessionCore
import Simulcast
import SRTP
import Testing
@testable import EngineCore

/// A direct call (no SFU) from our engine to aiortc, a WebRTC stack nobody here wrote: our
/// offer, aiortc's answer, ICE, DTLS-SRTP, then Opus and one VP8 layer that aiortc decodes.
///
/// aiortc gathers no candidates on loopback, so this runs only inside the namespaces
/// scripts/netns-run.sh prepares (`make test` runs it there): we are on the client host
/// (10.99.0.1) and aiortc on the peer host (10.99.0.2), at the two ends of a veth pair; anywhere
/// else it fails with that message and touches nothing.
@Suite(.serialized) struct WebRTCInteropTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Precondition: Error, CustomStringConvertible { var description: String }

    /// Our end of netns-run.sh's veth pair (aiortc gathers on the other end, on the peer host).
    static let localAddress: UInt32 = 0x0A63_0001

    /// Refuses to run outside the namespace scripts/netns-run.sh prepares (veth-engine 10.99.0.1).
    @Test func ourOfferAiortcsAnswerICEThenDTLSSRTPThenOpusAndVP8DecodedByAiortc() throws {
        try PrivateNamespace.require(for: "WebRTCInteropTests")
        let python = Self.root.appendingPathComponent(".venv-interop/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw Precondition(description: ".venv-interop/bin/python missing: scripts/install-deps.sh creates it")
        }
        let certificate = try DTLSCertificate()
        var random = SystemRandomNumberGenerator()
        let credentials = ICECredentials.random(using: &random)
        let socket = try UDPSocket(bindingTo: NetworkEndpoint(address: Self.localAddress, port: 0))
        try socket.setReceiveBufferSize(1 << 20)
        let agent = ICEAgent(configuration: .init(local: credentials, role: .controlling, tieBreaker: UInt64.random(in: 1...UInt64.max)),
                             seed: 99)
        let ice = ICEDatagramTransport(socket: socket, agent: agent)
        let audioSSRC: UInt32 = 0x0A0D_1000, videoSSRC: UInt32 = 0x0B1D_E000
        // A 640x360 camera offers two simulcast layers (RIDs f, q), as a client always would.
        let camera = try LayerPlan(width: 640, height: 360)
        let offer = SimulcastOffer(
            sessionID: 1, ice: credentials, fingerprint: certificate.fingerprint,
            candidates: [ICECandidate(foundation: "1", priority: 2_130_706_431, address: "10.99.0.1",
                                      port: socket.localEndpoint.port, kind: .host)],
            audio: .init(ssrc: audioSSRC), video: .init(rids: NegotiatedPublishing.offeredRIDs(for: camera)), cname: "engine")

        // aiortc: offer in, answer out, results after `seconds`.
        let peer = Process()
        try PrivateNamespace.runOnPeerHost(peer, executable: python,
                                           arguments: [Self.root.appendingPathComponent("Tests/Interop/foreign_receiving_peer.py").path])
        let input = Pipe(), output = Pipe()
        peer.standardInput = input
        peer.standardOutput = output
        try peer.run()
        defer { if peer.isRunning { peer.terminate() } }
        let request = try JSONSerialization.data(withJSONObject: ["sdp": offer.sessionDescription.text, "seconds": 6])
        input.fileHandleForWriting.write(request + Data("\n".utf8))
        var lines = LineReader(output.fileHandleForReading)
        let answerLine = lines.next()
        let answerJSON = try #require(answerLine)
        let answerSDP = try #require((try JSONSerialization.jsonObject(with: Data(answerJSON.utf8)) as? [String: Any])?["sdp"] as? String)
        let negotiated = try NegotiatedSession(offer: offer, answer: SessionDescription(parsing: answerSDP))

        agent.setRemoteCredentials(negotiated.remoteICE)
        for candidate in negotiated.remoteCandidates where candidate.transport == "udp" {
            guard let address = NetworkEndpoint.ipv4Address(candidate.address) else { continue }
            agent.addRemoteCandidate(.ipv4(address, port: candidate.port), priority: candidate.priority)
        }
        let dtls = try DTLSAssociation(role: negotiated.remoteSetup == .active ? .server : .client, certificate: certificate,
                                       remoteFingerprint: negotiated.remoteFingerprint)
        let transport = WebRTCTransport(ice: ice, dtls: dtls)
        let clock = MediaClock.system
        let start = clock.monotonicMilliseconds()
        let state = try transport.connect(timeoutMilliseconds: 5_000)
        let connectMilliseconds = clock.monotonicMilliseconds() - start
        guard case let .connected(keys) = state, let remote = transport.remote else {
            Issue.record("ICE + DTLS did not connect to aiortc: \(state)")
            return
        }
        print("aiortc: ICE + DTLS-SRTP connected in \(connectMilliseconds) ms, profile \(keys.suite), "
              + "DTLS role \(dtls.role), selected \(remote)")
        #expect(connectMilliseconds < 1_000)

        // Media with what the answer negotiated: aiortc takes no simulcast, so one stream (the top
        // layer, no RID), its payload types and extension ids, the keys DTLS exported.
        let video = try #require(negotiated.video)
        #expect(video.rids.isEmpty)
        var seeded = SplitMix64(seed: 5)
        let configuration = try NegotiatedPublishing.configuration(
            camera: camera, session: negotiated, firstVideoSSRC: videoSSRC, audioSSRC: audioSSRC,
            keys: (keys.local, keys.remote), cname: "engine")
        #expect(configuration.video?.plan.layers.count == 1)
        let publisher = try Publisher(configuration: configuration, transport: transport, routing: try PublisherRouting(destination: remote),
                                      using: &seeded)
        let source = try VideoSource(testSceneWidth: 640, height: 360), signal = TestSignal()
        let sent = try RealTimeMediaPump().run(publisher, seconds: 4, video: source.nextFrame, audio: signal.frame)
        let (videoSent, audioSent) = (sent.videoFrames, sent.audioFrames)
        try? publisher.sendGoodbye(reason: "done")
        let resultLine = lines.next()
        let resultJSON = try #require(resultLine)
        let result = try #require(try JSONSerialization.jsonObject(with: Data(resultJSON.utf8)) as? [String: Any])
        print("aiortc received: \(resultJSON)")
        print("we sent \(videoSent) video frames, \(audioSent) audio frames; keyframes requested \(publisher.keyFramesRequested)")
        #expect((result["video_frames"] as? Int ?? 0) >= 60)
        #expect((result["video_size"] as? [Int]) == [640, 360])
        #expect((result["audio_frames"] as? Int ?? 0) >= 100)
        #expect((result["errors"] as? [Any])?.isEmpty == true)
    }

}
