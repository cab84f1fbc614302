import Foundation
import MediaCodecs

/// How a camera track encodes (kept for publishing).
struct CameraSettings: Sendable {
    var config: CameraEncoderConfig
    var multiStream: Bool
    var maxLayer: MaxLayer
}

/// A camera track (LiveKit's `LocalVideoTrack`, VideoSDK's `createCameraVideoTrack`): push
/// captured frames into it from the capture callback, any size, I420/NV12/BGRA; the engine
/// scales and centre-crops them to the encoder size, timestamps and paces them at the frame rate
/// (a frame pushed before the previous one was taken replaces it and is counted as dropped).
/// `Sendable`: push from any thread.
public final class LocalVideoTrack: Sendable {
    public let id: String
    /// The simulcast layers it publishes, lightest first (SPEC §1).
    public let layerSizes: [VideoSize]
    let settings: CameraSettings
    let participantId: String
    let roomId: String
    let loop: EngineLoop
    /// Pushed frames wait here (the newest one: the engine paces to the frame rate).
    let feed = TrackFeed<VideoFrame>(capacity: 1)
    private let state = TrackState(kind: "camera")

    init(settings: CameraSettings, layerSizes: [VideoSize], participantId: String, roomId: String, loop: EngineLoop) {
        id = "camera-\(participantId)"
        self.settings = settings
        self.layerSizes = layerSizes
        self.participantId = participantId
        self.roomId = roomId
        self.loop = loop
    }

    /// Hands one captured frame to the engine. Throws `.closed` after `close()`; frames pushed
    /// before `publish` are dropped (counted in `framesDropped`).
    public func push(_ frame: VideoFrame) throws(EngineError) {
        guard !state.isClosed else { throw .closed("camera track \(id)") }
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

    /// SPEC §2 webcam cap: `.high` every layer, `.medium` stops the largest, `.low` only the
    /// smallest. Receivers learn it in band (an RTCP BYE for the layers it stops) and move down
    /// at once.
    public func setWebcamQuality(_ quality: VideoQuality) async throws(EngineError) {
        let (roomId, participantId) = (roomId, participantId)
        guard state.isPublished else { throw .notAllowed("set the webcam quality of a published camera") }
        try await loop.perform { runtime throws(EngineError) in
            guard let room = runtime.rooms[roomId] else { throw .closed("room \(roomId)") }
            do {
                try room.cameraPublisher(of: participantId).setWebcamQuality(quality)
            } catch let error as EngineError {
                throw error
            } catch {
                throw .notAllowed("\(error)")
            }
        }
    }

    /// What the camera's publisher did so far.
    public func stats() async throws(EngineError) -> LocalVideoStats {
        let (roomId, participantId) = (roomId, participantId)
        guard state.isPublished else { throw .notPublished(participant: participantId, track: "camera") }
        return try await loop.perform { runtime throws(EngineError) in
            guard let room = runtime.rooms[roomId] else { throw .closed("room \(roomId)") }
            let publisher = try room.cameraPublisher(of: participantId)
            var stats = LocalVideoStats(framesEncoded: publisher.videoFramesEncoded, keyFramesRequested: publisher.keyFramesRequested,
                                        sendingLayers: publisher.sendingLayers)
            stats.transportProtocol = try room.cameraTransportProtocol(of: participantId)
            return stats
        }
    }

    /// Stops the track: later pushes throw `.closed`, a playing source stops. Calling it again
    /// does nothing.
    public func close() {
        state.close()
        feed.finishSource(.failure(EngineError.closed("camera track \(id)")))
    }

    func markPublished() throws(EngineError) {
        try state.publish(id)
    }

    func markUnpublished() {
        state.unpublish()
    }
}
