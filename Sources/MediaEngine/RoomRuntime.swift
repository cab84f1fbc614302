internal import EngineCore
import Foundation
import MediaCodecs
internal import SessionCore
import Simulcast
import SRTP
import SFrame

/// A room the engine hosts on 127.0.0.1 (docs/receiving.md to docs/adaptive-subscriptions.md and docs/joining-a-room.md's options): a `RoomNode` with one
/// forwarding node per publishing participant (camera, and mic beside it), every participant's
/// publishers and subscribers, all on loopback with SRTP keys the engine makes, and the room's
/// active-speaker detection. Each node listens on UDP and TCP (`UDPAndTCPTransport`); each
/// participant's connection to a node goes the way its `preferredProtocol` says
/// (`MediaPathRuntime`), and one that falls back to TCP is moved at its node. Loop-confined.
final class RoomRuntime {
    let id: String
    let options: RoomOptions
    let room: RoomNode
    let speakers: RoomSpeakers
    /// The engine's clock: every endpoint of the room reads it.
    private let clock: MediaClock
    private(set) var participants: [String: ParticipantRuntime] = [:]
    /// Join order, for deterministic passes.
    private(set) var order: [String] = []
    private var nextRankingMicroseconds: Int64 = 0
    /// The key provider's version last applied to sealers and openers (E2EE only).
    private var e2eeKeysVersion = -1

    init(id: String, options: RoomOptions, clock: MediaClock) {
        self.id = id
        self.options = options
        self.clock = clock
        speakers = RoomSpeakers(clock: clock)
        var adaptive = AdaptiveSubscriptionPolicy.Configuration()
        if let hold = options.tuning.resumeHoldMilliseconds { adaptive.resumeHoldMilliseconds = hold }
        room = RoomNode(adaptive: adaptive, clock: clock)
        room.onAdaptiveEvent = { [unowned self] record in
            let event = ParticipantEvent(adaptive: record.event, screenShareOwner: RoomNode.screenShareOwner(record.event.participantId))
            participants[record.subscriberId]?.events.yield(event)
        }
    }

    // MARK: - Participants

    func join(_ participantId: String, events: AsyncStream<ParticipantEvent>.Continuation, keyProvider: E2EEKeyProvider?,
              runtime: EngineRuntime) throws(EngineError) {
        try join(participantId, events: events, keyProvider: keyProvider, preferredProtocol: .udpOverTCP, runtime: runtime)
    }

    func join(_ participantId: String, events: AsyncStream<ParticipantEvent>.Continuation, keyProvider: E2EEKeyProvider?,
              preferredProtocol: PreferredProtocol, mode: RoomMode = .sendAndRecv, displayName: String? = nil,
              runtime: EngineRuntime) throws(EngineError) {
        guard participants[participantId] == nil else { throw .duplicateParticipant(participantId) }
        guard RoomNode.screenShareOwner(participantId) == nil else {
            throw .invalidConfiguration("participant id \(participantId) ends with \(RoomNode.screenShareKeySuffix), which names screen shares")
        }
        if keyProvider != nil, options.e2ee == nil { throw .notAllowed("a key provider for a room without E2EE (set RoomOptions.e2ee)") }
        let sink = ParticipantEventSink(participantId: participantId, stream: events, tap: runtime.eventTap)
        let participant = ParticipantRuntime(id: participantId, events: sink, preferredProtocol: preferredProtocol, clock: clock)
        participant.keyProvider = keyProvider
        participant.mode = mode
        participant.displayName = displayName ?? participantId
        participants[participantId] = participant
        order.append(participantId)
        room.addSubscriber(participantId, autoConsume: options.autoConsume)
        events.yield(.connectionStateChanged(.connected))
        announceArrival(of: participant)
        if options.autoConsume, mode.receives {
            for publisherId in order where publisherId != participantId {
                for (key, _) in participants[publisherId]?.publishedVideos ?? [] {
                    try subscribe(participantId, to: key, runtime: runtime)
                }
            }
        }
    }

    func leave(_ participantId: String) {
        guard let participant = participants.removeValue(forKey: participantId) else { return }
        order.removeAll { $0 == participantId }
        speakers.removeParticipant(participantId, audioSSRC: participant.camera?.audioSSRC)
        announceDeparture(of: participant)
        participant.close()
        // Its microphone's consumers: their streams end.
        for other in participants.values { other.remoteAudio.removeValue(forKey: participantId)?.close() }
    }

