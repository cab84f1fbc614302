internal import EngineCore
import Foundation
import MediaCodecs
internal import SessionCore
import Simulcast

/// A Janus VideoRoom the engine joins as a WebRTC publisher (one local participant): publishing
/// the camera signals over Janus's HTTP API and connects ICE + DTLS-SRTP (`JanusCameraConnect`) on
/// the `SignallingWorker`, the loop serving everything else meanwhile; then each pass is
/// `PublisherFeeds`' (the camera and microphone paced, Janus's feedback answered) and the Janus
/// session is kept alive (the keepalive, too, goes out from the worker). The publication's ICE
/// runs over UDP, or ICE-TCP (RFC 6544) as `preferredProtocol` says. The microphone rides in the
/// camera's peer connection, so it is published first (it waits for the camera) or not at all:
/// adding it later would need a renegotiation. Subscribing to a publisher of the room (by its
/// Janus feed id) joins it as a Janus subscriber (`JanusVideoRoomSubscriber`, connected on the
/// worker too) and receives the substream the preference picks (`.high` the top, `.medium` the
/// middle, `.low` the lowest; a viewport by its height; Janus's `configure` sent from the worker).
/// With E2EE what is published is SFrame-sealed and what is received opened, keys following the
/// provider's changes at the next pass. Readiness-driven: the loop waits on the peer connections'
/// sockets, and serves the room at its endpoints' exact deadlines (`nextDeadline`), at the next
/// keepalive, and at least every `RoomBackendCadence.idleMicroseconds` (ICE consent checks,
/// RFC 7675). Loop-confined.
final class JanusRoomRuntime: RoomBackend {
    /// Janus drops a session silent for 60 s (its `session_timeout`); a keepalive goes out well before.
    static let keepAliveIntervalMicroseconds: Int64 = 25_000_000

    let id: String
    let url: URL
    let room: Int
    let localAddress: UInt32
    /// STUN servers for server-reflexive candidates of every peer connection.
    let iceServers: [ICEServer]
    /// `.relay`: the camera's peer connection offers and checks relayed candidates only.
    let iceTransportPolicy: ICETransportPolicy
    let preferredProtocol: PreferredProtocol
    /// What the published camera's ICE runs over, once connected.
    private var transportProtocol: TransportProtocol?
    /// End-to-end encryption of what is published, if asked for.
    private let e2ee: E2EEOptions?
    private var sealer: E2EEFrameSealer?
    private var e2eeKeysVersion = 0
    private(set) var participantId: String?
    private(set) var events: AsyncStream<ParticipantEvent>.Continuation?
    private var session: JanusVideoRoomPublisher?
    /// The room model (docs/room-model.md): who else is here, our presence, our mode and name.
    var model = JanusRoomModel()
    private var feeds = PublisherFeeds()
    /// The microphone published before the camera, waiting for the peer connection.
    private var pendingMicrophone: (trackId: String, feed: TrackFeed<AudioFrame>)?
    private var lastKeepAliveMicroseconds: Int64 = 0
    /// Received publishers by feed id: the Janus subscription and what the loop runs of it.
    private var subscriptions: [String: (session: JanusVideoRoomSubscriber, runtime: SubscriptionRuntime)] = [:]
    /// Consumed microphones by feed id (each rides its feed's subscription), and the feeds whose
    /// audio Janus was asked to stop relaying.
    private var remoteAudio: [String: RemoteAudioRuntime] = [:]
    private var audioStopped: Set<String> = []
    /// The substream and temporal layer last asked for, per feed id.
    private var requestedLayers: [String: (spatial: Int?, temporal: Int?)] = [:]
    /// The engine's clock, read on the loop (the sessions' connects on the worker keep the system clock).
    private let clock: MediaClock
    /// Where signalling and connects run, off the loop.
    let signalling: SignallingWorker
    /// The camera's connect is under way on the worker.
    private var cameraConnecting = false
    /// Feed ids whose subscription is connecting on the worker.
    private var subscribing: Set<String> = []
    private(set) var isClosed = false
    /// Every datagram the subscriptions' connections received (the room model's `MediaActivity`).
    var datagramsReceivedSoFar: Int { Int(subscriptions.values.reduce(Int64(0)) { $0 + $1.runtime.subscriber.statistics.datagramsReceived }) }

