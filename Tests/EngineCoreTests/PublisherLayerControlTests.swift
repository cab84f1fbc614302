import Testing
import MediaCodecs
import RTPWire
import Simulcast
@testable import EngineCore

/// docs/sending-caps.md on the publisher: dynaCast pauses unwatched layers and resumes them with a key frame,
/// never above the webcam cap; the cap is an error while the camera is off and persists.
@Suite struct PublisherLayerControlTests {
    /// For each SSRC that sent RTP since `start`: whether its first frame started with a key frame.
    private func sentLayers(_ rig: PublisherRig, from start: Int) throws -> [UInt32: Bool] {
        var firstIsKey: [UInt32: Bool] = [:]
        for datagram in rig.transport.sent[start...] where try RTPOrRTCP.classify(datagram.bytes[...]) == .rtp {
            let packet = try RTPPacket(parsing: datagram.bytes)
            if firstIsKey[packet.header.ssrc] == nil {
                firstIsKey[packet.header.ssrc] = try startsKeyFrame(packet.payload)
            }
        }
        return firstIsKey
    }

    @Test func unwatchedLayersPauseAndResumeWithAKeyFrameWhenAsked() throws {
        let rig = try PublisherRig(width: 1280, height: 720, insecure: true)
        try rig.publisher.setDynaCast(enabled: true)
        let paused = try rig.publisher.updateWantedLayers([0])
        #expect(paused.sending == [0] && paused.paused == [1, 2])
        try rig.sendFrames(4)
        var start = rig.transport.sent.count
        try rig.sendFrames(4)
        #expect(Set(try sentLayers(rig, from: start).keys) == [1000])

        let resumed = try rig.publisher.updateWantedLayers([0, 2])
        #expect(resumed.resumed == [1, 2] && resumed.sending == [0, 1, 2])
        start = rig.transport.sent.count
        try rig.sendFrames(1)
        let layers = try sentLayers(rig, from: start)
        #expect(layers[1001] == true)
        #expect(layers[1002] == true)
        #expect(rig.publisher.sendingLayers == [0, 1, 2])
    }

    @Test func dynaCastNeverSendsAboveTheCap() throws {
        let rig = try PublisherRig(width: 1280, height: 720, insecure: true)
        try rig.publisher.setWebcamQuality(.medium)
        try rig.publisher.setDynaCast(enabled: true)
        let update = try rig.publisher.updateWantedLayers([2])
        #expect(update.sending == [0, 1])
        try rig.sendFrames(3)
        #expect(Set(try sentLayers(rig, from: 0).keys) == [1000, 1001])
        try rig.publisher.setWebcamQuality(.low)
        #expect(rig.publisher.sendingLayers == [0])
        // dynaCast off: everything under the cap, still not above it.
        try rig.publisher.setDynaCast(enabled: false)
        #expect(rig.publisher.sendingLayers == [0])
        try rig.publisher.setWebcamQuality(.high)
        #expect(rig.publisher.sendingLayers == [0, 1, 2])
    }

    @Test func settingTheCapWhileTheCameraIsOffIsATypedErrorAndTheCapPersists() throws {
        let rig = try PublisherRig(width: 1280, height: 720, insecure: true)
        try rig.publisher.setWebcamQuality(.low)
        try rig.publisher.setCameraEnabled(false)
        #expect(throws: PublisherError.webcamQuality(.cameraOff)) { try rig.publisher.setWebcamQuality(.high) }
        let before = rig.transport.sent.count
        try rig.sendFrames(2)
        #expect(rig.transport.sent.count == before)
        #expect(rig.publisher.videoFramesSkippedCameraOff == 2)
        try rig.publisher.setCameraEnabled(true)
        #expect(rig.publisher.webcamQuality == .low)
        try rig.sendFrames(2)
        let layers = try sentLayers(rig, from: before)
        #expect(Set(layers.keys) == [1000])
        #expect(layers[1000] == true)
    }

    @Test func singleLayerTracksIgnoreDynaCastAndTheCap() throws {
        let rig = try PublisherRig(width: 320, height: 180, insecure: true)
        try rig.publisher.setDynaCast(enabled: true)
        let update = try rig.publisher.updateWantedLayers([])
        #expect(update.sending == [0])
        try rig.publisher.setWebcamQuality(.low)
        try rig.sendFrames(2)
        #expect(Set(try sentLayers(rig, from: 0).keys) == [1000])
    }

    @Test func nodeWantedLayersDriveThePublisher() throws {
        let plan = try LayerPlan(width: 1280, height: 720)
        let node = try ForwardingNode(configuration: ForwardingNodeConfiguration(
            plan: plan, layerSSRCs: [1000, 1001, 1002], publisherKeys: nil, feedbackKeys: nil))
        let rig = try PublisherRig(width: 1280, height: 720, insecure: true)
        try rig.publisher.setDynaCast(enabled: true)
        node.onWantedLayersChanged = { wanted in _ = try? rig.publisher.updateWantedLayers(wanted) }
        try node.addSubscriber(ForwardedSubscriberConfiguration(
            id: "thumb", outputSSRC: 7, destination: .loopback(port: 9), sendKeys: nil, receiveKeys: nil,
            preference: .viewPort(VideoSize(width: 320, height: 180))))
        #expect(rig.publisher.sendingLayers == [0])
        try node.addSubscriber(ForwardedSubscriberConfiguration(
            id: "stage", outputSSRC: 8, destination: .loopback(port: 10), sendKeys: nil, receiveKeys: nil,
            preference: .viewPort(VideoSize(width: 640, height: 360))))
        #expect(rig.publisher.sendingLayers == [0, 1])
        node.removeSubscriber("stage")
        #expect(rig.publisher.sendingLayers == [0])
    }
}