    func participant(_ id: String) throws(EngineError) -> ParticipantRuntime {
        guard let participant = participants[id] else { throw .unknownParticipant(id) }
        return participant
    }

    // MARK: - Publishing

    /// Publishes `participantId`'s camera: a node in the room (with an audio SSRC reserved for
    /// the mic) and a publisher sending to it.
    func publishCamera(_ participantId: String, trackId: String, settings: CameraSettings, feed: TrackFeed<VideoFrame>,
                       runtime: EngineRuntime) throws(EngineError) {
        let participant = try participant(participantId)
        guard participant.camera == nil else { throw .alreadyPublished("camera") }
        participant.camera = try publishVideo(of: participant, key: participantId, trackId: trackId, settings: settings,
                                              feed: feed, runtime: runtime)
        announce(.trackPublished(participantId: participantId, track: PublishedTrack(kind: .camera)), by: participantId)
        try subscribeEveryone(to: participantId, runtime: runtime)
    }

    /// Publishes `participantId`'s screen share (issue 17): a node of its own under
    /// `RoomNode.screenShareKey(of:)`, its own SSRCs, RIDs and MID "2", and a publisher on its own
    /// socket, beside the camera (which need not be published).
    func publishScreenShare(_ participantId: String, trackId: String, settings: CameraSettings, feed: TrackFeed<VideoFrame>,
                            runtime: EngineRuntime) throws(EngineError) {
        let participant = try participant(participantId)
        guard participant.screenShare == nil else { throw .alreadyPublished("screen share") }
        let key = RoomNode.screenShareKey(of: participantId)
        participant.screenShare = try publishVideo(of: participant, key: key, trackId: trackId, settings: settings,
                                                   feed: feed, runtime: runtime)
        announce(.trackPublished(participantId: participantId, track: PublishedTrack(kind: .screenShare)), by: participantId)
        try subscribeEveryone(to: key, runtime: runtime)
    }

    /// With `autoConsume`, every other participant receives the video published under `key`.
    private func subscribeEveryone(to key: String, runtime: EngineRuntime) throws(EngineError) {
        guard options.autoConsume else { return }
        let ownerId = RoomNode.screenShareOwner(key) ?? key
        for subscriberId in order where subscriberId != ownerId && participants[subscriberId]?.mode.receives != false {
            try subscribe(subscriberId, to: key, runtime: runtime)
        }
    }

