import Foundation
import InteropTestSupport
import MediaEngine
import MediaEngineTesting
import Testing

/// Issue 28, parity in Janus rooms: a screen share through a real Janus 1.1.2 VideoRoom. alice
/// publishes a screen share (the generated text screen, 1920x1080 at 15 fps, the size
/// whose settled text a hosted room's encoder keeps at 38 dB; at 1280x720 its text is 32.5 dB) with her camera, as
/// the second video m-line of one peer connection (Janus 1.1 `descriptions`: "screen"); bob, in
/// the room before her, is told of it (`trackPublished` with `.screenShare`), receives it by its
/// mid (`subscribe(toScreenShareOf:)`) and reads the text as a hosted room's viewer does (text
/// PSNR at least 38 dB, no decoder error), then sees a slide flip. alice then unpublishes the
/// screen share alone and publishes another after her camera (each a renegotiation of the
/// running peer connection: `configure` with a new JSEP offer): bob is told of both, his track
/// ends, and he reads the new one. Unpublishing the camera takes the screen share with it. Runs inside scripts/netns-run.sh's namespace, like the other Janus tests.
@Suite(.serialized) struct JanusScreenShareTests {
    static let screenConfig = CameraEncoderConfig(width: 1920, height: 1080, frameRate: 15)

    @Test func aScreenSharePublishedWithTheCameraReachesAViewerWithLegibleTextAndEndsWithIt() async throws {
        try PrivateNamespace.require(for: "JanusScreenShareTests")
        let harness = try JanusHarness.start()
        defer { harness.stop() }
        let url = harness.url, address = PrivateNamespace.localAddress
        let engines = (alice: MediaEngine(), bob: MediaEngine())
        let bob = try await engines.bob.joinJanusRoom(url: url, room: 1234, participantId: "bob", localAddress: address)
        let bobLog = EventLog(bob)
        #expect(await JanusRoomModelTests.wait(seconds: 5) { bobLog.all.contains(.roomJoined) })

        let alice = try await engines.alice.joinJanusRoom(url: url, room: 1234, participantId: "alice", localAddress: address)
        let screen = try alice.createScreenShareVideoTrack(multiStream: false, encoderConfig: Self.screenConfig)
        try await alice.publish(screen)
        let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
        try await alice.publish(camera)
        await #expect(throws: EngineError.alreadyPublished("screen share")) {
            try await alice.publish(try alice.createScreenShareVideoTrack(multiStream: false, encoderConfig: Self.screenConfig))
        }
        let capture = Capture(camera, width: 640, height: 360)
        let capturing = Task { try await capture.run(seconds: 20) }
        defer { capturing.cancel() }

        // The roster: bob is told alice publishes a screen share (Janus's stream described "screen").
        let published = await JanusRoomModelTests.wait(seconds: 5) { Self.toldOfScreenShare(bobLog, by: "alice") }
        print("bob's events: \(JanusRoomModelTests.roomEvents(bobLog).map(\.description))")
        #expect(published)
        #expect(try await bob.participants.first { $0.id == "alice" }?.tracks.map(\.kind).contains(.screenShare) == true)

        // bob receives it by its mid and reads the text, then a slide flip.
        let scene = try ScreenTestSceneSource(width: 1920, height: 1080, frameRate: 15)
        let slides = [scene.frame(0), scene.frame(scene.framesPerSlide), scene.frame(2 * scene.framesPerSlide)]
        let remote = try await bob.subscribe(toScreenShareOf: "alice")
        let received = ReceivedScreen(remote)
        for slide in 0..<2 { try await Self.show(slides[slide], number: slide, on: screen, until: received) }
        // alice's side: the screen share's own publisher, on the camera's transport (Janus asks for no key
        // frame here: bob's subscription is updated, not started; PublisherBundledFeedbackTests has that path).
        let stats0Frames = received.count
        let sent = try await screen.stats()
        print("alice's screen share: \(sent.framesEncoded) frames encoded, \(sent.framesSkippedUnchanged) unchanged not sent, "
              + "\(sent.keyFramesRequested) key frames requested, over \(sent.transportProtocol.map { "\($0)" } ?? "?")")
        #expect(sent.framesEncoded >= stats0Frames && sent.framesSkippedUnchanged > 0)
        #expect(sent.transportProtocol == .udp && sent.selectedCandidatePair != nil)
        let stats = try await remote.stats()
        print("bob decoded \(stats.framesDecoded) screen frames, \(stats.decoderErrors) decoder errors")
        #expect(stats.decoderErrors == 0)

