import Foundation
import Glibc
import MediaEngine
import MediaEngineTesting
import Testing

/// Microphones and recordings in a hosted room on virtual time (`VirtualTimeEngine`): the room
/// finds who speaks from the RFC 6464 levels its subscribers receive, a muted mic never takes
/// the stage, sources play every frame at their pace of virtual time, and a recording holds what
/// arrived. Bad audio input stays a real-time test (`MicrophoneAndSpeakerTests`).
@Suite struct VirtualTimeSpeakerTests {
    @Test func theRoomNamesTheSpeakerAndAMutedMicNeverTakesTheStage() async throws {
        let virtual = VirtualTimeEngine()
        let room = try await virtual.engine.hostRoom(options: RoomOptions(autoConsume: false))
        var mics: [LocalAudioTrack] = []
        var cameras: [LocalVideoTrack] = []
        for id in ["alice", "bob"] {
            let participant = try await room.join(participantId: id)
            let camera = try participant.createCameraVideoTrack(encoderConfig: .h360p, multiStream: false)
            let mic = participant.createMicrophoneAudioTrack()
            try await participant.publish(camera)
            try await participant.publish(mic)
            cameras.append(camera)
            mics.append(mic)
        }
        let (aliceMic, bobMic, aliceCam, bobCam) = (mics[0], mics[1], cameras[0], cameras[1])
        try await bobMic.setMuted(true)
        let carol = try await room.join(participantId: "carol")
        let remotes = [try await carol.subscribe(to: "alice"), try await carol.subscribe(to: "bob")]

        // Both "speak" the same tone for 3 s (150 frames); bob's mic is muted, so the room hears
        // only alice. Cameras play 90 frames each.
        let started = virtual.now
        let playing = [await virtual.play(ToneSource(talkFrames: 50, frames: 150), on: aliceMic),
                       await virtual.play(ToneSource(talkFrames: 50, frames: 150), on: bobMic),
                       await virtual.play(try TestSceneSource(width: 640, height: 360, frames: 90), on: aliceCam),
                       await virtual.play(try TestSceneSource(width: 640, height: 360, frames: 90), on: bobCam)]
        #expect(await virtual.advance(until: { mics.allSatisfy { $0.framesPlayed == 150 } && cameras.allSatisfy { $0.framesPlayed == 90 } },
                                      within: .seconds(5), step: .milliseconds(10)))
        // Paced: 150 frames of 20 ms cannot all have gone out in less than 2.98 s.
        #expect(virtual.now - started >= .milliseconds(2_980))
        virtual.advance(by: .milliseconds(100))  // the sources' ends reached and the last frames delivered
        for play in playing { try await play.value }
        // Every frame of a source is encoded: none is dropped on the way in.
        #expect(try await aliceCam.stats().framesEncoded == 90)
        #expect(aliceMic.framesDropped == 0)

        let events = virtual.events(of: carol)
        let snapshots = events.compactMap { event -> [ActiveSpeaker]? in
            if case let .activeSpeakersChanged(speakers) = event { return speakers }
            return nil
        }
        let dominant = events.compactMap { event -> String?? in
            if case let .dominantSpeakerChanged(id) = event { return id }
            return nil
        }
        #expect(snapshots.contains { $0.first?.participantId == "alice" && $0.first?.trackId == aliceMic.id })
        #expect(snapshots.allSatisfy { !$0.contains { $0.participantId == "bob" } })
        #expect(dominant.first == "alice")
        #expect(!dominant.contains("bob"))
        #expect(try await remotes[0].stats().framesDecoded >= 60)
        await virtual.close()
    }

    @Test func aRecordingHoldsWhatArrived() async throws {
        let virtual = VirtualTimeEngine()
        let room = try await virtual.engine.hostRoom()
        let alice = try await room.join(participantId: "alice")
        let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
        try await alice.publish(camera)
        let bob = try await room.join(participantId: "bob")
        let remote = try await bob.subscribe(to: "alice")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("virtual-recording-\(getpid()).ivf").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await remote.startRecording(ivfPath: path)
        let playing = await virtual.play(try TestSceneSource(width: 640, height: 360, frames: 30), on: camera)
        #expect(await virtual.advance(until: { camera.framesPlayed == 30 }, within: .seconds(2)))
        virtual.advance(by: .milliseconds(100))
        try await playing.value
        try await remote.stopRecording()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.count > 32 && Array(bytes[0..<4]) == Array("DKIF".utf8))
        #expect(Array(bytes[8..<12]) == Array("VP80".utf8))
        // The frame count (bytes 24-27, little endian): every frame forwarded to bob, at most 30.
        let frames = Int(bytes[24]) | Int(bytes[25]) << 8 | Int(bytes[26]) << 16 | Int(bytes[27]) << 24
        #expect(frames >= 25 && frames <= 30)
        await #expect(throws: EngineError.self) { try await remote.startRecording(ivfPath: "/nonexistent/dir/x.ivf") }
        await virtual.close()
    }
}