    /// A node in the room under publisher `key` and a publisher sending `settings`' plan to it:
    /// a camera (with an audio SSRC reserved for the mic, MID "0") or a screen share (MID "2",
    /// two temporal layers in the node's layer selector, no audio).
    private func publishVideo(of participant: ParticipantRuntime, key: String, trackId: String, settings: CameraSettings,
                              feed: TrackFeed<VideoFrame>, runtime: EngineRuntime) throws(EngineError) -> CameraRuntime {
        do {
            let plan = try settings.plan()
            let firstSSRC = runtime.randomSSRC()
            let screen = plan.content == .screen
            let video = VideoTrackConfiguration(plan: plan, ssrcs: plan.layers.indices.map { firstSSRC + UInt32($0) },
                                                mid: screen ? "2" : "0", frameRate: settings.config.frameRate)
            let audioSSRC: UInt32? = screen ? nil : firstSSRC + 0xF
            let publisherKeys = try runtime.freshKeys(), feedbackKeys = try runtime.freshKeys()
            let nodeTransport = try runtime.network.makeNodeSocket(clock: clock)
            let tuning = options.tuning
            var selector = LayerSelector.Configuration()
            selector.temporalBitrateShares = SimulcastEncoder.temporalBitrateShares(of: plan.content)
            if let hold = tuning.upSwitchHoldMilliseconds { selector.upSwitchHoldMilliseconds = hold }
            var lossControl = LossBasedRateControl.Configuration(initialBitsPerSecond: .max)
            if let growth = tuning.estimateGrowthPerSecond { lossControl.increasePerSecond = growth }
            var nodeConfiguration = ForwardingNodeConfiguration(
                plan: plan, layerSSRCs: video.ssrcs, publisherKeys: publisherKeys, feedbackKeys: feedbackKeys,
                localSSRC: runtime.randomSSRC(), selector: selector, audioSSRC: audioSSRC, subscriberLossControl: lossControl)
            if options.downlinkEstimation == .transportWide {
                // Where a receiver's own estimate starts, so a subscriber starts on its preferred layer.
                nodeConfiguration.downlinkEstimation = .init(
                    initialBitsPerSecond: tuning.initialReceiveEstimateBitsPerSecond ?? 5_000_000,
                    maximumBitsPerSecond: tuning.maximumReceiveEstimateBitsPerSecond ?? 20_000_000)
                nodeConfiguration.downlinkProbeSSRC = runtime.randomSSRC()
            }
            let node = try room.addPublisher(key, configuration: nodeConfiguration, transport: nodeTransport)
            let path = try runtime.mediaPath(.publishing, of: participant.id, preference: participant.preferredProtocol,
                                             node: nodeTransport)
            let publisher = try Publisher(
                configuration: PublisherConfiguration(video: video, security: .srtp(local: publisherKeys, remote: feedbackKeys),
                                                      cname: participant.id),
                transport: path.transport, routing: PublisherRouting(destination: node.localEndpoint), clock: clock,
                using: &runtime.random)
            publisher.frameSealer = try frameSealer(of: participant)
            if options.dynaCast {
                try publisher.setDynaCast(enabled: true)
                node.onWantedLayersChanged = { [unowned publisher, unowned participant] wanted in
                    guard let update = try? publisher.updateWantedLayers(wanted),
                          !update.paused.isEmpty || !update.resumed.isEmpty else { return }
                    participant.events.yield(.publishedLayersChanged(PublishedLayersChange(
                        wanted: wanted.sorted(), sending: update.sending, paused: update.paused, resumed: update.resumed,
                        source: settings.content)))
                }
            }
            return CameraRuntime(trackId: trackId, publisher: publisher, node: node, feed: feed,
                                 path: path, audioSSRC: audioSSRC, frameRate: settings.config.frameRate)
        } catch let error as EngineError {
            throw error
        } catch {
            throw .systemFailure("publishing \(participant.id)'s \(settings.content == .screen ? "screen share" : "camera"): \(error)")
        }
    }

    /// Publishes `participantId`'s microphone beside its camera (the camera's node forwards it).
    func publishMicrophone(_ participantId: String, trackId: String, feed: TrackFeed<AudioFrame>,
                           runtime: EngineRuntime) throws(EngineError) {
        let camera = try camera(of: participantId)
        guard camera.microphone == nil else { throw .alreadyPublished("microphone") }
        guard let audioSSRC = camera.audioSSRC else { throw .systemFailure("the camera's node has no audio SSRC") }
        guard let keys = camera.node.configuration.publisherKeys, let feedbackKeys = camera.node.configuration.feedbackKeys else {
            throw .systemFailure("the room's node has no SRTP keys")
        }
        do {
            let audio = AudioTrackConfiguration(ssrc: audioSSRC)
            let publisher = try Publisher(
                configuration: PublisherConfiguration(audio: audio, security: .srtp(local: keys, remote: feedbackKeys),
                                                      cname: participantId),
                transport: camera.path.transport, routing: camera.publisher.path.routing, clock: clock, using: &runtime.random)
            publisher.frameSealer = try frameSealer(of: participant(participantId))
            camera.microphone = MicrophoneRuntime(trackId: trackId, publisher: publisher, feed: feed,
                                                  channels: audio.opus.channels)
        } catch {
            throw .systemFailure("publishing \(participantId)'s microphone: \(error)")
        }
        speakers.map(ssrc: audioSSRC, participantId: participantId, trackId: trackId)
        announce(.trackPublished(participantId: participantId, track: PublishedTrack(kind: .microphone)), by: participantId)
    }

    func setMicrophoneMuted(_ muted: Bool, participant participantId: String) throws(EngineError) {
        guard let microphone = try camera(of: participantId).microphone else {
            throw .notPublished(participant: participantId, track: "microphone")
        }
        let changed = microphone.isMuted != muted
        microphone.isMuted = muted
        room.setMuted(muted, participant: participantId)
        if changed {
            announce(.trackMuteChanged(participantId: participantId, track: PublishedTrack(kind: .microphone, muted: muted)), by: participantId)
        }
    }

    func camera(of participantId: String) throws(EngineError) -> CameraRuntime {
        guard let camera = try participant(participantId).camera else { throw .notPublished(participant: participantId, track: "camera") }
        return camera
    }

