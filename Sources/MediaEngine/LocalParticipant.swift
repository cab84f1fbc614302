import Simulcast
import MediaCodecs
internal import EngineCore

/// A participant of this engine in a room: publishes its camera, receives others' (LiveKit's
/// `LocalParticipant`, VideoSDK's local participant). `Sendable`.
public final class LocalParticipant: Sendable {
    public let id: String
    /// Everything that happens to this participant, in order (the newest 256 are kept when
    /// nobody reads; nothing grows with the call).
    public let events: AsyncStream<ParticipantEvent>
    let roomId: String
    let options: RoomOptions
    let loop: any EngineScheduler
    /// What it sends and receives (SPEC §8, docs/room-model.md).
    public let mode: RoomMode

    init(id: String, roomId: String, options: RoomOptions, events: AsyncStream<ParticipantEvent>, loop: any EngineScheduler,
         mode: RoomMode = .sendAndRecv) {
        self.mode = mode
        self.id = id
        self.roomId = roomId
        self.options = options
        self.events = events
        self.loop = loop
    }

    /// A camera track (docs/layer-plan.md), not yet published. `encoderConfig` nil: the room's
    /// `maxResolution` (1280x720, or 960x540 for `.sd`). `multiStream` false: one layer.
    /// `maxLayer .two` drops the middle layer of three.
    public func createCameraVideoTrack(encoderConfig: CameraEncoderConfig? = nil, multiStream: Bool = true,
                                       maxLayer: MaxLayer = .three) throws(EngineError) -> LocalVideoTrack {
        let config = encoderConfig ?? (options.maxResolution == .hd ? .h720p : .h540p)
        let plan: LayerPlan
        do {
            plan = try LayerPlan(width: config.width, height: config.height, multiStream: multiStream, maxLayer: maxLayer)
        } catch {
            throw .invalidConfiguration("\(error)")
        }
        guard (1...60).contains(config.frameRate) else {
            throw .invalidConfiguration("frame rate \(config.frameRate) outside 1...60")
        }
        return LocalVideoTrack(settings: CameraSettings(config: config, multiStream: multiStream, maxLayer: maxLayer),
                               layerSizes: plan.layers.map { VideoSize(width: $0.width, height: $0.height) },
                               participantId: id, roomId: roomId, loop: loop)
    }

    /// A screen-share track (docs/joining-a-room.md, issue 17), not yet published; publish it beside the camera
    /// with `publish(_:)`. `encoderConfig` is the largest picture sent (default 1920x1080 at
    /// 15 fps): captures of any size up to 2560x1440 are fitted into it whole and centred, never
    /// upscaled. `multiStream` adds a half-resolution layer (1920x1080 + 960x540) when the config's
    /// longer edge is at least 640. Encoded for screens: VP8 screen-content mode, two temporal
    /// layers, and frames only when the screen changes (see `SimulcastEncoder`).
    public func createScreenShareVideoTrack(multiStream: Bool = true,
                                            encoderConfig: CameraEncoderConfig = .screen1080p) throws(EngineError) -> LocalVideoTrack {
        let settings = CameraSettings(config: encoderConfig, multiStream: multiStream, maxLayer: .two, content: .screen)
        let plan: LayerPlan
        do {
            plan = try settings.plan()
            try SimulcastEncoder.validateScreenCapture(width: encoderConfig.width, height: encoderConfig.height)
        } catch {
            throw .invalidConfiguration("\(error)")
        }
        guard (1...60).contains(encoderConfig.frameRate) else {
            throw .invalidConfiguration("frame rate \(encoderConfig.frameRate) outside 1...60")
        }
        return LocalVideoTrack(settings: settings, layerSizes: plan.layers.map { VideoSize(width: $0.width, height: $0.height) },
                               participantId: id, roomId: roomId, loop: loop)
    }

    /// A microphone track (20 ms frames of 48 kHz PCM, Opus), not yet published.
    public func createMicrophoneAudioTrack() -> LocalAudioTrack {
        LocalAudioTrack(participantId: id, roomId: roomId, loop: loop)
    }

    /// Publishes the microphone beside the published camera (the room forwards both through the
    /// participant's node; publish the camera first): from now on its frames are encoded and sent.
    public func publish(_ track: LocalAudioTrack) async throws(EngineError) {
        let (participantId, feed, trackId) = (id, track.feed, track.id)
        try await publish(track.participantId, mark: track.markPublished, unmark: track.markUnpublished) { room, runtime, finish in
            finish(Result { () throws(EngineError) in try room.publishMicrophone(participantId, trackId: trackId, feed: feed, runtime: runtime) })
        }
    }