    init(id: String, url: URL, room: Int, localAddress: UInt32, iceServers: [ICEServer], iceTransportPolicy: ICETransportPolicy = .all,
         e2ee: E2EEOptions?, preferredProtocol: PreferredProtocol,
         signalling: SignallingWorker, clock: MediaClock) {
        self.signalling = signalling
        self.clock = clock
        self.id = id
        self.url = url
        self.room = room
        self.localAddress = localAddress
        self.iceServers = iceServers
        self.iceTransportPolicy = iceTransportPolicy
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
    /// published before it) on the signalling worker, then, back on the loop, reports what Janus
    /// accepted (`.publishedToSFU`) and completes.
    func startPublishingCamera(_ participantId: String, trackId: String, settings: CameraSettings, feed: TrackFeed<VideoFrame>,
                               runtime: EngineRuntime, completion: @escaping LoopCompletion<Void>) {
        guard participantId == self.participantId else { return completion(.failure(.unknownParticipant(participantId))) }
        guard session == nil, !cameraConnecting else { return completion(.failure(.alreadyPublished("camera"))) }
        let camera: LayerPlan
        let sealer: E2EEFrameSealer?
        do {
            camera = try LayerPlan(width: settings.config.width, height: settings.config.height,
                                   multiStream: settings.multiStream, maxLayer: settings.maxLayer)
        } catch {
            return completion(.failure(.invalidConfiguration("\(error)")))
        }
        do throws(EngineError) {
            sealer = try e2ee?.makeSealer(for: participantId)
        } catch {
            return completion(.failure(error))
        }
        cameraConnecting = true
        let connect = JanusCameraConnect(url: url, room: room, display: model.display(of: participantId), camera: camera, audio: pendingMicrophone != nil,
                                         localAddress: localAddress, iceServers: iceServers, iceTransportPolicy: iceTransportPolicy,
                                         preferredProtocol: preferredProtocol)
        let handOff = LoopHandOff((room: self, sealer: sealer, completion: completion))
        signalling.run({ LoopHandOff(connect.run()) }, then: { _, outcome in
            handOff.value.room.finishPublishing(outcome.value, trackId: trackId, frameRate: settings.config.frameRate, feed: feed,
                                                sealer: handOff.value.sealer, completion: handOff.value.completion)
        }, ifStopped: { outcome in
            if case let .success(connected) = outcome.value { connected.session.leave() }
            handOff.value.completion(.failure(.closed("the engine")))
        })
    }

    /// Back on the loop: the connected camera runs from the next pass (or leaves, the room closed meanwhile).
    private func finishPublishing(_ outcome: Result<JanusCameraConnect.Connected, EngineError>, trackId: String, frameRate: Int,
                                  feed: TrackFeed<VideoFrame>, sealer: E2EEFrameSealer?, completion: LoopCompletion<Void>) {
        cameraConnecting = false
        let connected: JanusCameraConnect.Connected
        switch outcome {
        case let .failure(error):
            events?.yield(.connectionStateChanged(.disconnected))
            return completion(.failure(error))
        case let .success(value): connected = value
        }
        guard !isClosed else {
            onWorker(connected.session.leave)
            return completion(.failure(.closed("Janus room \(room)")))
        }
        let session = connected.session
        transportProtocol = connected.transportProtocol
        if let change = connected.protocolSwitch { events?.yield(.protocolSwitched(change)) }
        session.publisher.frameSealer = sealer
        self.sealer = sealer
        e2eeKeysVersion = e2ee?.keyProvider.version ?? 0
        self.session = session
        feeds.addCamera(trackId: trackId, feed: feed, frameRate: frameRate, publisher: session.publisher)
        if let microphone = pendingMicrophone {
            feeds.addMicrophone(trackId: microphone.trackId, feed: microphone.feed)
            pendingMicrophone = nil
        }
        lastKeepAliveMicroseconds = clock.monotonicMicroseconds()
        events?.yield(.connectionStateChanged(.connected))
        events?.yield(.publishedToSFU(Self.publication(of: session)))
        completion(.success(()))
    }

    /// Runs `work` on the worker (a session's goodbye: RTCP BYE, Janus's `leave`, the session
    /// destroyed); what it holds is the worker's from now on.
    private func onWorker(_ work: @escaping () -> Void) {
        let handOff = LoopHandOff(work)
        signalling.run { handOff.value() }
    }

    func videoTransportProtocol(of participantId: String) throws(EngineError) -> TransportProtocol? {
        guard participantId == self.participantId, session != nil else { throw .notPublished(participant: participantId, track: "camera") }
        return transportProtocol
    }

    func videoCandidatePair(of participantId: String) throws(EngineError) -> SelectedCandidatePair? {
        guard participantId == self.participantId, let session else { throw .notPublished(participant: participantId, track: "camera") }
        return session.transport.ice.selectedCandidates.map(SelectedCandidatePair.init)
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
        guard session == nil, !cameraConnecting else {
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
    /// `.publishedToSFU` event or the room's participant list) on the top substream: connected
    /// on the signalling worker, completed back on the loop.
    func startSubscribing(_ subscriberId: String, to publisherId: String, runtime: EngineRuntime,
                          completion: @escaping LoopCompletion<SubscriptionRuntime>) {
        guard subscriberId == participantId else { return completion(.failure(.unknownParticipant(subscriberId))) }
        if let existing = subscriptions[publisherId] { return completion(.success(existing.runtime)) }
        let feed: Int
        do throws(EngineError) { feed = try self.feed(of: publisherId) } catch { return completion(.failure(error)) }
        guard !subscribing.contains(publisherId) else { return completion(.failure(.notAllowed("already subscribing to feed \(feed)"))) }
        let opener: E2EEFrameOpener?
        do throws(EngineError) {
            opener = try e2ee?.makeOpener(for: publisherId, nowMilliseconds: clock.monotonicMilliseconds())
        } catch {
            return completion(.failure(error))
        }
        subscribing.insert(publisherId)
        var configured = JanusVideoRoomSubscriber.Options(
            url: url, room: room, feed: feed, localAddress: localAddress,
            subscriber: SubscriberConfiguration(localSSRC: runtime.randomSSRC(), cname: "\(subscriberId)<-\(publisherId)",
                                                security: .insecurePlaintext))
        configured.iceServers = iceServers
        let options = configured
        let (url, room) = (url, room)
        let handOff = LoopHandOff((room: self, opener: opener, completion: completion))
        signalling.run({ () -> LoopHandOff<Result<JanusVideoRoomSubscriber, EngineError>> in
            do {
                return LoopHandOff(.success(try JanusVideoRoomSubscriber(options: options)))
            } catch {
                return LoopHandOff(.failure(.systemFailure("subscribing to feed \(feed) in Janus room \(room) at \(url): \(error)")))
            }
        }, then: { _, outcome in
            handOff.value.room.finishSubscribing(outcome.value, to: publisherId, opener: handOff.value.opener,
                                                 completion: handOff.value.completion)
        }, ifStopped: { outcome in
            if case let .success(session) = outcome.value { session.leave() }
            handOff.value.completion(.failure(.closed("the engine")))
        })
    }

    /// Back on the loop: the subscription runs from the next pass (or leaves, the room closed meanwhile).
    private func finishSubscribing(_ outcome: Result<JanusVideoRoomSubscriber, EngineError>, to publisherId: String,
                                   opener: E2EEFrameOpener?, completion: LoopCompletion<SubscriptionRuntime>) {
        subscribing.remove(publisherId)
        let session: JanusVideoRoomSubscriber
        switch outcome {
        case let .failure(error): return completion(.failure(error))
        case let .success(value): session = value
        }
        guard !isClosed else {
            onWorker(session.leave)
            return completion(.failure(.closed("Janus room \(room)")))
        }
        let subscription = SubscriptionRuntime(publisherId: publisherId, subscriber: session.subscriber, path: nil)
        subscription.frameOpener = opener
        subscriptions[publisherId] = (session, subscription)
        events?.yield(.trackSubscribed(publisherId: publisherId, trackId: session.videoMid ?? "video"))
        completion(.success(subscription))
    }

    /// Janus's `configure` for the subscription: the substream (and, for a quality, the top
    /// temporal layer) the preference maps to; `.disabled` stops the video (`send: false`).
    func setPreference(_ preference: EffectivePreference, subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) {
        let session = try subscription(subscriberId, to: publisherId).session
        var spatial: Int?
        var send = true
        switch preference {
        case let .quality(quality): spatial = quality.rawValue
        case let .viewPort(size): spatial = size.height <= 180 ? 0 : size.height <= 360 ? 1 : 2
        case .disabled: send = false
        }
        // From the worker: a refusal or a failure reaches the participant as a `.failure` event.
        let handOff = LoopHandOff((session: session, send: send, substream: spatial))
        let events = events
        signalling.run {
            do throws(JanusHTTPClient.Failure) {
                try handOff.value.session.configure(send: handOff.value.send, substream: handOff.value.substream)
            } catch {
                events?.yield(.failure(.systemFailure("Janus configure: \(error)")))
            }
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

    /// The subscriber peer connections (one per received feed; its camera and microphone share it).
    var subscriberConnectionCount: Int { subscriptions.count }

    // MARK: - Remote audio

    /// Consumes the microphone of feed `publisherId`: its subscription (made if there is none)
    /// carries the feed's audio beside its video; the receiver plays it out at the room's deadlines.
    func startConsumingMicrophone(_ subscriberId: String, of publisherId: String, runtime: EngineRuntime,
                                  completion: @escaping LoopCompletion<RemoteAudioRuntime>) {
        startSubscribing(subscriberId, to: publisherId, runtime: runtime) { outcome in
            completion(Result { () throws(EngineError) in
                _ = try outcome.get()
                guard let session = self.subscriptions[publisherId]?.session, session.negotiated.audio != nil else {
                    throw .notPublished(participant: publisherId, track: "microphone")
                }
                guard self.remoteAudio[publisherId] == nil else {
                    throw .notAllowed("\(subscriberId) already consumes feed \(publisherId)'s microphone (stop that track first)")
                }
                let audio = RemoteAudioRuntime(publisherId: publisherId, receiver: session.subscriber.audio,
                                               now: self.clock.monotonicMicroseconds())
                self.remoteAudio[publisherId] = audio
                if self.audioStopped.remove(publisherId) != nil { self.setAudioForwarded(true, session: session) }
                return audio
            })
        }
    }

    /// Janus stops relaying the feed's audio to us; playout stops and the track's stream ends.
    func stopConsumingMicrophone(subscriber subscriberId: String, publisher publisherId: String) {
        guard subscriberId == participantId, let audio = remoteAudio.removeValue(forKey: publisherId) else { return }
        audio.close()
        guard let session = subscriptions[publisherId]?.session else { return }
        audioStopped.insert(publisherId)
        setAudioForwarded(false, session: session)
    }

    func microphoneStats(subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) -> RemoteAudioStats {
        guard subscriberId == participantId, let audio = remoteAudio[publisherId] else {
            throw .notPublished(participant: publisherId, track: "consumed microphone")
        }
        return audio.stats(isMuted: nil)
    }

    /// Janus's `configure` of the audio mid, from the worker (a failure reaches the participant as an event).
    private func setAudioForwarded(_ send: Bool, session: JanusVideoRoomSubscriber) {
        let handOff = LoopHandOff(session)
        let events = events
        signalling.run {
            do throws(JanusHTTPClient.Failure) {
                try handOff.value.setAudioForwarded(send)
            } catch {
                events?.yield(.failure(.systemFailure("Janus configure (audio): \(error)")))
            }
        }
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
        let playoutNow = clock.monotonicMicroseconds()
        for audio in remoteAudio.values { audio.playDueSteps(now: playoutNow) }
        if now - lastKeepAliveMicroseconds > Self.keepAliveIntervalMicroseconds { sendKeepAlives(now: now) }
    }

    /// Every Janus session of the room (the publisher's, each subscription's) kept alive, from the worker.
    private func sendKeepAlives(now: Int64) {
        lastKeepAliveMicroseconds = now
        let clients = LoopHandOff([session?.janus].compactMap { $0 } + subscriptions.values.map(\.session.janus) + model.parked.map(\.janus))
        let events = events
        signalling.run {
            do throws(JanusHTTPClient.Failure) {
                for client in clients.value { try client.keepAlive() }
            } catch {
                events?.yield(.failure(.systemFailure("Janus keepalive: \(error)")))
            }
        }
    }

    /// The peer connections' sockets (UDP, or the ICE-TCP connection).
    func appendReadinessDescriptors(to descriptors: inout [Int32]) -> Bool {
        var complete = true
        if let session { complete = EngineCore.appendReadinessDescriptors(of: session.transport, to: &descriptors) }
        for (session, _) in subscriptions.values where !EngineCore.appendReadinessDescriptors(of: session.transport, to: &descriptors) {
            complete = false
        }
        return complete
    }

    /// The earliest of the next waiting frame's slot, the publisher's pacer and probe steps
    /// (`Publisher.nextDeadline`), every subscription's receiving deadlines
    /// (`Subscriber.nextDeadline`) and the next keepalive, with no fixed grain; at most
    /// `RoomBackendCadence.idleMicroseconds` away, the safety net for what sets no deadline of
    /// its own (ICE consent checks inside the transports, E2EE key changes). Nothing until a peer
    /// connection runs or an unpublished camera's session needs its keepalives.
    func nextDeadline(now: Int64) -> Int64 {
        guard session != nil || !subscriptions.isEmpty || !model.parked.isEmpty else { return .max }
        var earliest = min(now + RoomBackendCadence.idleMicroseconds, feeds.mediaDue(now: now, pacingPushes: true) ?? .max,
                           lastKeepAliveMicroseconds + Self.keepAliveIntervalMicroseconds + 1)
        if let session { earliest = min(earliest, session.publisher.nextDeadline()) }
        for (_, runtime) in subscriptions.values { earliest = min(earliest, runtime.subscriber.nextDeadline()) }
        // Consumed microphones play out every 20 ms, and only while they are consumed.
        for audio in remoteAudio.values { earliest = min(earliest, audio.nextStepMicroseconds) }
        return max(now, earliest)
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
        isClosed = true
        stopRoomModel()
        if let session { onWorker(session.leave) }
        session = nil
        for (session, runtime) in subscriptions.values {
            runtime.close()
            onWorker(session.leave)
        }
        subscriptions.removeAll()
        for audio in remoteAudio.values { audio.close() }
        remoteAudio.removeAll()
        feeds.finishSources()
        pendingMicrophone?.feed.finishSource(.failure(EngineError.closed("microphone track \(pendingMicrophone?.trackId ?? "")")))
        pendingMicrophone = nil
        events?.yield(.connectionStateChanged(.disconnected))
        events?.finish()
        events = nil
    }

    /// VideoRoom's `unpublish` of the camera (and the microphone in its peer connection): the
    /// others hear `unpublished`; the session stays in the room (kept alive, left on `close`).
    func unpublishCamera(_ participantId: String, trackId: String) throws(EngineError) {
        guard participantId == self.participantId, let session, feeds.camera?.trackId == trackId else {
            throw .notPublished(participant: participantId, track: "camera \(trackId)")
        }
        self.session = nil
        feeds.finishSources()
        feeds = PublisherFeeds()
        model.parked.append(session)
        onWorker {
            try? session.publisher.sendGoodbye(reason: "unpublished")
            _ = try? session.janus.message(JanusVideoRoomRequest.unpublish.body)
        }
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