    /// The video published under publisher `key`: a participant's camera, or its screen share
    /// (`RoomNode.screenShareKey(of:)`).
    func publishedVideo(_ key: String) throws(EngineError) -> CameraRuntime {
        guard let owner = RoomNode.screenShareOwner(key) else { return try camera(of: key) }
        guard let screenShare = try participant(owner).screenShare else {
            throw .notPublished(participant: owner, track: "screen share")
        }
        return screenShare
    }

    // MARK: - Subscribing

    /// The subscription of `subscriberId` to the video under publisher key `publisherId` (a
    /// camera and its mic, or a screen share), made if it does not exist yet. Receivers' REMB estimates start at 5 Mbps, as the node's own estimate of their
    /// downlink does (which probes to climb back after a squeeze).
    @discardableResult
    func subscribe(_ subscriberId: String, to publisherId: String, runtime: EngineRuntime) throws(EngineError) -> SubscriptionRuntime {
        let subscriber = try participant(subscriberId)
        if let existing = subscriber.subscriptions[publisherId] {
            // Made for its microphone alone, or its video stopped: the video (again).
            room.consume(subscriber: subscriberId, participant: publisherId, [.camera])
            if !existing.isConsumingVideo {
                existing.restartVideo()
                let ownerId = RoomNode.screenShareOwner(publisherId)
                subscriber.events.yield(.streamEnabled(participantId: ownerId ?? publisherId, kind: ownerId == nil ? .camera : .screenShare))
            }
            return existing
        }
        let ownerId = RoomNode.screenShareOwner(publisherId) ?? publisherId
        guard ownerId != subscriberId else { throw .notAllowed("a participant cannot subscribe to itself") }
        let camera = try publishedVideo(publisherId)
        do {
            let downKeys = try runtime.freshKeys(), upKeys = try runtime.freshKeys()
            guard let nodeTransport = camera.node.transport as? any RoomNodeSocket else {
                throw EngineError.systemFailure("\(publisherId)'s node has no socket of the engine's network")
            }
            let path = try runtime.mediaPath(.receiving(publisherId: publisherId), of: subscriberId, preference: subscriber.preferredProtocol,
                                             node: nodeTransport)
            let localSSRC = runtime.randomSSRC()
            let tuning = options.tuning
            let estimate = BandwidthEstimator.Configuration(
                initialBitsPerSecond: tuning.initialReceiveEstimateBitsPerSecond ?? 5_000_000, maximumBitsPerSecond: tuning.maximumReceiveEstimateBitsPerSecond ?? 20_000_000,
                increasePerSecond: tuning.estimateGrowthPerSecond ?? 0.25)
            let endpoint = try Subscriber(configuration: SubscriberConfiguration(
                localSSRC: localSSRC, cname: "\(subscriberId)<-\(publisherId)",
                security: .srtp(receiveKeys: downKeys, sendKeys: upKeys), senderRTCPEndpoint: camera.node.localEndpoint,
                video: VideoReceiver.Configuration(localSSRC: localSSRC, bandwidth: estimate),
                sendsTransportFeedback: options.downlinkEstimation == .transportWide), transport: path.transport, clock: clock)
            let subscription = SubscriptionRuntime(publisherId: ownerId, subscriber: endpoint, path: path)
            if let e2ee = options.e2ee {
                subscription.frameOpener = try E2EEOptions(keyProvider: subscriber.keyProvider ?? e2ee.keyProvider, suite: e2ee.suite)
                    .makeOpener(for: ownerId, nowMilliseconds: clock.monotonicMilliseconds())
            }
            endpoint.onAudioLevel = { [unowned speakers] in speakers.observe($0) }
            try room.addFeed(publisher: publisherId, ForwardedSubscriberConfiguration(
                id: subscriberId, outputSSRC: runtime.randomSSRC(), destination: path.transport.localEndpoint, sendKeys: downKeys,
                receiveKeys: upKeys, preference: preference(.quality(.high))), link: subscriber.downlink)
            room.consume(subscriber: subscriberId, participant: publisherId)
            subscriber.quality.attach(endpoint)
            subscriber.subscriptions[publisherId] = subscription
            subscriber.events.yield(.trackSubscribed(publisherId: ownerId, trackId: camera.trackId))
            subscriber.events.yield(.streamEnabled(participantId: ownerId, kind: ownerId == publisherId ? .camera : .screenShare))
            return subscription
        } catch let error as EngineError {
            throw error
        } catch {
            throw .systemFailure("subscribing \(subscriberId) to \(publisherId): \(error)")
        }
    }