    /// Publishes the camera or the screen share: from now on pushed frames are encoded and sent.
    /// A screen share goes out beside the camera on its own SSRCs, RIDs and MID ("2").
    public func publish(_ track: LocalVideoTrack) async throws(EngineError) {
        let (participantId, settings, feed, trackId) = (id, track.settings, track.feed, track.id)
        try await publish(track.participantId, mark: track.markPublished, unmark: track.markUnpublished) { room, runtime, finish in
            switch settings.content {
            case .camera:
                room.startPublishingCamera(participantId, trackId: trackId, settings: settings, feed: feed, runtime: runtime, completion: finish)
            case .screen:
                finish(Result { () throws(EngineError) in
                    try room.publishScreenShare(participantId, trackId: trackId, settings: settings, feed: feed, runtime: runtime)
                })
            }
        }
    }

    /// Marks a track of `owner` published, runs `body` with the room on the loop (it hands its
    /// outcome to the completion, at once or once connected), and unmarks it if that fails.
    private func publish(_ owner: String, mark: () throws(EngineError) -> Void, unmark: () -> Void,
                         _ body: @escaping @Sendable (any RoomBackend, EngineRuntime,
                                                      @escaping @Sendable (Result<Void, EngineError>) -> Void) -> Void) async throws(EngineError) {
        guard owner == id else { throw .notAllowed("track of \(owner) published by \(id)") }
        guard mode.publishes else { throw .notAllowedInMode(mode, action: "publishing") }
        try mark()
        let roomId = roomId
        do {
            try await loop.performDeferred { runtime, finish throws(EngineError) in
                guard let room = runtime.rooms[roomId] else { throw .closed("room \(roomId)") }
                body(room, runtime, finish)
            }
        } catch {
            unmark()
            throw error
        }
    }

    /// Receives `publisherId`'s camera (on-demand receiving when `autoConsume` is off; with it
    /// on, returns the subscription the room already made).
    public func subscribe(to publisherId: String) async throws(EngineError) -> RemoteVideoTrack {
        try await subscribe(publisherId, source: .camera)
    }

    /// Receives `publisherId`'s screen share (issue 17; with `autoConsume` on, returns the
    /// subscription the room already made). Choose its layer with `setScreenShareQuality(_:)`.
    public func subscribe(toScreenShareOf publisherId: String) async throws(EngineError) -> RemoteVideoTrack {
        try await subscribe(publisherId, source: .screen)
    }

    private func subscribe(_ publisherId: String, source: VideoContent) async throws(EngineError) -> RemoteVideoTrack {
        guard mode.receives else { throw .notAllowedInMode(mode, action: "subscribing") }
        let (roomId, subscriberId) = (roomId, id)
        let key = source == .screen ? RoomNode.screenShareKey(of: publisherId) : publisherId
        let frames = try await loop.performDeferred { runtime, finish throws(EngineError) in
            guard let room = runtime.rooms[roomId] else { throw .closed("room \(roomId)") }
            room.startSubscribing(subscriberId, to: key, runtime: runtime) { finish($0.map(\.frameStream)) }
        }
        return RemoteVideoTrack(publisherId: publisherId, source: source, subscriberId: id, roomId: roomId, frames: frames, loop: loop)
    }

    /// Consumes `publisherId`'s microphone (issue 28; docs/receiving.md "Remote audio"): decoded
    /// 48 kHz PCM in 20 ms blocks from the returned track until `stopConsuming()` on it. In a
    /// hosted room `publisherId` is the participant id; in a Janus room, the participant id or its
    /// feed id (as for `subscribe(to:)`; with `autoConsume` the stream is already received and this
    /// starts its playout). Consuming the same microphone twice is `.notAllowed` (stop the first).
    public func subscribe(toMicrophoneOf publisherId: String) async throws(EngineError) -> RemoteAudioTrack {
        let (roomId, subscriberId) = (roomId, id)
        let frames = try await loop.performDeferred { runtime, finish throws(EngineError) in
            guard let room = runtime.rooms[roomId] else { throw .closed("room \(roomId)") }
            room.startConsumingMicrophone(subscriberId, of: publisherId, runtime: runtime) { finish($0.map(\.frameStream)) }
        }
        return RemoteAudioTrack(publisherId: publisherId, frames: frames, subscriber: self)
    }

    /// Leaves the room: the camera says goodbye, every stream of this participant finishes.
    public func leave() async {
        let (roomId, participantId) = (roomId, id)
        _ = try? await loop.perform { runtime throws(EngineError) in runtime.rooms[roomId]?.leave(participantId) }
    }
}
