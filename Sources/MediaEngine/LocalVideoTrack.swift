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
    let slot = PendingFrameSlot()
    private let state = TrackState()

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
        slot.put(frame)
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
    public var framesPushed: Int { slot.counts.pushed }
    public var framesDropped: Int { slot.counts.dropped }

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

    /// Stops the track: later pushes throw `.closed`. Calling it again does nothing.
    public func close() {
        state.close()
    }

    func markPublished() throws(EngineError) {
        try state.publish(id)
    }

    func markUnpublished() {
        state.unpublish()
    }
}

/// A track's published/closed state, shared by the capture thread and callers.
final class TrackState: @unchecked Sendable {
    private let lock = NSLock()
    private var published = false
    private var closed = false

    var isClosed: Bool { lock.withLock { closed } }
    var isPublished: Bool { lock.withLock { published } }

    func publish(_ id: String) throws(EngineError) {
        let result = lock.withLock { () -> EngineError? in
            if closed { return .closed("camera track \(id)") }
            if published { return .alreadyPublished("camera") }
            published = true
            return nil
        }
        if let result { throw result }
    }

    func unpublish() { lock.withLock { published = false } }
    func close() { lock.withLock { closed = true } }
}
