import MediaEngine
import MediaEngineTesting

/// What the process `simulcast-bench idle` measures holds while it idles: set up through the
/// public API of the `MediaEngine` product only, as a client would (README, Examples/CallApp).
/// Nothing sends a frame: every wake-up measured is the engine's own (timers, keep-alives,
/// RTCP) or the runtime's.
enum IdleScenario: String, CaseIterable, Sendable {
    /// Nothing at all: the floor the Swift runtime and this executable have. On Linux that is
    /// about 1 wake-up a second: libdispatch's event thread re-arms a 1 s timerfd (its worker
    /// pool monitor) while it has worker threads, which any process that used Dispatch has.
    case sleep
    /// `MediaEngine()`, nothing else.
    case engine
    /// A hosted room, two participants joined.
    case room
    /// The room, alice publishing a camera track no frame is pushed into, bob subscribed to it.
    case camera
    /// Not idle: an audio-only call, what the engine's deadlines cost while little media flows
    /// (50 packets a second each way). Alice and bob each publish a camera with no frames (its
    /// node forwards the microphone) and a microphone playing a tone, each subscribed to the other.
    case audioCall = "audio-call"

    var summary: String {
        switch self {
        case .sleep: return "a process that only sleeps"
        case .engine: return "MediaEngine(), nothing else"
        case .room: return "hostRoom(), two participants joined"
        case .camera: return "the room, alice publishing a camera with no frames, bob subscribed to it"
        case .audioCall: return "the room, alice and bob each publishing a microphone (Opus tone, 50 frames/s) and subscribed to the other"
        }
    }

    /// Sets the scenario up; what it returns keeps it alive until `close()`.
    func setUp() async throws -> IdleScenarioSession {
        guard self != .sleep else { return IdleScenarioSession(engine: nil, held: [], drains: []) }
        let engine = MediaEngine()
        guard self != .engine else { return IdleScenarioSession(engine: engine, held: [], drains: []) }
        let room = try await engine.hostRoom()
        let alice = try await room.join(participantId: "alice")
        let bob = try await room.join(participantId: "bob")
        // A client reads its events; the readers wake only when an event comes.
        var drains = [alice, bob].map { participant in Task { for await _ in participant.events {} } }
        if self == .audioCall { return try await setUpAudioCall(engine: engine, room: room, participants: [alice, bob], drains: drains) }
        guard self == .camera else { return IdleScenarioSession(engine: engine, held: [room, alice, bob], drains: drains) }
        let camera = try alice.createCameraVideoTrack()
        try await alice.publish(camera)
        let remote = try await bob.subscribe(to: "alice")
        drains.append(Task { for await _ in remote.frames {} })
        return IdleScenarioSession(engine: engine, held: [room, alice, bob, camera, remote], drains: drains)
    }

    /// `audioCall`: every participant's (frameless) camera and tone-playing microphone, and each
    /// subscribed to the other, whose microphone comes with the subscription.
    private func setUpAudioCall(engine: MediaEngine, room: Room, participants: [LocalParticipant],
                                drains: [Task<Void, Never>]) async throws -> IdleScenarioSession {
        var held: [any Sendable] = [room] + participants, drains = drains
        for (index, participant) in participants.enumerated() {
            let camera = try participant.createCameraVideoTrack()
            try await participant.publish(camera)  // the camera first: its node forwards the microphone
            let microphone = participant.createMicrophoneAudioTrack()
            try await participant.publish(microphone)
            let frequency = 440 + 220 * Double(index)
            drains.append(Task { try? await microphone.play(from: ToneSource(frequencyHz: frequency)) })
            held += [camera, microphone] as [any Sendable]
        }
        for (subscriber, publisher) in zip(participants, participants.reversed()) {
            let remote = try await subscriber.subscribe(to: publisher.id)
            drains.append(Task { for await _ in remote.frames {} })
            held.append(remote)
        }
        return IdleScenarioSession(engine: engine, held: held, drains: drains)
    }
}

/// A scenario that is set up: the engine, the objects a client would hold (room, participants,
/// tracks: held, so nothing the scenario made is let go of while it idles) and the tasks that
/// read their streams. The parent stops an idle child with SIGTERM: it has no summary.
struct IdleScenarioSession: BenchChildSession {
    let engine: MediaEngine?
    let held: [any Sendable]
    let drains: [Task<Void, Never>]

    func summaryLine() async -> String? { nil }

    /// Closes the engine, which ends every stream, so the readers finish.
    func close() async {
        await engine?.close()
        for drain in drains { await drain.value }
    }
}
