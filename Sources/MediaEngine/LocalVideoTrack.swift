import Foundation
import MediaCodecs
import Simulcast
internal import EngineCore

/// How a video track encodes (kept for publishing): a camera or a screen share.
struct CameraSettings: Sendable {
    var config: CameraEncoderConfig
    var multiStream: Bool
    var maxLayer: MaxLayer
    var content: VideoContent = .camera

    /// The layers published: docs/layer-plan.md for a camera, `LayerPlan(screenShareWidth:height:multiStream:)`
    /// for a screen share.
    func plan() throws(LayerPlanError) -> LayerPlan {
        switch content {
        case .camera: return try LayerPlan(width: config.width, height: config.height, multiStream: multiStream, maxLayer: maxLayer)
        case .screen: return try LayerPlan(screenShareWidth: config.width, height: config.height, multiStream: multiStream)
        }
    }
}

/// A camera track (LiveKit's `LocalVideoTrack`, VideoSDK's `createCameraVideoTrack`) or a screen
/// share (`createScreenShareVideoTrack`): push captured frames into it from the capture callback,
/// any size, I420/NV12/BGRA; the engine scales and centre-crops a camera's frames to the encoder
/// size (a screen's are fitted whole, never upscaled, and may be at most 2560x1440), timestamps
/// and paces them at the frame rate (a frame pushed before the previous one was taken replaces it
/// and is counted as dropped). `Sendable`: push from any thread.
public final class LocalVideoTrack: Sendable {
    public let id: String
    /// What the track shows: `.camera` or `.screen`.
    public let source: VideoContent
    /// The simulcast layers it publishes, lightest first (docs/layer-plan.md).
    public let layerSizes: [VideoSize]
    let settings: CameraSettings
    let participantId: String
    let roomId: String
    let loop: any EngineScheduler
    /// Pushed frames wait here (the newest one: the engine paces to the frame rate).
    let feed = TrackFeed<VideoFrame>(capacity: 1)
    private let state: TrackState
    /// The room's key for this track's video (the participant id, or its screen-share key).
    let publisherKey: String

    init(settings: CameraSettings, layerSizes: [VideoSize], participantId: String, roomId: String, loop: any EngineScheduler) {
        let screen = settings.content == .screen
        id = "\(screen ? "screen" : "camera")-\(participantId)"
        state = TrackState(kind: screen ? "screen share" : "camera")
        publisherKey = screen ? RoomNode.screenShareKey(of: participantId) : participantId
        source = settings.content
        self.settings = settings
        self.layerSizes = layerSizes
        self.participantId = participantId
        self.roomId = roomId
        self.loop = loop
        feed.onPut = { [loop] in loop.wake() }  // a pushed frame leaves at once, even after idle
    }

    /// Hands one captured frame to the engine. Throws `.closed` after `close()`; frames pushed
    /// before `publish` are dropped (counted in `framesDropped`).
    public func push(_ frame: VideoFrame) throws(EngineError) {
        guard !state.isClosed else { throw .closed("\(state.kind) track \(id)") }
        if settings.content == .screen {
            do {
                try SimulcastEncoder.validateScreenCapture(width: frame.width, height: frame.height)
            } catch {
                throw .invalidFrame("\(error)")
            }
        }
        feed.put(frame)
    }

    /// Plays `source` instead of pushed frames: the engine pulls one frame per frame interval
    /// once the track is published. Returns when the source ends; throws `.closed` if the track
    /// or engine closes first, `.invalidFrame` if the source fails.
    public func play(from source: sending any VideoFrameSource) async throws(EngineError) {
        try await state.play(source, on: feed, trackId: id)
    }

    /// Pushes a BGRA capture buffer (`stride` bytes per row).
    public func push(bgra bytes: [UInt8], width: Int, height: Int, stride: Int) throws(EngineError) {
        let frame: VideoFrame
        do {
            frame = try VideoFrame(bgra: bytes, stride: stride, width: width, height: height)
        } catch {
            throw .invalidFrame("\(error)")
        }
        try push(frame)
    }

    /// Pushes a packed I420 buffer (Y, then U, then V, no padding).
    public func push(i420 bytes: [UInt8], width: Int, height: Int) throws(EngineError) {
        let frame: VideoFrame
        do {
            frame = try VideoFrame(packedI420: bytes, width: width, height: height)
        } catch {
            throw .invalidFrame("\(error)")
        }
        try push(frame)
    }

    /// Frames pushed, and of those dropped (replaced before the engine took them, or pushed
    /// before the track was published).
    public var framesPushed: Int { feed.counts.pushed }
    public var framesDropped: Int { feed.counts.dropped }
    /// Frames the engine took from sources played into the track (`play(from:)`).
    public var framesPlayed: Int { feed.counts.played }

    /// docs/sending-caps.md webcam cap: `.high` every layer, `.medium` stops the largest, `.low` only the
    /// smallest. Receivers learn it in band (an RTCP BYE for the layers it stops) and move down
    /// at once. On a screen-share track it caps the screen share's own layers the same way.
    public func setWebcamQuality(_ quality: VideoQuality) async throws(EngineError) {
        let (roomId, participantId) = (roomId, publisherKey)
        guard state.isPublished else { throw .notAllowed("set the quality cap of a published \(state.kind)") }
        try await loop.perform { runtime throws(EngineError) in
            guard let room = runtime.rooms[roomId] else { throw .closed("room \(roomId)") }
            do {
                try room.videoPublisher(of: participantId).setWebcamQuality(quality)
            } catch let error as EngineError {
                throw error
            } catch {
                throw .notAllowed("\(error)")
            }
        }
    }

    /// What the camera's publisher did so far.
    public func stats() async throws(EngineError) -> LocalVideoStats {
        let (roomId, participantId, key, kind) = (roomId, participantId, publisherKey, state.kind)
        guard state.isPublished else { throw .notPublished(participant: participantId, track: kind) }
        return try await loop.perform { runtime throws(EngineError) in
            guard let room = runtime.rooms[roomId] else { throw .closed("room \(roomId)") }
            let publisher = try room.videoPublisher(of: key)
            var stats = LocalVideoStats(framesEncoded: publisher.videoFramesEncoded, keyFramesRequested: publisher.keyFramesRequested,
                                        sendingLayers: publisher.sendingLayers,
                                        framesSkippedUnchanged: publisher.encoder?.framesSkippedUnchanged ?? 0)
            stats.transportProtocol = try room.videoTransportProtocol(of: key)
            stats.selectedCandidatePair = try room.videoCandidatePair(of: key)
            return stats
        }
    }

    /// Stops the track: later pushes throw `.closed`, a playing source stops. Calling it again
    /// does nothing.
    public func close() {
        state.close()
        feed.finishSource(.failure(EngineError.closed("\(state.kind) track \(id)")))
    }

    func markPublished() throws(EngineError) {
        try state.publish(id)
    }

    func markUnpublished() {
        state.unpublish()
    }
}
