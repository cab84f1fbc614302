internal import EngineCore
import Foundation
import MediaCodecs
internal import SessionCore
import Simulcast

/// A Janus VideoRoom the engine joins as a WebRTC publisher (one local participant): publishing
/// the camera signals over Janus's HTTP API and connects ICE + DTLS-SRTP (`JanusVideoRoomPublisher`),
/// which blocks the engine's loop for that time (typically well under a second); then each pass
/// is `PublisherFeeds`' (the camera and microphone paced, Janus's feedback answered) and the
/// Janus session is kept alive. The microphone rides in the camera's peer connection, so it is
/// published first (it waits for the camera) or not at all: adding it later would need a
/// renegotiation. With E2EE both are SFrame-sealed by one sender, its key following the
/// provider's changes at the next pass. Receiving through Janus is not supported yet.
/// Loop-confined.
final class JanusRoomRuntime: PublishOnlyRoomBackend {
    /// Janus drops a session silent for 60 s (its `session_timeout`); a keepalive goes out well before.
    static let keepAliveIntervalMicroseconds: Int64 = 25_000_000

    let id: String
    let url: URL
    let room: Int
    let localAddress: UInt32
    /// End-to-end encryption of what is published, if asked for.
    private let e2ee: E2EEOptions?
    private var sealer: E2EEFrameSealer?
    private var e2eeKeysVersion = 0
    private var participantId: String?
    private var events: AsyncStream<ParticipantEvent>.Continuation?
    private var session: JanusVideoRoomPublisher?
    private var feeds = PublisherFeeds()
    /// The microphone published before the camera, waiting for the peer connection.
    private var pendingMicrophone: (trackId: String, feed: TrackFeed<AudioFrame>)?
    private var lastKeepAliveMicroseconds: Int64 = 0
    private let clock = MediaClock.system

    init(id: String, url: URL, room: Int, localAddress: UInt32, e2ee: E2EEOptions?) {
        self.id = id
        self.url = url
        self.room = room
        self.localAddress = localAddress
        self.e2ee = e2ee
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

    /// Joins the room as a publisher with the camera's simulcast layers (and the microphone
    /// published before it), then reports what Janus accepted (`.publishedToSFU`).
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
        let sealer = try e2ee?.makeSealer(for: participantId)
        let session: JanusVideoRoomPublisher
        do {
            session = try JanusVideoRoomPublisher(options: .init(url: url, room: room, display: participantId, camera: camera,
                                                                 audio: pendingMicrophone != nil, localAddress: localAddress))
        } catch {
            events?.yield(.connectionStateChanged(.disconnected))
            throw .systemFailure("joining Janus room \(room) at \(url): \(error)")
        }
        session.publisher.frameSealer = sealer
        self.sealer = sealer
        e2eeKeysVersion = e2ee?.keyProvider.version ?? 0
        self.session = session
        feeds.addCamera(trackId: trackId, feed: feed, frameRate: settings.config.frameRate, publisher: session.publisher)
        if let microphone = pendingMicrophone {
            feeds.addMicrophone(trackId: microphone.trackId, feed: microphone.feed)
            pendingMicrophone = nil
        }
        lastKeepAliveMicroseconds = clock.monotonicMicroseconds()
        events?.yield(.connectionStateChanged(.connected))
        events?.yield(.publishedToSFU(Self.publication(of: session)))
    }

    func cameraPublisher(of participantId: String) throws(EngineError) -> Publisher {
        guard participantId == self.participantId, let session else { throw .notPublished(participant: participantId, track: "camera") }
        return session.publisher
    }

    /// Takes the microphone into the camera's coming peer connection (Opus, RFC 7587).
    func publishMicrophone(_ participantId: String, trackId: String, feed: TrackFeed<AudioFrame>,
                           runtime: EngineRuntime) throws(EngineError) {
        guard participantId == self.participantId else { throw .unknownParticipant(participantId) }
        guard pendingMicrophone == nil, feeds.microphone == nil else { throw .alreadyPublished("microphone") }
        guard session == nil else {
            throw .notAllowed("in a Janus room, publish the microphone before the camera (both ride one peer connection)")
        }
        pendingMicrophone = (trackId, feed)
    }

    func setMicrophoneMuted(_ muted: Bool, participant participantId: String) throws(EngineError) {
        guard participantId == self.participantId, feeds.microphone != nil || pendingMicrophone != nil else {
            throw .notPublished(participant: participantId, track: "microphone")
        }
        feeds.microphoneMuted = muted
    }

    /// What every receiving call answers: the engine only publishes through Janus so far.
    let receivingUnsupported = EngineError.notAllowed("receiving through a Janus room is not supported yet")

    func tick(runtime: EngineRuntime) {
        guard let session else { return }
        let now = clock.monotonicMicroseconds()
        applyKeyChange()
        feeds.pass(session.publisher, at: now, pacingPushes: true, events: events)
        if now - lastKeepAliveMicroseconds > Self.keepAliveIntervalMicroseconds {
            lastKeepAliveMicroseconds = now
            do {
                try session.keepAlive()
            } catch {
                events?.yield(.failure(.systemFailure("Janus keepalive: \(error)")))
            }
        }
    }

    /// A rotated or ratcheted key seals the frames from the next pass on.
    private func applyKeyChange() {
        guard let e2ee, let sealer, let participantId, e2ee.keyProvider.version != e2eeKeysVersion else { return }
        e2eeKeysVersion = e2ee.keyProvider.version
        guard let (keyId, key) = e2ee.keyProvider.key(for: participantId), keyId != sealer.sender.keyID else { return }
        do {
            try sealer.sender.setKey(keyID: keyId, baseKey: key)
        } catch {
            events?.yield(.failure(.invalidConfiguration("E2EE key \(keyId): \(error)")))
        }
    }

    func close() {
        session?.leave()
        session = nil
        feeds.finishSources()
        pendingMicrophone?.feed.finishSource(.failure(EngineError.closed("microphone track \(pendingMicrophone?.trackId ?? "")")))
        pendingMicrophone = nil
        events?.yield(.connectionStateChanged(.disconnected))
        events?.finish()
        events = nil
    }

    /// What Janus accepted, for `.publishedToSFU`.
    private static func publication(of session: JanusVideoRoomPublisher) -> SFUPublication {
        let streams = session.configured["streams"] ?? []
        let json = (try? JSONSerialization.data(withJSONObject: streams, options: [.sortedKeys])).flatMap { String(data: $0, encoding: .utf8) }
        return SFUPublication(feedId: "\(session.publisherID)", rids: session.negotiated.video?.rids ?? [],
                              audio: session.negotiated.audio != nil, connectMilliseconds: session.connectMilliseconds,
                              streamsJSON: json ?? "[]")
    }
}
