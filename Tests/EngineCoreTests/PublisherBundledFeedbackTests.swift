import Testing
import MediaCodecs
import RTPWire
import Simulcast
@testable import EngineCore

/// `Publisher.bundledPublisher` (issue 28): a screen share's publisher on the camera's transport,
/// one peer connection's second video m-line. The camera's publisher reads the transport and
/// hands the feedback about the screen share's SSRC to it.
@Suite struct PublisherBundledFeedbackTests {
    static let screenSSRC: UInt32 = 3000

    /// The camera's rig and a one-layer screen-share publisher sending on its transport.
    static func cameraAndScreen() throws -> (PublisherRig, Publisher) {
        let rig = try PublisherRig()
        let plan = try LayerPlan(screenShareWidth: 640, height: 360, multiStream: false)
        let configuration = PublisherConfiguration(video: VideoTrackConfiguration(plan: plan, firstSSRC: screenSSRC, mid: "2"),
                                                   security: .srtp(local: try testMaterial()), cname: "test-cname")
        var random = SplitMix64(seed: 7)
        let screen = try Publisher(configuration: configuration, transport: rig.transport,
                                   routing: try PublisherRouting(destination: PublisherRig.peer), clock: rig.clock.mediaClock, using: &random)
        return (rig, screen)
    }

    @Test func keyFrameRequestsAndNACKsForTheScreenShareReachItsPublisher() throws {
        let (rig, screen) = try Self.cameraAndScreen()
        let receiver = try TestReceiver()
        let source = try VideoSource(testSceneWidth: 640, height: 360)
        for _ in 0..<3 {
            if let frame = try source.nextFrame() { try screen.send(video: frame) }
            rig.clock.advance(milliseconds: 66)
        }
        let screenPackets = try sentRTP(rig.transport, receiver: receiver).filter { $0.packet.header.ssrc == Self.screenSSRC }
        let lost = try #require(screenPackets.last?.packet.header.sequenceNumber)
        let pli = try receiver.protectFeedback([.pictureLossIndication(.init(senderSSRC: 9, mediaSSRC: Self.screenSSRC))])
        let nack = try receiver.protectFeedback([.genericNACK(.init(senderSSRC: 9, mediaSSRC: Self.screenSSRC,
                                                                    items: [.init(packetID: lost, lostBitmask: 0)]))])

        // Not bundled: the camera's publisher knows no such SSRC.
        #expect(try rig.publisher.handleIncoming(pli).unknownSSRC == 1)
        #expect(screen.keyFramesRequested == 0)

        rig.publisher.bundledPublisher = screen
        let pliAgain = try receiver.protectFeedback([.pictureLossIndication(.init(senderSSRC: 9, mediaSSRC: Self.screenSSRC))])
        let pliOutcome = try rig.publisher.handleIncoming(pliAgain)
        #expect(pliOutcome.unknownSSRC == 0 && pliOutcome.keyFramesRequested == 0)  // not the camera's
        #expect(screen.keyFramesRequested == 1 && rig.publisher.keyFramesRequested == 0)
        let before = rig.transport.sent.count
        let nackOutcome = try rig.publisher.handleIncoming(nack)
        #expect(nackOutcome.unknownSSRC == 0 && nackOutcome.retransmitted == 1)
        // A retransmission repeats the packet's SRTP index: a receiver that has not seen it reads it.
        let resent = try sentRTP(rig.transport, receiver: try TestReceiver(), from: before)
        #expect(resent.count == 1 && resent.first?.packet.header.ssrc == Self.screenSSRC)
        #expect(resent.first?.packet.header.sequenceNumber == lost)
    }
}