    /// The subscription whose video `subscriberId` consumes (not one kept for its microphone
    /// alone, or whose video stopped).
    func subscription(_ subscriberId: String, to publisherId: String) throws(EngineError) -> SubscriptionRuntime {
        guard let subscription = try participant(subscriberId).subscriptions[publisherId], subscription.isConsumingVideo else {
            throw .notPublished(participant: RoomNode.screenShareOwner(publisherId) ?? publisherId,
                                track: RoomNode.screenShareOwner(publisherId) == nil ? "subscribed camera" : "subscribed screen share")
        }
        return subscription
    }

    /// A preference as the room's `maxResolution` maps it: `.sd` asks one layer lower (docs/joining-a-room.md).
    func preference(_ preference: EffectivePreference) -> EffectivePreference {
        guard options.maxResolution == .sd, case let .quality(quality) = preference else { return preference }
        return .quality(VideoQuality(rawValue: max(0, quality.rawValue - 1)) ?? .low)
    }

    func setPreference(_ preference: EffectivePreference, subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) {
        _ = try subscription(subscriberId, to: publisherId)
        // The room's `.sd` mapping is the webcam's (docs/joining-a-room.md); a screen share takes the preference as is.
        let mapped = RoomNode.screenShareOwner(publisherId) == nil ? self.preference(preference) : preference
        do {
            try room.node(for: publisherId)?.setPreference(mapped, for: subscriberId)
        } catch {
            throw .unknownParticipant(subscriberId)
        }
    }

    /// docs/joining-a-room.md `setScreenShareQuality`: the screen share of `publisherId` at `quality` for this
    /// subscriber; nothing changes on a single-layer screen share, and the result says so.
    func setScreenShareQuality(_ quality: VideoQuality, subscriber subscriberId: String,
                               publisher publisherId: String) throws(EngineError) -> ScreenShareQualityChange {
        let key = RoomNode.screenShareKey(of: publisherId)
        let layers = try publishedVideo(key).node.configuration.plan.layers
        _ = try subscription(subscriberId, to: key)
        guard layers.count > 1 else { return .singleLayer }
        try setPreference(.quality(quality), subscriber: subscriberId, publisher: key)
        let preferred = try? room.node(for: key)?.stats(for: subscriberId).preferredSpatialLayer
        let index = (preferred ?? nil) ?? 0
        return .preferred(VideoSize(width: layers[index].width, height: layers[index].height), layerIndex: index)
    }

    /// docs/adaptive-subscriptions.md: a pinned video is paused last for this subscriber.
    func setPinned(_ pinned: Bool, subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) {
        _ = try subscription(subscriberId, to: publisherId)
        room.setPinned(pinned, participant: publisherId, for: subscriberId)
    }

    func stats(subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) -> RemoteVideoStats {
        let subscription = try subscription(subscriberId, to: publisherId)
        guard let node = room.node(for: publisherId), let forwarded = try? node.stats(for: subscriberId) else {
            throw .notPublished(participant: RoomNode.screenShareOwner(publisherId) ?? publisherId, track: "video")
        }
        var stats = RemoteVideoStats(forwarded: forwarded, received: subscription.subscriber.statistics.video)
        stats.transportProtocol = subscription.path?.transportProtocol
        stats.protocolSwitchMilliseconds = subscription.path?.transport.switchedToTCPAfterMicroseconds.map { $0 / 1000 }
        return stats
    }

    func startRecording(subscriber subscriberId: String, publisher publisherId: String, path: String) throws(EngineError) {
        let subscription = try subscription(subscriberId, to: publisherId)
        let top = try publishedVideo(publisherId).node.configuration.plan.top
        try subscription.startRecording(path: path, width: top.width, height: top.height)
    }

    func stopRecording(subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) {
        try subscription(subscriberId, to: publisherId).stopRecording()
    }

    // MARK: - Remote audio

