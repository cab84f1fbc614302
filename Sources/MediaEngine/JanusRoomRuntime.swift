internal import EngineCore
import Foundation
import MediaCodecs
internal import SessionCore
import Simulcast

/// A Janus VideoRoom the engine joins as a WebRTC publisher (one local participant): publishing
/// the camera signals over Janus's HTTP API and connects ICE + DTLS-SRTP (`JanusVideoRoomPublisher`),
/// which blocks the engine's loop for that time (typically well under a second); then the loop
/// paces the camera's frames, answers Janus's feedback and keeps the session alive.
/// Receiving through Janus is not supported yet. Loop-confined.
final class JanusRoomRuntime: PublishOnlyRoomBackend {
    let id: String
    let url: URL
    let room: Int
    let localAddress: UInt32
    private var participantId: String?
    private var events: AsyncStream<ParticipantEvent>.Continuation?
    private var session: JanusVideoRoomPublisher?
    /// The camera's frames at its frame rate, once published.
    private var camera: PacedFeed<VideoFrame>?
    private var trackId = ""
    private var lastKeepAliveMicroseconds: Int64 = 0
    private var keyFramesReported = 0
    private let clock = MediaClock.system

    init(id: String, url: URL, room: Int, localAddress: UInt32) {
        self.id = id
        self.url = url
        self.room = room
        self.localAddress = localAddress
    }

    func join(_ participantId: String, events: AsyncStream<ParticipantEvent>.Continuation, keyProvider: E2EEKeyProvider?,
              runtime: EngineRuntime) throws(EngineError) {
        guard keyProvider == nil else { throw .notAllowed("per-participant E2EE keys need a hosted room") }
        guard self.participantId == nil else { throw .notAllowed("one local participant per Janus room") }
        self.participantId = participantId
        self.events = events
        events.yield(.connectionStateChanged(.connecting))
    }

    func leave(_ participantId: String) {
        guard participantId == self.participantId else { return }
        close()
    }

    func publishCamera(_ participantId: String, trackId: String, settings: CameraSettings, feed: TrackFeed<VideoFrame>,
                       runtime: EngineRuntime) throws(EngineError) {
        guard participantId == self.participantId else { throw .unknownParticipant(participantId) }
        guard session == nil else { throw .alreadyPublished("camera") }
        let camera: LayerPlan
        do {
            camera = try LayerPlan(width: settings.config.width, height: settings.config.height,
                                   multiStream: settings.multiStream, maxLayer: settings.maxLayer)
        } catch {
            throw .invalidConfiguration("\(error)")
        }
        do {
            session = try JanusVideoRoomPublisher(options: .init(url: url, room: room, display: participantId, camera: camera,
                                                                 localAddress: localAddress))
        } catch {
            events?.yield(.connectionStateChanged(.disconnected))
            throw .systemFailure("joining Janus room \(room) at \(url): \(error)")
        }
        self.camera = PacedFeed(trackId: trackId, feed: feed, intervalMicroseconds: 1_000_000 / Int64(max(1, settings.config.frameRate)))
        self.trackId = trackId
        lastKeepAliveMicroseconds = clock.monotonicMicroseconds()
        events?.yield(.connectionStateChanged(.connected))
    }

    func videoPublisher(of participantId: String) throws(EngineError) -> Publisher {
        guard participantId == self.participantId, let session else { throw .notPublished(participant: participantId, track: "camera") }
        return session.publisher
    }

    func publishMicrophone(_ participantId: String, trackId: String, feed: TrackFeed<AudioFrame>,
                           runtime: EngineRuntime) throws(EngineError) {
        throw .notAllowed("publishing a microphone through a Janus room is not supported yet")
    }

    func setMicrophoneMuted(_ muted: Bool, participant participantId: String) throws(EngineError) {
        throw .notPublished(participant: participantId, track: "microphone")
    }

    /// What every receiving call answers: the engine only publishes through Janus so far.
    let receivingUnsupported = EngineError.notAllowed("receiving through a Janus room is not supported yet")

    func tick(runtime: EngineRuntime) {
        guard let session, camera != nil else { return }
        let now = clock.monotonicMicroseconds()
        if let frame = camera?.takeDue(at: now, pacingPushes: true) {
            do {
                try session.publisher.send(video: frame)
            } catch {
                events?.yield(.failure(.invalidFrame("\(error)")))
            }
        }
        while (try? session.publisher.pollIncoming(timeoutMilliseconds: 0)) != nil {}
        if session.publisher.keyFramesRequested > keyFramesReported {
            keyFramesReported = session.publisher.keyFramesRequested
            events?.yield(.keyFrameRequested(trackId: trackId))
        }
        if now - lastKeepAliveMicroseconds > 25_000_000 {
            lastKeepAliveMicroseconds = now
            do {
                try session.keepAlive()
            } catch {
                events?.yield(.failure(.systemFailure("Janus keepalive: \(error)")))
            }
        }
    }

    func close() {
        session?.leave()
        session = nil
        events?.yield(.connectionStateChanged(.disconnected))
        events?.finish()
        events = nil
    }
}
