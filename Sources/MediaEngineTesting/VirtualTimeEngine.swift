import MediaEngine
internal import EngineCore
import Synchronization

/// A whole `MediaEngine` on virtual time (issue 27 item 4), for deterministic tests of hosted
/// rooms: participants, published cameras, microphones and screen shares, subscriptions, and
/// the public events, over an in-memory network (`VirtualNetworkConditions`: delay, loss, a
/// squeezed downlink) with real libvpx, libopus and libsrtp doing the work. Modelled on
/// swift-nio's `NIOEmbedded` (`EmbeddedEventLoop.advanceTime(by:)`): no engine thread; every
/// call of the public API runs at once on the caller's thread, and nothing else happens until
/// the test calls `advance(by:)`, which runs every pass, timer and datagram due on the way, on
/// the calling thread, at its own virtual instant. A source played into a track yields a frame
/// per frame interval of virtual time (30 fps: one every 33.3 ms).
///
/// The same seed (SSRCs, keys, credentials, the network's losses) and the same calls give the
/// same run, event for event:
///
///     let virtual = VirtualTimeEngine(seed: 7)
///     let room = try await virtual.engine.hostRoom()
///     let alice = try await room.join(participantId: "alice")
///     let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
///     try await alice.publish(camera)
///     let bob = try await room.join(participantId: "bob")
///     let remote = try await bob.subscribe(to: "alice")
///     _ = await virtual.play(TestSceneSource(width: 640, height: 360, frames: 300), on: camera)
///     virtual.advance(by: .seconds(2))
///     print(try await remote.stats().framesDecoded, virtual.events(of: bob))
///
/// Hosted rooms only: `joinJanusRoom` and `sendPlainRTP` open real sockets and are not for it.
/// `Sendable`, but meant for one test task: calls from several tasks are serialised, in
/// whatever order they come.
public final class VirtualTimeEngine: Sendable {
    /// The engine: use its public API as a client does.
    public let engine: MediaEngine
    private let driver: VirtualTimeLoop

    /// An engine whose random numbers come from `seed`, on a network where every datagram meets
    /// `network` (each way).
    public init(seed: UInt64 = 1, network: VirtualNetworkConditions = .loopback) {
        let simulated = SimulatedNetwork(bottleneck: .transparent, otherPaths: network.impairment,
                                         startMicroseconds: Self.startMicroseconds)
        driver = VirtualTimeLoop(network: simulated, seed: seed)
        engine = MediaEngine(scheduler: driver)
    }

    /// Virtual time since the engine was made.
    public var now: Duration { .microseconds(driver.nowMicroseconds - Self.startMicroseconds) }

    /// Moves virtual time on by `duration`, running every pass of the engine due on the way
    /// (sending paced frames, forwarding, feedback, timers, events). Returns the passes run.
    @discardableResult
    public func advance(by duration: Duration) -> Int {
        driver.advance(byMicroseconds: duration.microseconds)
    }

    /// Advances `step` at a time until `condition` holds (checked before the first step and
    /// after each), for at most `limit` of virtual time; returns whether it held.
    public func advance(until condition: () async throws -> Bool, within limit: Duration,
                        step: Duration = .milliseconds(20)) async rethrows -> Bool {
        let deadline = now + limit
        while true {
            if try await condition() { return true }
            guard now < deadline else { return false }
            advance(by: min(step, deadline - now))
        }
    }

    /// Every event `participant` was told so far, in order (its `events` stream carries the
    /// same; this log needs no reader and keeps them all).
    public func events(of participant: LocalParticipant) -> [ParticipantEvent] {
        driver.events(of: participant.id)
    }

    /// Sends everything `participant` receives (each of its subscriptions, made now or later)
    /// through a bottleneck with `conditions` instead of the network's own; nil: nobody's.
    /// One participant at a time.
    public func impairDownlink(of participant: LocalParticipant?, with conditions: VirtualNetworkConditions) {
        driver.impairDownlink(of: participant?.id, with: conditions.impairment)
    }

    /// Datagrams the impaired downlink dropped so far (loss and a full queue).
    public var droppedByImpairedDownlink: Int { driver.bottleneckStatistics.dropped }

    /// Starts `track.play(from: source)` and returns once the source is attached (or the play
    /// already ended), so the next `advance` pulls its frames; the task ends when the source does.
    public func play(_ source: sending any VideoFrameSource, on track: LocalVideoTrack) async -> Task<Void, any Error> {
        // `source` was sent here and goes on to the one task alone.
        nonisolated(unsafe) let handed = source
        return await start({ try await track.play(from: handed) }, attached: { track.isPlayingSource })
    }

    /// `play(_:on:)` for a microphone.
    public func play(_ source: sending any AudioFrameSource, on track: LocalAudioTrack) async -> Task<Void, any Error> {
        nonisolated(unsafe) let handed = source
        return await start({ try await track.play(from: handed) }, attached: { track.isPlayingSource })
    }

    /// Runs `play` in a task and yields until `attached()` holds or the task ended: only
    /// scheduling is waited for, never virtual time.
    private func start(_ play: @escaping @Sendable () async throws -> Void,
                       attached: () -> Bool) async -> Task<Void, any Error> {
        let ended = PlayEnded()
        let task = Task {
            defer { ended.mark() }
            try await play()
        }
        while !attached(), !ended.value { await Task.yield() }
        return task
    }

    /// Stops the engine as `MediaEngine.close()` does.
    public func close() async {
        await engine.close()
    }

    /// Where `SimulatedNetwork` starts its clock.
    private static let startMicroseconds: Int64 = 1_000_000
}

/// Whether a playing task has ended (read by the task that waits for the source to attach).
private final class PlayEnded: Sendable {
    private let ended = Atomic<Bool>(false)

    func mark() { ended.store(true, ordering: .releasing) }
    var value: Bool { ended.load(ordering: .acquiring) }
}
