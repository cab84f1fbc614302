internal import EngineCore
import Foundation
import MediaCodecs
internal import SessionCore
internal import RTPWire
import Simulcast

/// A Janus VideoRoom the engine joins as a WebRTC publisher (one local participant): publishing
/// the camera signals over Janus's HTTP API and connects ICE + DTLS-SRTP (`JanusCameraConnect`) on
/// the `SignallingWorker`, the loop serving everything else meanwhile; then each pass is
/// `PublisherFeeds`' (the camera and microphone paced, Janus's feedback answered) and the Janus
/// session is kept alive (the keepalive, too, goes out from the worker). The publication's ICE
/// runs over UDP, or ICE-TCP (RFC 6544) as `preferredProtocol` says. The microphone rides in the
/// camera's peer connection, so it is published first (it waits for the camera) or not at all:
/// adding it later would need a renegotiation. Everything received rides one subscriber peer
/// connection (`JanusSubscriberConnection`: Janus 1.1 multistream, connected and updated on the
/// worker too); a camera arrives on the substream the preference picks (`.high` the top,
/// `.medium` the middle, `.low` the lowest; a viewport by its height; Janus's `configure` of its
/// mid sent from the worker). With `autoConsume`, every camera and microphone of the room is
/// consumed as the roster reports it.
/// The screen share is the camera connection's second video m-line (`JanusRoomRuntime+ScreenShare`).
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
    private(set) var sealer: E2EEFrameSealer?
    private var e2eeKeysVersion = 0
    private(set) var participantId: String?
    private(set) var events: AsyncStream<ParticipantEvent>.Continuation?
    private(set) var session: JanusVideoRoomPublisher?
    /// Reconnecting and reconnected (JanusRoomRuntime+Reconnect.swift).
    var reconnect = RoomReconnectWatch()
    /// The room model (docs/room-model.md): who else is here, our presence, our mode and name.
    var model = JanusRoomModel()
    private var feeds = PublisherFeeds()
    /// The microphone published before the camera, waiting for the peer connection.
    private var pendingMicrophone: (trackId: String, feed: TrackFeed<AudioFrame>)?
    /// The screen share: the camera's peer connection's second video m-line (`JanusScreenShare`,
    /// `JanusRoomRuntime+ScreenShare`).
    var screenShare: JanusScreenShare?
    /// The renegotiation offer taking the screen share out, until Janus's answer comes.
    var screenShareStopping: SimulcastOffer?
    private var lastKeepAliveMicroseconds: Int64 = 0
    /// The one subscriber peer connection: every consumed stream of the room (`JanusSubscriberConnection`).
    private(set) var receiving: JanusSubscriberConnection!
    /// Client-side adaptive subscriptions over what `receiving` carries (`JanusAdaptiveSubscriptions`).
    let adaptive = JanusAdaptiveSubscriptions()
    /// With `autoConsume`, every camera and microphone of the room is consumed as it appears.
    let autoConsumes: Bool
    /// `.roomJoined` was applied: participants reported from now on arrived after us.
    var roomJoinedApplied = false
    /// The substream and temporal layer last asked for, per subscriber mid.
    private var requestedLayers: [String: (spatial: Int?, temporal: Int?)] = [:]
    /// The engine's clock, read on the loop (the sessions' connects on the worker keep the system clock).
    private let clock: MediaClock
    /// Where signalling and connects run, off the loop.
    let signalling: SignallingWorker
    /// The camera's connect is under way on the worker.
    private(set) var cameraConnecting = false
    private(set) var isClosed = false
    /// Active speakers from the consumed microphones' RFC 6464 levels and our own (`JanusRoomSpeakers`).
    let speakers: JanusRoomSpeakers
    /// Quality reports from our RTCP (`JanusRoomQuality`).
    let quality: JanusRoomQuality
    /// Every datagram the subscriptions' connections received (the room model's `MediaActivity`).
    var datagramsReceivedSoFar: Int { Int(receiving.demultiplexer?.datagramsReceived ?? 0) }

    init(id: String, url: URL, room: Int, localAddress: UInt32, iceServers: [ICEServer], iceTransportPolicy: ICETransportPolicy = .all,
         e2ee: E2EEOptions?, preferredProtocol: PreferredProtocol, autoConsume: Bool = true,
         signalling: SignallingWorker, clock: MediaClock) {
        self.autoConsumes = autoConsume
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
        speakers = JanusRoomSpeakers(clock: clock)
        quality = JanusRoomQuality(clock: clock)
        var options = JanusMultistreamSubscription.Options(url: url, room: room, localAddress: localAddress, cname: "janus-room-\(id)")
        options.iceServers = iceServers
        options.iceTransportPolicy = iceTransportPolicy
        receiving = JanusSubscriberConnection(options: options, worker: signalling) { [weak self] feed, mid in
            let participant = self?.model.roster.participant(feed: feed)
            let track = participant?.tracks.first { $0.mid == mid }
            let kind: PublishedTrackKind? = track.map { $0.kind == .screenShare ? .screenShare : $0.kind == .microphone ? .microphone : .camera }
            return (participant?.id ?? "\(feed)", kind)
        }
        // A consumed camera or screen share starting and ending is `.streamEnabled` /
        // `.streamDisabled`, as in a hosted room (docs/room-model.md, "Streams").
        receiving.onStreamStarted = { [weak self] stream in
            self?.openFrames(of: stream)
            self?.speakers.attach(stream)
            self?.quality.attach(stream)
            if stream.kind != .microphone { self?.events?.yield(.streamEnabled(participantId: stream.publisherId, kind: stream.kind)) }
        }
        receiving.onStreamEnded = { [weak self] stream in
            self?.speakers.detach(stream)
            self?.quality.detach(stream)
            if stream.kind != .microphone { self?.events?.yield(.streamDisabled(participantId: stream.publisherId, kind: stream.kind)) }
        }
        // Adaptive subscriptions pause the least dominant first: who speaks most (the speakers'
        // ranking), then everybody else in the order they joined.
        adaptive.speakerRanking = { [weak self] in
            guard let self else { return [] }
            let ranked = speakers.dominanceRanking()
            return ranked + model.roster.participants.map(\.id).filter { !ranked.contains($0) }
        }
    }

    func join(_ participantId: String, events: AsyncStream<ParticipantEvent>.Continuation, keyProvider: E2EEKeyProvider?,
              runtime: EngineRuntime) throws(EngineError) {
        guard keyProvider == nil else { throw .notAllowed("per-participant E2EE keys need a hosted room") }
        guard self.participantId == nil else { throw .notAllowed("one local participant per Janus room") }
        self.participantId = participantId
        self.events = events
        receiving.onTrickleFailureEvents = events
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
                                         screenShare: screenShare?.plan, localAddress: localAddress, iceServers: iceServers, iceTransportPolicy: iceTransportPolicy,
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
        signalling.forwardTrickle(of: session.transport.ice, events: events) { candidate throws(JanusHTTPClient.Failure) in
            try session.trickle(candidate)
        }
        followRoomEvents(of: session)
        feeds.downPathIsLoss = true  // the room reports `.reconnecting` instead (JanusRoomRuntime+Reconnect.swift)
        feeds.addCamera(trackId: trackId, feed: feed, frameRate: frameRate, publisher: session.publisher)
        quality.setPublisher(session.publisher)
        startScreenShare(of: session)
        if let microphone = pendingMicrophone {
            feeds.addMicrophone(trackId: microphone.trackId, feed: microphone.feed)
            if let ssrc = session.publisher.audioSender?.ssrc, let participantId {
                let trackId = microphone.trackId
                feeds.onMicrophoneFrameSent = { [unowned speakers] frame in
                    speakers.observeLocal(frame.audioLevel, participantId: participantId, trackId: trackId, ssrc: ssrc)
                }
            }
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

    /// A screen share (`RoomNode.screenShareKey`) rides the camera's transport: the same answer.
    func videoTransportProtocol(of key: String) throws(EngineError) -> TransportProtocol? {
        let participantId = RoomNode.screenShareOwner(key) ?? key
        guard participantId == self.participantId, session != nil else { throw .notPublished(participant: participantId, track: "camera") }
        return transportProtocol
    }

    func videoCandidatePair(of key: String) throws(EngineError) -> SelectedCandidatePair? {
        let participantId = RoomNode.screenShareOwner(key) ?? key
        guard participantId == self.participantId, let session else { throw .notPublished(participant: participantId, track: "camera") }
        return session.transport.ice.selectedCandidates.map(SelectedCandidatePair.init)
    }

    func videoPublisher(of participantId: String) throws(EngineError) -> Publisher {
        if let owner = RoomNode.screenShareOwner(participantId) {
            guard owner == self.participantId, let publisher = screenShare?.publisher else {
                throw .notPublished(participant: owner, track: "screen share")
            }
            return publisher
        }
        guard participantId == self.participantId, let session else { throw .notPublished(participant: participantId, track: "camera") }
        return session.publisher
    }

    /// Takes the microphone into the camera's coming peer connection (Opus, RFC 7587).
    func publishMicrophone(_ participantId: String, trackId: String, feed: TrackFeed<AudioFrame>,
                           runtime: EngineRuntime) throws(EngineError) {
        guard participantId == self.participantId else { throw .unknownParticipant(participantId) }
        guard pendingMicrophone == nil, feeds.microphone == nil else { throw .alreadyPublished("microphone") }
        guard session == nil, !cameraConnecting else { throw .unsupportedInJanusRoom(.microphoneAfterCamera) }
        pendingMicrophone = (trackId, feed)
    }

    func setMicrophoneMuted(_ muted: Bool, participant participantId: String) throws(EngineError) {
        guard participantId == self.participantId, feeds.microphone != nil || pendingMicrophone != nil else {
            throw .notPublished(participant: participantId, track: "microphone")
        }
        feeds.microphoneMuted = muted
    }

    // MARK: - Receiving

    /// The feed, its mid for `kind` (from the roster) and what to ask Janus for.
    private func wish(_ subscriberId: String, _ publisherId: String, kind: PublishedTrackKind) throws(EngineError) -> JanusReceivedStream.Wish {
        guard subscriberId == participantId else { throw .unknownParticipant(subscriberId) }
        try refuseWhileReconnecting("consuming \(publisherId)'s \(kind)")
        let feed = try self.feed(of: publisherId)
        let tracks = model.roster.participant(feed: feed)?.tracks
        let rosterKind: JanusRoomRoster.TrackKind = kind == .microphone ? .microphone : kind == .screenShare ? .screenShare : .camera
        if let tracks, !tracks.isEmpty {
            guard let track = tracks.first(where: { $0.kind == rosterKind }) else { throw .notPublished(participant: publisherId, track: "\(kind)") }
            return .init(feed: feed, feedMid: track.mid, kind: kind)
        }
        return .init(feed: feed, feedMid: nil, kind: kind)
    }

    /// Receives `publisherId`'s camera (a participant id of the roster, or a Janus feed id), or
    /// its screen share (`RoomNode.screenShareKey`: the publisher's video stream Janus lists with
    /// the description "screen"), on the room's one subscriber peer connection: connected or
    /// updated on the signalling worker, completed back on the loop.
    func startSubscribing(_ subscriberId: String, to publisherId: String, runtime: EngineRuntime,
                          completion: @escaping LoopCompletion<SubscriptionRuntime>) {
        let owner = RoomNode.screenShareOwner(publisherId)
        let kind: PublishedTrackKind = owner == nil ? .camera : .screenShare
        startReceiving(subscriberId, owner ?? publisherId, kind: kind, runtime: runtime) { outcome in
            completion(Result { () throws(EngineError) in
                let stream = try outcome.get()
                guard let video = stream.video else { throw .notPublished(participant: publisherId, track: "\(kind)") }
                return video
            })
        }
    }

    private func startReceiving(_ subscriberId: String, _ publisherId: String, kind: PublishedTrackKind, runtime: EngineRuntime,
                                completion: @escaping JanusSubscriberConnection.Completion) {
        let wish: JanusReceivedStream.Wish
        do throws(EngineError) { wish = try self.wish(subscriberId, publisherId, kind: kind) } catch { return completion(.failure(error)) }
        receiving.consume([(wish, { [weak self] outcome in
            if case let .success(stream) = outcome, stream.video != nil {
                self?.events?.yield(.trackSubscribed(publisherId: publisherId, trackId: stream.mid))
            }
            completion(outcome)
        })])
    }

    /// With E2EE, a received video opens its frames with the room's key from its first packet.
    private func openFrames(of stream: JanusReceivedStream) {
        guard let video = stream.video, let e2ee else { return }
        do throws(EngineError) {
            video.frameOpener = try e2ee.makeOpener(for: keyOwner(of: stream.publisherId), nowMilliseconds: clock.monotonicMilliseconds())
        } catch {
            events?.yield(.failure(error))
        }
    }

    /// With `autoConsume`: the camera and microphone of `participants` (a joined room's
    /// everyone, or one who published), in one request.
    func autoConsume(_ participants: [JanusRoomRoster.Participant], runtime: EngineRuntime) {
        guard autoConsumes, model.mode.receives, let participantId else { return }
        var wishes: [(wish: JanusReceivedStream.Wish, completion: JanusSubscriberConnection.Completion)] = []
        for participant in participants where participant.id != participantId {
            for track in participant.tracks where !track.muted && track.kind != .screenShare {
                let kind: PublishedTrackKind = track.kind == .microphone ? .microphone : .camera
                let publisherId = participant.id
                wishes.append((.init(feed: participant.feed, feedMid: track.mid, kind: kind), { [weak self] outcome in
                    switch outcome {
                    case let .success(stream):
                        if stream.video != nil { self?.events?.yield(.trackSubscribed(publisherId: publisherId, trackId: stream.mid)) }
                    case let .failure(error):
                        self?.events?.yield(.failure(error))
                    }
                }))
            }
        }
        if !wishes.isEmpty { receiving.consume(wishes) }
    }

    /// Janus's `configure` for the subscription: the substream (and, for a quality, the top
    /// temporal layer) the preference maps to; `.disabled` stops the video (`send: false`).
    func setPreference(_ preference: EffectivePreference, subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) {
        let stream = try receivedVideo(subscriberId, publisherId)
        var spatial: Int?
        var send = true
        switch preference {
        case let .quality(quality): spatial = quality.rawValue
        case let .viewPort(size): spatial = size.height <= 180 ? 0 : size.height <= 360 ? 1 : 2
        case .disabled: send = false
        }
        adaptive.setDisabledByApp(!send, mid: stream.mid)
        // A video adaptive subscriptions paused stays paused at Janus until they resume it.
        if adaptive.isPaused(JanusAdaptiveSubscriptions.key(of: stream)) { send = false }
        // From the worker: a refusal or a failure reaches the participant as a `.failure` event.
        let events = events
        receiving.configure([.init(mid: stream.mid, send: send, substream: spatial)]) { failure in
            events?.yield(.failure(.systemFailure("Janus configure: \(failure)")))
        }
        requestedLayers[stream.mid] = (spatial, nil)
    }

    func setScreenShareQuality(_ quality: VideoQuality, subscriber subscriberId: String,
                               publisher publisherId: String) throws(EngineError) -> ScreenShareQualityChange {
        throw .unsupportedInJanusRoom(.screenShareQuality)
    }

    /// docs/adaptive-subscriptions.md: a pinned video is paused last by the client-side adaptive
    /// subscriptions (`JanusAdaptiveSubscriptions`).
    func setPinned(_ pinned: Bool, subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) {
        adaptive.setPinned(pinned, key: JanusAdaptiveSubscriptions.key(of: try receivedVideo(subscriberId, publisherId)))
    }

    func stats(subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) -> RemoteVideoStats {
        let stream = try receivedVideo(subscriberId, publisherId)
        let layers = requestedLayers[stream.mid]
        var stats = RemoteVideoStats(received: stream.subscriber.statistics.video, preferredSpatialLayer: layers?.spatial,
                                     preferredTemporalLayer: layers?.temporal)
        stats.transportProtocol = .udp
        stats.selectedCandidatePair = receiving.selectedCandidatePair
        return stats
    }

    func startRecording(subscriber subscriberId: String, publisher publisherId: String, path: String) throws(EngineError) {
        let stream = try receivedVideo(subscriberId, publisherId)
        let statistics = stream.subscriber.statistics.video
        guard statistics.frameWidth > 0, let video = stream.video else {
            throw .notAllowed("recording starts once a frame of feed \(publisherId) arrived (its size heads the IVF)")
        }
        try video.startRecording(path: path, width: statistics.frameWidth, height: statistics.frameHeight)
    }

    func stopRecording(subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) {
        try receivedVideo(subscriberId, publisherId).video?.stopRecording()
    }

    /// The subscriber peer connections (one for every consumed stream of the room, or none).
    var subscriberConnectionCount: Int { receiving.demultiplexer == nil ? 0 : 1 }

    /// RTP packets of `publisherId`'s `kind` that reached the subscriber socket (nil: never received).
    func packetsOnSocket(from publisherId: String, kind: PublishedTrackKind) -> Int64? {
        guard let feed = try? feed(of: publisherId) else { return nil }
        return receiving.packetsOnSocket(feed: feed, kind: kind)
    }

    // MARK: - Remote audio

    /// Consumes the microphone of `publisherId`: the stream on the room's subscriber connection
    /// (subscribed if it is not yet); the receiver plays it out at the room's deadlines.
    func startConsumingMicrophone(_ subscriberId: String, of publisherId: String, runtime: EngineRuntime,
                                  completion: @escaping LoopCompletion<RemoteAudioRuntime>) {
        startReceiving(subscriberId, publisherId, kind: .microphone, runtime: runtime) { [clock] outcome in
            completion(Result { () throws(EngineError) in
                let stream = try outcome.get()
                guard stream.kind == .microphone else { throw .notPublished(participant: publisherId, track: "microphone") }
                guard stream.audio == nil else {
                    throw .notAllowed("\(subscriberId) already consumes feed \(publisherId)'s microphone (stop that track first)")
                }
                let audio = RemoteAudioRuntime(publisherId: publisherId, receiver: stream.subscriber.audio, now: clock.monotonicMicroseconds())
                stream.audio = audio
                return audio
            })
        }
    }

    /// Janus's `update` with `unsubscribe` for the stream: playout or decoding stops, the
    /// track's stream ends, and no more of its packets arrive.
    func stopConsuming(_ kind: PublishedTrackKind, subscriber subscriberId: String, publisher publisherId: String) {
        guard let stream = try? received(subscriberId, publisherId, kind: kind) else { return }
        receiving.unsubscribe(mid: stream.mid)
    }

    func microphoneStats(subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) -> RemoteAudioStats {
        guard let audio = try? received(subscriberId, publisherId, kind: .microphone).audio else {
            throw .notPublished(participant: publisherId, track: "consumed microphone")
        }
        return audio.stats(isMuted: nil)
    }

    /// The received video under publisher key `publisherKey`: a camera, or a screen share
    /// (`RoomNode.screenShareKey`, as `RemoteVideoTrack` names it).
    private func receivedVideo(_ subscriberId: String, _ publisherKey: String) throws(EngineError) -> JanusReceivedStream {
        if let owner = RoomNode.screenShareOwner(publisherKey) { return try received(subscriberId, owner, kind: .screenShare) }
        return try received(subscriberId, publisherKey, kind: .camera)
    }

    private func received(_ subscriberId: String, _ publisherId: String, kind: PublishedTrackKind) throws(EngineError) -> JanusReceivedStream {
        guard subscriberId == participantId else { throw .unknownParticipant(subscriberId) }
        let feed = try self.feed(of: publisherId)
        guard let stream = receiving.stream(feed: feed, kind: kind) else {
            throw .notPublished(participant: publisherId, track: kind == .microphone ? "consumed microphone" : "subscribed \(kind)")
        }
        return stream
    }

    func tick(runtime: EngineRuntime) {
        let now = clock.monotonicMicroseconds()
        applyKeyChanges(now: now)
        if let session { feeds.pass(session.publisher, at: now, pacingPushes: true, events: events) }
        screenShare?.pass(at: now, events: events)
        receiving.pass()
        // An outage is no measure of the downlink (JanusAdaptiveSubscriptions.pathCameBack).
        if model.mode.receives && !reconnect.isReconnecting { adaptSubscriptions() }
        for stream in receiving.streams.values {
            if let video = stream.video, let state = video.takeE2EEStateChange() {
                events?.yield(.e2eeStateChanged(publisherId: video.publisherId, state: state))
            }
        }
        let playoutNow = clock.monotonicMicroseconds()
        for stream in receiving.streams.values { stream.audio?.playDueSteps(now: playoutNow) }
        for event in speakers.serviceIfDue() { events?.yield(event) }
        if let change = quality.serviceIfDue() { events?.yield(change) }
        if now - lastKeepAliveMicroseconds > Self.keepAliveIntervalMicroseconds { sendKeepAlives(now: now) }
        followReconnect(nowMicroseconds: clock.monotonicMicroseconds())
    }

    /// Client-side adaptive subscriptions: the policy's pauses and resumes go to Janus as one
    /// subscriber `configure` (`send` per mid), and to the app as the hosted room's events.
    private func adaptSubscriptions() {
        let now = clock.monotonicMilliseconds()
        guard adaptive.isDue(nowMilliseconds: now) else { return }
        let pass = adaptive.evaluate(streams: Array(receiving.streams.values), bytesReceived: receiving.demultiplexer?.bytesReceived ?? 0,
                                     roster: model.roster, nowMilliseconds: now)
        guard !pass.events.isEmpty else { return }
        let events = events
        if !pass.settings.isEmpty {
            receiving.configure(pass.settings) { failure in events?.yield(.failure(.systemFailure("Janus configure: \(failure)"))) }
        }
        for event in pass.events {
            events?.yield(ParticipantEvent(adaptive: event, screenShareOwner: RoomNode.screenShareOwner(event.participantId)))
        }
    }

    /// Every Janus session of the room (the publisher's, the subscription's) kept alive, from the worker.
    private func sendKeepAlives(now: Int64) {
        lastKeepAliveMicroseconds = now
        let clients = LoopHandOff([session?.janus].compactMap { $0 } + model.parked.map(\.janus))
        let events = events
        signalling.run {
            do throws(JanusHTTPClient.Failure) {
                for client in clients.value { try client.keepAlive() }
            } catch {
                events?.yield(.failure(.systemFailure("Janus keepalive: \(error)")))
            }
        }
        receiving.keepAlive { failure in events?.yield(.failure(.systemFailure("Janus keepalive: \(failure)"))) }
    }

    /// The peer connections' sockets (UDP, or the ICE-TCP connection).
    func appendReadinessDescriptors(to descriptors: inout [Int32]) -> Bool {
        var complete = true
        if let session { complete = EngineCore.appendReadinessDescriptors(of: session.transport, to: &descriptors) }
        if !receiving.appendReadinessDescriptors(to: &descriptors) { complete = false }
        return complete
    }

    /// The earliest of the next waiting frame's slot, the publisher's pacer and probe steps
    /// (`Publisher.nextDeadline`), every received stream's deadlines (`Subscriber.nextDeadline`)
    /// and the next keepalive, with no fixed grain; at most `RoomBackendCadence.idleMicroseconds`
    /// away, the safety net for what sets no deadline of its own (ICE consent checks inside the
    /// transports, E2EE key changes). Nothing until a peer connection runs or an unpublished
    /// camera's session needs its keepalives.
    func nextDeadline(now: Int64) -> Int64 {
        guard session != nil || receiving.isRunning || !model.parked.isEmpty else { return .max }
        var earliest = min(now + RoomBackendCadence.idleMicroseconds, feeds.mediaDue(now: now, pacingPushes: true) ?? .max,
                           screenShare?.mediaDue(now: now) ?? .max,
                           lastKeepAliveMicroseconds + Self.keepAliveIntervalMicroseconds + 1)
        if let session { earliest = min(earliest, session.publisher.nextDeadline()) }
        earliest = min(earliest, receiving.nextDeadline(), nextReconnectDeadline())
        // Consumed microphones play out every 20 ms, and only while they are consumed.
        for stream in receiving.streams.values { if let audio = stream.audio { earliest = min(earliest, audio.nextStepMicroseconds) } }
        // Speakers every 100 ms while audio flows; quality every second while something is measured.
        earliest = min(earliest, speakers.nextEvaluationDue ?? .max, quality.nextReportDue ?? .max)
        return max(now, earliest)
    }

    /// A rotated or ratcheted key seals (and opens) the frames from the next pass on.
    private func applyKeyChanges(now: Int64) {
        guard let e2ee, let participantId, e2ee.keyProvider.version != e2eeKeysVersion else { return }
        e2eeKeysVersion = e2ee.keyProvider.version
        do {
            if let sealer { try e2ee.keyProvider.applyCurrentKey(to: sealer, of: participantId) }
            for stream in receiving.streams.values {
                guard let video = stream.video, let opener = video.frameOpener else { continue }
                try e2ee.keyProvider.applyCurrentKey(to: opener, of: keyOwner(of: video.publisherId), nowMilliseconds: now / 1000)
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
        receiving.close()
        feeds.finishSources()
        pendingMicrophone?.feed.finishSource(.failure(EngineError.closed("microphone track \(pendingMicrophone?.trackId ?? "")")))
        pendingMicrophone = nil
        screenShare?.finishSource("the room closed")
        screenShare = nil
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
        quality.setPublisher(nil)
        // The screen share rides the same peer connection: it goes too.
        screenShare?.finishSource("its camera unpublished")
        screenShare = nil
        screenShareStopping = nil
        model.parked.append(session)
        onWorker {
            try? session.publisher.sendGoodbye(reason: "unpublished")
            try? session.screenSharePublisher?.sendGoodbye(reason: "unpublished")
            _ = try? session.janus.message(JanusVideoRoomRequest.unpublish.body)
        }
    }

    /// A microphone still waiting for the camera's peer connection is simply dropped; one that
    /// rides a running connection cannot go alone (Janus would need a renegotiation).
    func unpublishMicrophone(_ participantId: String, trackId: String) throws(EngineError) {
        guard participantId == self.participantId else { throw .unknownParticipant(participantId) }
        if let pending = pendingMicrophone, pending.trackId == trackId {
            pending.feed.finishSource(.failure(EngineError.closed("microphone track \(trackId) (unpublished)")))
            pendingMicrophone = nil
            return
        }
        guard feeds.microphone?.trackId == trackId else { throw .notPublished(participant: participantId, track: "microphone \(trackId)") }
        throw .unsupportedInJanusRoom(.unpublishingMicrophoneAlone)
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