    /// `subscriberId` consumes `publisherId`'s microphone: the subscription to its camera's node
    /// (made if there is none, forwarding only the audio until the camera is subscribed) forwards
    /// the audio, and its receiver plays out through a jitter buffer at the room's deadlines.
    func startConsumingMicrophone(_ subscriberId: String, of publisherId: String, runtime: EngineRuntime,
                                  completion: @escaping LoopCompletion<RemoteAudioRuntime>) {
        completion(Result { () throws(EngineError) in
            let subscriber = try participant(subscriberId)
            guard subscriber.remoteAudio[publisherId] == nil else {
                throw .notAllowed("\(subscriberId) already consumes \(publisherId)'s microphone (stop that track first)")
            }
            guard try camera(of: publisherId).microphone != nil else { throw .notPublished(participant: publisherId, track: "microphone") }
            let made = subscriber.subscriptions[publisherId] == nil
            let subscription = try subscribe(subscriberId, to: publisherId, runtime: runtime)
            room.consume(subscriber: subscriberId, participant: publisherId, [.microphone])
            // Made for the microphone alone: the camera waits for `subscribe(to:)` (with
            // `autoConsume` the room already made the subscription, camera and all).
            if made {
                room.stopConsuming(subscriber: subscriberId, participant: publisherId, [.camera])
                subscription.stopVideo()
            }
            let audio = RemoteAudioRuntime(publisherId: publisherId, receiver: subscription.subscriber.audio,
                                           now: clock.monotonicMicroseconds())
            subscriber.remoteAudio[publisherId] = audio
            return audio
        })
    }

    /// The node stops forwarding `kind` of `publisherId` to `subscriberId` and the track's
    /// stream finishes; a video's subscription (its path, its microphone) stays, and
    /// `subscribe(to:)` starts its video again.
    func stopConsuming(_ kind: PublishedTrackKind, subscriber subscriberId: String, publisher publisherId: String) {
        guard let subscriber = participants[subscriberId] else { return }
        switch kind {
        case .microphone:
            guard let audio = subscriber.remoteAudio.removeValue(forKey: publisherId) else { return }
            room.stopConsuming(subscriber: subscriberId, participant: publisherId, [.microphone])
            audio.close()
        case .camera, .screenShare:
            let key = kind == .screenShare ? RoomNode.screenShareKey(of: publisherId) : publisherId
            guard let subscription = subscriber.subscriptions[key], subscription.isConsumingVideo else { return }
            room.stopConsuming(subscriber: subscriberId, participant: key, [.camera])
            subscription.stopVideo()
            subscriber.events.yield(.streamDisabled(participantId: publisherId, kind: kind))
        }
    }

    func microphoneStats(subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) -> RemoteAudioStats {
        guard let audio = try participant(subscriberId).remoteAudio[publisherId] else {
            throw .notPublished(participant: publisherId, track: "consumed microphone")
        }
        return audio.stats(isMuted: participants[publisherId]?.camera?.microphone?.isMuted)
    }

    // MARK: - Testing hooks

    /// Limits (nil: opens) everything the room forwards to `participantId`.
    func setDownlinkLimit(_ bitsPerSecond: Int?, participant participantId: String) throws(EngineError) {
        try participant(participantId).downlink.setRate(bitsPerSecond: bitsPerSecond,
                                                        nowMilliseconds: clock.monotonicMilliseconds())
    }

    func downlinkDrops(participant participantId: String) throws(EngineError) -> Int {
        try participant(participantId).downlink.dropped
    }

    func forwardingCounters(subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) -> ForwardedSubscriberCounters {
        guard let counters = try publishedVideo(publisherId).node.counters(for: subscriberId) else {
            throw .notPublished(participant: publisherId, track: "subscribed camera")
        }
        return counters
    }

    func nodeCounters(publisher publisherId: String) throws(EngineError) -> ForwardingNodeCounters {
        try publishedVideo(publisherId).node.counters
    }

    /// What the TCP side of `publisherId`'s node did with the connections it was offered.
    func tcpConnections(publisher publisherId: String) throws(EngineError) -> TCPConnectionSummary {
        guard let transport = try publishedVideo(publisherId).node.transport as? UDPAndTCPTransport else {
            throw .systemFailure("\(publisherId)'s node does not listen on TCP")
        }
        let counters = transport.tcpCounters
        return TCPConnectionSummary(
            accepted: counters.accepted, proven: counters.verified,
            closedUnproven: counters.verificationTimeouts + counters.failedChecks + counters.evictedUnverified + counters.refusedOverCap,
            droppedUnproven: counters.unverifiedDatagramsDropped, acceptFailuresForResources: counters.acceptFailuresForResources,
            sendsRefused: counters.sendsRefused)
    }

