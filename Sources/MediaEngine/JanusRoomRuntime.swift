internal import EngineCore
import Foundation
import MediaCodecs
internal import SessionCore
import Simulcast

/// A Janus VideoRoom the engine joins as a WebRTC publisher (one local participant): publishing
/// the camera signals over Janus's HTTP API and connects ICE + DTLS-SRTP (`JanusVideoRoomPublisher`),
/// which blocks the engine's loop for that time (typically well under a second); then each pass
/// is `PublisherFeeds`' (the camera and microphone paced, Janus's feedback answered) and the
/// Janus session is kept alive. The publication's ICE runs over UDP, or ICE-TCP (RFC 6544) as
/// `preferredProtocol` says: `.udpOverTCP` gives UDP 2 s to connect, then joins again over ICE-TCP. The microphone rides in the camera's peer connection, so it is
/// published first (it waits for the camera) or not at all: adding it later would need a
/// renegotiation. Subscribing to a publisher of the room (by its Janus feed id) joins it as a
/// Janus subscriber (`JanusVideoRoomSubscriber`, another blocking connect) and receives the
/// substream the preference picks (`.high` the top, `.medium` the middle, `.low` the lowest; a
/// viewport by its height). With E2EE what is published is SFrame-sealed and what is received
/// opened, keys following the provider's changes at the next pass. Loop-confined.
final class JanusRoomRuntime: RoomBackend {
    /// Janus drops a session silent for 60 s (its `session_timeout`); a keepalive goes out well before.
    static let keepAliveIntervalMicroseconds: Int64 = 25_000_000

    let id: String
    let url: URL
    let room: Int
    let localAddress: UInt32
    let preferredProtocol: PreferredProtocol
    /// What the published camera's ICE runs over, once connected.
    private var transportProtocol: TransportProtocol?
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
    /// Received publishers by feed id: the Janus subscription and what the loop runs of it.
    private var subscriptions: [String: (session: JanusVideoRoomSubscriber, runtime: SubscriptionRuntime)] = [:]
    /// The substream and temporal layer last asked for, per feed id.
    private var requestedLayers: [String: (spatial: Int?, temporal: Int?)] = [:]
    private let clock: MediaClock

