import Foundation
import MediaEngine
import MediaEngineTesting

/// The call `simulcast-bench call` measures (issue 27): a hosted room, two participants, each
/// publishing a 1280x720 camera with three layers and a microphone, each receiving the other's
/// camera at a 1280x720 viewport (so the room forwards the top layer) and microphone (Opus,
/// decoded by the subscription). Set up through the public API of the `MediaEngine` and
/// `MediaEngineTesting` products only, as a client would: the engine paces the sources it plays
/// (`play(from:)`), 30 video frames and 50 audio frames of 20 ms a second per participant.
enum CallScenario {
    static let name = "call"
    static let participantIds = ["alice", "bob"]
    static let summary = "hostRoom(), alice and bob each publish a 1280x720 camera (.h720p, 3 layers, the test scene) "
        + "and a microphone (a 440/660 Hz tone, Opus) and receive the other's at a 1280x720 viewport"

    static func setUp() async throws -> CallSession {
        let engine = MediaEngine()
        let room = try await engine.hostRoom()
        var participants: [LocalParticipant] = []
        for id in participantIds { participants.append(try await room.join(participantId: id)) }
        // A client reads its events; the readers wake only when an event comes.
        var tasks = participants.map { participant in Task { for await _ in participant.events {} } }
        var cameras: [LocalVideoTrack] = [], microphones: [LocalAudioTrack] = []
        for (index, participant) in participants.enumerated() {
            let camera = try participant.createCameraVideoTrack(encoderConfig: .h720p, maxLayer: .three)
            try await participant.publish(camera)  // the camera first: its node forwards the microphone
            let microphone = participant.createMicrophoneAudioTrack()
            try await participant.publish(microphone)
            let seed = UInt64(index + 1), frequency = 440 + 220 * Double(index)
            // The sources play until the engine closes (`.closed`), which ends the call; one that
            // failed shows as frames not played in the summary.
            tasks.append(Task { try? await camera.play(from: TestSceneSource(width: 1280, height: 720, seed: seed)) })
            tasks.append(Task { try? await microphone.play(from: ToneSource(frequencyHz: frequency)) })
            cameras.append(camera)
            microphones.append(microphone)
        }
        var remotes: [RemoteVideoTrack] = []
        for (subscriber, publisher) in zip(participants, participants.reversed()) {
            let remote = try await subscriber.subscribe(to: publisher.id)
            try await remote.setViewPort(width: 1280, height: 720)
            tasks.append(Task { for await _ in remote.frames {} })
            remotes.append(remote)
        }
        return CallSession(engine: engine, room: room, participants: participants, cameras: cameras,
                           microphones: microphones, remotes: remotes, tasks: tasks, startedAt: Date())
    }
}

/// The call while it runs: what a client holds, and the tasks that play its sources and read
/// its streams.
struct CallSession: BenchChildSession {
    let engine: MediaEngine
    let room: Room
    let participants: [LocalParticipant]
    /// Per participant, in `participants`' order.
    let cameras: [LocalVideoTrack]
    let microphones: [LocalAudioTrack]
    /// What participant i receives: the other participant's camera.
    let remotes: [RemoteVideoTrack]
    let tasks: [Task<Void, Never>]
    let startedAt: Date

    /// `CallSummary` as one line of JSON.
    func summaryLine() async -> String? {
        var summary = CallSummary(seconds: Date().timeIntervalSince(startedAt), participants: [])
        for (index, participant) in participants.enumerated() {
            let sent = try? await cameras[index].stats()
            let received = try? await remotes[index].stats()
            summary.participants.append(CallSummary.Participant(
                id: participant.id, videoFramesPlayed: cameras[index].framesPlayed,
                videoFramesEncoded: sent?.framesEncoded, sendingLayers: sent?.sendingLayers,
                audioFramesPlayed: microphones[index].framesPlayed,
                receivedFrom: remotes[index].publisherId, framesDecoded: received?.framesDecoded,
                frameSize: received?.frameSize.map { "\($0.width)x\($0.height)" },
                spatialLayer: received?.currentSpatialLayer, freezeCount: received?.freezeCount,
                packetsLost: received?.packetsLost, decoderErrors: received?.decoderErrors,
                receivedKilobitsPerSecond: received.map { Double($0.bitsPerSecond) / 1000 }))
        }
        guard let data = try? JSONEncoder().encode(summary) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// Closes the engine, which stops the sources and ends every stream, so the tasks finish.
    func close() async {
        await engine.close()
        for task in tasks { await task.value }
    }
}