    func estimatedBandwidth(of participantId: String) -> Int? { room.estimatedBandwidth(for: participantId) }
    func pausedVideos(of participantId: String) -> [String] { room.pausedVideos(for: participantId) }
    func lowestVideoBitsPerSecond(of publisherId: String) -> Int? { room.lowestVideoBitsPerSecond(of: publisherId) }
    var audioBitsPerSecond: Int { room.audioBitsPerSecond }

    // MARK: - Running

    func tick(runtime: EngineRuntime) {
        let now = clock.monotonicMicroseconds()
        if let e2ee = options.e2ee { applyE2EEKeys(e2ee.keyProvider, now: now) }
        for id in order {
            guard let participant = participants[id] else { continue }
            for (_, video) in participant.publishedVideos {
                if let failure = video.sendDueMedia(now: now) { participant.events.yield(.failure(failure)) }
            }
        }
        _ = try? room.poll(timeoutMilliseconds: 0)
        room.service()
        for id in order {
            for subscription in participants[id]?.subscriptions.values ?? [:].values {
                _ = try? subscription.subscriber.step(timeoutMilliseconds: 0)
            }
        }
        _ = try? room.poll(timeoutMilliseconds: 0)
        let playoutNow = clock.monotonicMicroseconds()
        for id in order {
            for audio in participants[id]?.remoteAudio.values ?? [:].values { audio.playDueSteps(now: playoutNow) }
        }
        reportProtocolSwitches()
        reportSpeakers(now: now)
        for id in order {
            guard let participant = participants[id] else { continue }
            for (_, video) in participant.publishedVideos {
                video.drainFeedback()
                let source = video.node.configuration.plan.content
                for (subscriberId, event) in video.node.forwarder.switchEvents.drain() {
                    participants[subscriberId]?.events.yield(.layerSwitched(LayerSwitch(
                        publisherId: id, from: event.from, to: event.to, reason: event.reason,
                        latencyMilliseconds: event.latencyMilliseconds, source: source)))
                }
                if video.publisher.keyFramesRequested > video.keyFramesReported {
                    video.keyFramesReported = video.publisher.keyFramesRequested
                    participant.events.yield(.keyFrameRequested(trackId: video.trackId))
                }
            }
            for subscription in participant.subscriptions.values {
                if let state = subscription.takeE2EEStateChange() {
                    participant.events.yield(.e2eeStateChanged(publisherId: subscription.publisherId, state: state))
                }
            }
            if let change = participant.quality.serviceIfDue()?.change {
                participant.events.yield(.qualityChanged(previous: change.previous, current: change.overall, mos: change.mos))
            }
        }
    }

    // MARK: - End-to-end encryption

    /// With E2EE: the sealer of `participant`'s frames (made on first use, shared by its camera
    /// and microphone) under the provider's key for it; nil without E2EE.
    private func frameSealer(of participant: ParticipantRuntime) throws(EngineError) -> E2EEFrameSealer? {
        guard let e2ee = options.e2ee else { return nil }
        if let sealer = participant.frameSealer { return sealer }
        let sealer = try E2EEOptions(keyProvider: participant.keyProvider ?? e2ee.keyProvider, suite: e2ee.suite)
            .makeSealer(for: participant.id)
        participant.frameSealer = sealer
        return sealer
    }

    /// Key changes (rotation, ratchet) reach every sealer and opener at the next tick after
    /// them; an opener keeps the previous key for its grace period.
    private func applyE2EEKeys(_ roomProvider: E2EEKeyProvider, now: Int64) {
        // The sum of every provider's version moves whenever one of them changed.
        let version = order.reduce(roomProvider.version) { $0 &+ (participants[$1]?.keyProvider?.version ?? 0) }
        guard version != e2eeKeysVersion else { return }
        e2eeKeysVersion = version
        for id in order {
            guard let participant = participants[id] else { continue }
            let provider = participant.keyProvider ?? roomProvider
            if let sealer = participant.frameSealer { try? provider.applyCurrentKey(to: sealer, of: id) }
            for subscription in participant.subscriptions.values {
                guard let opener = subscription.frameOpener else { continue }
                try? provider.applyCurrentKey(to: opener, of: subscription.publisherId, nowMilliseconds: now / 1000)
            }
        }
    }