        // alice unpublishes the screen share alone (a renegotiation takes its m-line out): bob is told, his track ends.
        let unpublished = ContinuousClock.now
        try await alice.unpublish(screen)
        #expect(await JanusRoomModelTests.wait(seconds: 3) {
            bobLog.all.contains(.trackUnpublished(participantId: "alice", track: PublishedTrack(kind: .screenShare))) && received.ended
        })
        print("bob's events: \(JanusRoomModelTests.roomEvents(bobLog).map(\.description))")
        print("bob's screen-share track ended \(ContinuousClock.now - unpublished) after alice unpublished it")
        #expect(!bobLog.all.contains(.trackUnpublished(participantId: "alice", track: PublishedTrack(kind: .camera))))

        // A screen share after the camera (a renegotiation adds the m-line back): bob is told and reads it.
        let publishedAgain = ContinuousClock.now
        let again = try alice.createScreenShareVideoTrack(multiStream: false, encoderConfig: Self.screenConfig)
        try await alice.publish(again)
        #expect(await JanusRoomModelTests.wait(seconds: 3) {
            bobLog.all.filter { $0 == .trackPublished(participantId: "alice", track: PublishedTrack(kind: .screenShare)) }.count == 1
        })
        print("bob told of alice's second screen share \(ContinuousClock.now - publishedAgain) after she published it")
        let remoteAgain = try await bob.subscribe(toScreenShareOf: "alice")
        let receivedAgain = ReceivedScreen(remoteAgain)
        try await Self.show(slides[2], number: 2, on: again, until: receivedAgain)
        #expect(try await remoteAgain.stats().decoderErrors == 0)
        // Unpublishing the camera takes the screen share with it.
        try await alice.unpublish(camera)
        #expect(await JanusRoomModelTests.wait(seconds: 2) { receivedAgain.ended })
        capturing.cancel()
        for engine in [engines.alice, engines.bob] { await engine.close() }
    }
}

extension JanusScreenShareTests {
    /// Shows `slide` for 3 s at 15 fps (the encoder refines the still screen, then goes quiet) and
    /// expects the viewer's latest frame to read it: text PSNR at least 38 dB within 3 s more.
    static func show(_ slide: VideoFrame, number: Int, on track: LocalVideoTrack, until received: ReceivedScreen) async throws {
        for _ in 0..<45 {
            try track.push(slide)
            try await Task.sleep(for: .milliseconds(66))
        }
        let arrived = await JanusRoomModelTests.wait(seconds: 3) {
            received.latest.flatMap { ScreenTestSceneSource.textPSNR($0, against: slide) }.map { $0 >= 38 } ?? false
        }
        let psnr = received.latest.flatMap { ScreenTestSceneSource.textPSNR($0, against: slide) }
        print("slide \(number): the viewer's latest of \(received.count) frames has text PSNR \(psnr.map { String(format: "%.1f", $0) } ?? "none") dB")
        #expect(arrived, "slide \(number): text PSNR \(psnr ?? 0) dB")
    }

    /// Whether `log` says `participantId` publishes a screen share: with the participant's arrival
    /// (`participantJoined` listing it, when Janus first reports the publisher with its streams)
    /// or later (`trackPublished`).
    static func toldOfScreenShare(_ log: EventLog, by participantId: String) -> Bool {
        log.all.contains { event in
            switch event {
            case let .participantJoined(participant): participant.id == participantId && participant.tracks.contains { $0.kind == .screenShare }
            case let .trackPublished(publisher, track): publisher == participantId && track.kind == .screenShare
            default: false
            }
        }
    }
}

/// The frames of a received screen share: the latest, how many, and whether the stream ended.
final class ReceivedScreen: @unchecked Sendable {
    private let lock = NSLockLike()
    private var frame: VideoFrame?
    private var frames = 0
    private var finished = false

    init(_ track: RemoteVideoTrack) {
        Task { [self] in
            for await frame in track.frames { lock.run { self.frame = frame; frames += 1 } }
            lock.run { finished = true }
        }
    }

    var latest: VideoFrame? { lock.run { frame } }
    var count: Int { lock.run { frames } }
    var ended: Bool { lock.run { finished } }
}