    init(id: String, url: URL, room: Int, localAddress: UInt32, e2ee: E2EEOptions?, preferredProtocol: PreferredProtocol,
         clock: MediaClock) {
        self.id = id
        self.clock = clock
        self.url = url
        self.room = room
        self.localAddress = localAddress
        self.e2ee = e2ee
        self.preferredProtocol = preferredProtocol
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
        let started = clock.monotonicMicroseconds()
        let session: JanusVideoRoomPublisher
        do {
            session = try connect(camera: camera, participantId: participantId, iceTCP: preferredProtocol == .tcpOnly,
                                  timeoutMilliseconds: preferredProtocol == .udpOverTCP ? 2_000 : 5_000)
            transportProtocol = preferredProtocol == .tcpOnly ? .tcp : .udp
        } catch let failure {
            guard preferredProtocol == .udpOverTCP, case .transport = failure else {
                events?.yield(.connectionStateChanged(.disconnected))
                throw .systemFailure("joining Janus room \(room) at \(url): \(failure)")
            }
            // UDP did not connect (ICE or DTLS): the same again over ICE-TCP.
            do {
                session = try connect(camera: camera, participantId: participantId, iceTCP: true, timeoutMilliseconds: 5_000)
            } catch {
                events?.yield(.connectionStateChanged(.disconnected))
                throw .systemFailure("joining Janus room \(room) at \(url) over UDP (\(failure)) and then ICE-TCP: \(error)")
            }
            transportProtocol = .tcp
            events?.yield(.protocolSwitched(ProtocolSwitch(connection: .publishing, from: .udp, to: .tcp,
                                                           afterMilliseconds: (clock.monotonicMicroseconds() - started) / 1000)))
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

    /// Signals, connects ICE (over UDP or ICE-TCP) and DTLS-SRTP: blocks the loop meanwhile.
    private func connect(camera: LayerPlan, participantId: String, iceTCP: Bool,
                         timeoutMilliseconds: Int64) throws(JanusVideoRoomPublisher.Failure) -> JanusVideoRoomPublisher {
        try JanusVideoRoomPublisher(options: .init(url: url, room: room, display: participantId, camera: camera,
                                                   audio: pendingMicrophone != nil, localAddress: localAddress,
                                                   connectTimeoutMilliseconds: timeoutMilliseconds, iceTCP: iceTCP),
                                     clock: clock)
    }

    func videoTransportProtocol(of participantId: String) throws(EngineError) -> TransportProtocol? {
        guard participantId == self.participantId, session != nil else { throw .notPublished(participant: participantId, track: "camera") }
        return transportProtocol
    }

    func videoPublisher(of participantId: String) throws(EngineError) -> Publisher {
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

    func publishScreenShare(_ participantId: String, trackId: String, settings: CameraSettings, feed: TrackFeed<VideoFrame>,
                            runtime: EngineRuntime) throws(EngineError) {
        throw .notAllowed("publishing a screen share into a Janus room is not supported yet (only in a room the engine hosts)")
    }

    func setMicrophoneMuted(_ muted: Bool, participant participantId: String) throws(EngineError) {
        guard participantId == self.participantId, feeds.microphone != nil || pendingMicrophone != nil else {
            throw .notPublished(participant: participantId, track: "microphone")
        }
        feeds.microphoneMuted = muted
    }

    // MARK: - Receiving

    /// Subscribes to the feed `publisherId` (Janus's publisher id, e.g. from its
    /// `.publishedToSFU` event or the room's participant list) on the top substream.
    func subscribe(_ subscriberId: String, to publisherId: String, runtime: EngineRuntime) throws(EngineError) -> SubscriptionRuntime {
        guard subscriberId == participantId else { throw .unknownParticipant(subscriberId) }
        if let existing = subscriptions[publisherId] { return existing.runtime }
        guard let feed = Int(publisherId) else { throw .unknownParticipant("\(publisherId) (a Janus feed id is a number)") }
        let opener = try e2ee?.makeOpener(for: publisherId, nowMilliseconds: clock.monotonicMilliseconds())
        let localSSRC = runtime.randomSSRC()
        let session: JanusVideoRoomSubscriber
        do {
            session = try JanusVideoRoomSubscriber(options: .init(
                url: url, room: room, feed: feed, localAddress: localAddress,
                subscriber: SubscriberConfiguration(localSSRC: localSSRC, cname: "\(subscriberId)<-\(publisherId)", security: .insecurePlaintext)),
                clock: clock)
        } catch {
            throw .systemFailure("subscribing to feed \(feed) in Janus room \(room) at \(url): \(error)")
        }
        let subscription = SubscriptionRuntime(publisherId: publisherId, subscriber: session.subscriber, path: nil)
        subscription.frameOpener = opener
        subscriptions[publisherId] = (session, subscription)
        events?.yield(.trackSubscribed(publisherId: publisherId, trackId: session.videoMid ?? "video"))
        return subscription
    }

    /// Janus's `configure` for the subscription: the substream (and, for a quality, the top
    /// temporal layer) the preference maps to; `.disabled` stops the video (`send: false`).
    func setPreference(_ preference: EffectivePreference, subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) {
        let session = try subscription(subscriberId, to: publisherId).session
        var layers: [String: Any] = ["send": true]
        var spatial: Int?
        switch preference {
        case let .quality(quality): spatial = quality.rawValue
        case let .viewPort(size): spatial = size.height <= 180 ? 0 : size.height <= 360 ? 1 : 2
        case .disabled: layers["send"] = false
        }
        if let spatial { layers["substream"] = spatial }
        if let mid = session.videoMid { layers["mid"] = mid }
        do {
            try session.janus.message(["request": "configure", "streams": [layers]])
        } catch {
            throw .systemFailure("Janus configure: \(error)")
        }
        requestedLayers[publisherId] = (spatial, nil)
    }

    func setScreenShareQuality(_ quality: VideoQuality, subscriber subscriberId: String,
                               publisher publisherId: String) throws(EngineError) -> ScreenShareQualityChange {
        throw .notAllowed("screen shares are received only in a room the engine hosts")
    }

    func setPinned(_ pinned: Bool, subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) {
        _ = try subscription(subscriberId, to: publisherId)
        throw .notAllowed("pinning orders a hosted room's adaptive subscriptions; Janus has none")
    }

    func stats(subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) -> RemoteVideoStats {
        let (session, _) = try subscription(subscriberId, to: publisherId)
        let layers = requestedLayers[publisherId]
        var stats = RemoteVideoStats(received: session.subscriber.statistics.video, preferredSpatialLayer: layers?.spatial,
                                     preferredTemporalLayer: layers?.temporal)
        stats.transportProtocol = .udp
        return stats
    }

    func startRecording(subscriber subscriberId: String, publisher publisherId: String, path: String) throws(EngineError) {
        let (session, subscription) = try subscription(subscriberId, to: publisherId)
        let statistics = session.subscriber.statistics.video
        guard statistics.frameWidth > 0 else { throw .notAllowed("recording starts once a frame of feed \(publisherId) arrived (its size heads the IVF)") }
        try subscription.startRecording(path: path, width: statistics.frameWidth, height: statistics.frameHeight)
    }

    func stopRecording(subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) {
        try subscription(subscriberId, to: publisherId).runtime.stopRecording()
    }

    private func subscription(_ subscriberId: String, to publisherId: String) throws(EngineError)
        -> (session: JanusVideoRoomSubscriber, runtime: SubscriptionRuntime) {
        guard subscriberId == participantId else { throw .unknownParticipant(subscriberId) }
        guard let subscription = subscriptions[publisherId] else { throw .notPublished(participant: publisherId, track: "subscribed camera") }
        return subscription
    }

    func tick(runtime: EngineRuntime) {
        let now = clock.monotonicMicroseconds()
        applyKeyChanges(now: now)
        if let session { feeds.pass(session.publisher, at: now, pacingPushes: true, events: events) }
        for (_, runtime) in subscriptions.values {
            _ = try? runtime.subscriber.step(timeoutMilliseconds: 0)
            if let state = runtime.takeE2EEStateChange() {
                events?.yield(.e2eeStateChanged(publisherId: runtime.publisherId, state: state))
            }
        }
        if now - lastKeepAliveMicroseconds > Self.keepAliveIntervalMicroseconds {
            lastKeepAliveMicroseconds = now
            do throws(JanusHTTPClient.Failure) {
                try session?.keepAlive()
                for (session, _) in subscriptions.values { try session.keepAlive() }
            } catch {
                events?.yield(.failure(.systemFailure("Janus keepalive: \(error)")))
            }
        }
    }

    /// A rotated or ratcheted key seals (and opens) the frames from the next pass on.
    private func applyKeyChanges(now: Int64) {
        guard let e2ee, let participantId, e2ee.keyProvider.version != e2eeKeysVersion else { return }
        e2eeKeysVersion = e2ee.keyProvider.version
        do {
            if let sealer { try e2ee.keyProvider.applyCurrentKey(to: sealer, of: participantId) }
            for (publisherId, subscription) in subscriptions {
                guard let opener = subscription.runtime.frameOpener else { continue }
                try e2ee.keyProvider.applyCurrentKey(to: opener, of: publisherId, nowMilliseconds: now / 1000)
            }
        } catch {
            events?.yield(.failure(.invalidConfiguration("E2EE key: \(error)")))
        }
    }

    func close() {
        session?.leave()
        session = nil
        for (session, runtime) in subscriptions.values {
            runtime.close()
            session.leave()
        }
        subscriptions.removeAll()
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