    /// A connection that moved to TCP: its participant hears of it, and once the node has
    /// verified the connection's credentials the node sends to (and takes RTCP from) that
    /// connection. (A publisher's node follows its media to the proven connection by itself:
    /// `PeerAddressLatch`.)
    private func reportProtocolSwitches() {
        for id in order {
            guard let participant = participants[id] else { continue }
            if let change = participant.camera?.path.takeSwitch() { participant.events.yield(.protocolSwitched(change)) }
            if let change = participant.screenShare?.path.takeSwitch() { participant.events.yield(.protocolSwitched(change)) }
            for (key, subscription) in participant.subscriptions {
                guard let path = subscription.path else { continue }
                if let change = path.takeSwitch() { participant.events.yield(.protocolSwitched(change)) }
                guard let peer = path.takeVerifiedTCPPeer() else { continue }
                do {
                    try publishedVideo(key).node.moveSubscriber(id, to: peer)
                } catch {
                    participant.events.yield(.failure(.systemFailure("moving \(id) to TCP at \(subscription.publisherId)'s node: \(error)")))
                }
            }
        }
    }

    /// Every 100 ms: speaker changes to every participant, and the ranking to adaptive
    /// subscriptions (the most dominant paused last).
    private func reportSpeakers(now: Int64) {
        if let update = speakers.feed.serviceIfDue() {
            for id in order {
                guard let events = participants[id]?.events else { continue }
                if let snapshot = update.snapshot { events.yield(.activeSpeakersChanged(snapshot)) }
                if let change = update.dominantSpeakerChange { events.yield(.dominantSpeakerChanged(change.current)) }
            }
        }
        if now >= nextRankingMicroseconds, speakers.feed.nextEvaluationDue != nil {
            room.setDominanceRanking(speakers.feed.dominanceRanking())
            nextRankingMicroseconds = now + 100_000
        }
    }

    // MARK: - Readiness

    /// Every socket of the room: each node's UDP, TCP listener and connections, each publisher's
    /// and each subscription's connection to its node.
    func appendReadinessDescriptors(to descriptors: inout [Int32]) -> Bool {
        for id in order {
            guard let participant = participants[id] else { continue }
            for (_, video) in participant.publishedVideos {
                guard EngineCore.appendReadinessDescriptors(of: video.node.transport, to: &descriptors),
                      EngineCore.appendReadinessDescriptors(of: video.path.transport, to: &descriptors) else { return false }
            }
            for subscription in participant.subscriptions.values {
                guard let path = subscription.path,
                      EngineCore.appendReadinessDescriptors(of: path.transport, to: &descriptors) else { return false }
            }
        }
        return true
    }

    /// The earliest deadline of the room's endpoints and its own periodic work, with no fixed
    /// grain (issue 27 item 1): every published track's (`CameraRuntime.nextDeadline`: node
    /// stages, frame cadence), every subscription's (`Subscriber.nextDeadline`: jitter buffer,
    /// NACK, key-frame requests, reports, transport feedback), the speaker evaluation and the
    /// dominance ranking while levels arrive or someone speaks, each participant's quality
    /// report. At most `RoomBackendCadence.idleMicroseconds` away: the safety net for what sets
    /// no deadline of its own (E2EE key changes, which the key provider does not signal; UDP
    /// checks of a path not yet confirmed). A past deadline is now.
    func nextDeadline(now: Int64) -> Int64 {
        var earliest = now + RoomBackendCadence.idleMicroseconds
        for id in order {
            guard let participant = participants[id] else { continue }
            for (_, video) in participant.publishedVideos { earliest = min(earliest, video.nextDeadline(now: now)) }
            for subscription in participant.subscriptions.values {
                earliest = min(earliest, subscription.subscriber.nextDeadline())
            }
            // Consumed microphones play out every 20 ms, and only while they are consumed.
            for audio in participant.remoteAudio.values { earliest = min(earliest, audio.nextStepMicroseconds) }
            earliest = min(earliest, participant.quality.nextReportDue)
        }
        if let speakers = speakers.feed.nextEvaluationDue {
            earliest = min(earliest, speakers, nextRankingMicroseconds)
        }
        return max(now, earliest)
    }

    func close() {
        for id in order { participants[id]?.close() }
        participants.removeAll()
        order.removeAll()
    }
}
