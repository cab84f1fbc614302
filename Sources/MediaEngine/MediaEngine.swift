/// The media engine a client links (ARCHITECTURE "engine"): it owns one thread, its sockets,
/// timers, pacing and RTCP schedule; the app never writes a run loop. Create it, host or join
/// a room, publish a camera, push frames from the capture callback, read events.
///
///     let engine = MediaEngine()
///     let room = try await engine.hostRoom()
///     let alice = try await room.join(participantId: "alice")
///     let camera = try alice.createCameraVideoTrack()
///     try await alice.publish(camera)
///     try camera.push(frame)          // from any thread, at the capture rate
///     await engine.close()
///
/// `Sendable`: every method may be called from any thread or task.
public final class MediaEngine: Sendable {
    let loop: EngineLoop

    /// Starts the engine's thread.
    public init() {
        loop = EngineLoop()
    }

    /// Hosts a room on this machine's loopback interface (the engine's in-process SFU: one
    /// forwarding node per published camera, SPEC §3–5), with SPEC §7's options.
    public func hostRoom(options: RoomOptions = RoomOptions()) async throws(EngineError) -> Room {
        let id = try await loop.perform { runtime throws(EngineError) in runtime.hostRoom(options: options).id }
        return Room(id: id, options: options, loop: loop)
    }

    /// Stops the engine: every participant says goodbye (RTCP BYE), every event and frame
    /// stream finishes, the thread ends. Calling it again does nothing.
    public func close() async {
        await loop.stop()
    }

    /// An engine let go of without `close()` stops the same way, without waiting: its thread
    /// ends and the rooms, tracks and participants still held answer `EngineError.closed`.
    deinit {
        loop.requestStop()
    }
}
