import Glibc
import MediaEngine

/// Synthetic camera frames: a packed I420 picture whose bars move with `index`, so every frame
/// differs (what a capture callback would hand over).
func capturedFrame(width: Int, height: Int, index: Int) throws -> VideoFrame {
    var bytes = [UInt8](repeating: 128, count: width * height * 3 / 2)
    for row in 0..<height {
        for column in 0..<width {
            bytes[row * width + column] = UInt8(truncatingIfNeeded: (column + row / 2 + index * 6) / 3 & 0xFF)
        }
    }
    return try VideoFrame(packedI420: bytes, width: width, height: height)
}

/// A capture callback: pushes frames at `fps` (real time) into a track, numbering them on.
final class Capture: @unchecked Sendable {
    let track: LocalVideoTrack
    let width: Int, height: Int, fps: Int
    private var index = 0

    init(_ track: LocalVideoTrack, width: Int, height: Int, fps: Int = 30) {
        self.track = track
        self.width = width
        self.height = height
        self.fps = fps
    }

    /// Pushes frames for `seconds`.
    func run(seconds: Double) async throws {
        for _ in 0..<Int(seconds * Double(fps)) { try await pushOne() }
    }

    /// Pushes frames until `condition` holds (checked after each), for at most `seconds`;
    /// returns whether it held.
    func run(until condition: () -> Bool, within seconds: Double) async throws -> Bool {
        for _ in 0..<Int(seconds * Double(fps)) {
            try await pushOne()
            if condition() { return true }
        }
        return condition()
    }

    private func pushOne() async throws {
        try track.push(try capturedFrame(width: width, height: height, index: index))
        index += 1
        try await Task.sleep(nanoseconds: UInt64(1_000_000_000 / fps))
    }
}

/// Collects a participant's events in the background.
final class EventLog: @unchecked Sendable {
    private var events: [ParticipantEvent] = []
    private let lock = NSLockLike()
    private var task: Task<Void, Never>?

    init(_ participant: LocalParticipant) {
        task = Task { [self] in
            for await event in participant.events { lock.run { events.append(event) } }
        }
    }

    var all: [ParticipantEvent] { lock.run { events } }

    /// The first `.publishedToSFU` event, waited for up to `seconds` (the event reaches the log
    /// through its reading task, which may run after `publish` returned).
    func publication(within seconds: Double = 2) async throws -> SFUPublication? {
        for _ in 0..<max(1, Int(seconds * 50)) {
            if let found = all.compactMap({ if case let .publishedToSFU(p) = $0 { p } else { nil } }).first { return found }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// The `.protocolSwitched` events so far.
    var protocolSwitches: [ProtocolSwitch] {
        all.compactMap { event in
            if case let .protocolSwitched(change) = event { return change }
            return nil
        }
    }
}

/// A tiny lock without Foundation (the test imports only MediaEngine).
final class NSLockLike: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    func run<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}

/// Alice publishes a 640x360 camera in a hosted room, Bob subscribes: the setup of the call tests.
struct AliceToBobCall {
    let engine: MediaEngine
    let alice: LocalParticipant
    let bob: LocalParticipant
    let bobEvents: EventLog
    let camera: LocalVideoTrack
    let remote: RemoteVideoTrack
    let sizes: SizeLog

    static func start(options: RoomOptions = RoomOptions()) async throws -> AliceToBobCall {
        let engine = MediaEngine()
        let room = try await engine.hostRoom(options: options)
        let alice = try await room.join(participantId: "alice")
        let bob = try await room.join(participantId: "bob")
        let bobEvents = EventLog(bob)
        let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
        try await alice.publish(camera)
        let remote = try await bob.subscribe(to: "alice")
        return AliceToBobCall(engine: engine, alice: alice, bob: bob, bobEvents: bobEvents, camera: camera, remote: remote,
                              sizes: SizeLog(remote))
    }
}
