internal import EngineCore
import MediaCodecs
internal import SessionCore
import Simulcast
internal import SRTP

/// One participant's camera as the loop runs it: the publisher (encoder, SRTP, feedback), the
/// room's forwarding node for it, and the slot its frames arrive in.
final class CameraRuntime {
    let trackId: String
    let publisher: Publisher
    let node: ForwardingNode
    let slot: PendingFrameSlot
    let frameIntervalMicroseconds: Int64
    var nextFrameMicroseconds: Int64 = 0
    var keyFramesReported = 0

    init(trackId: String, publisher: Publisher, node: ForwardingNode, slot: PendingFrameSlot, frameRate: Int) {
        self.trackId = trackId
        self.publisher = publisher
        self.node = node
        self.slot = slot
        frameIntervalMicroseconds = 1_000_000 / Int64(max(1, frameRate))
    }
}

/// One received video as the loop runs it: the subscriber endpoint and the stream its decoded
/// frames go to.
final class SubscriptionRuntime {
    let publisherId: String
    let subscriber: Subscriber
    /// Decoded frames: the stream a `RemoteVideoTrack` hands out, and where the loop puts them
    /// (the newest 4 wait when nobody reads).
    let frameStream: AsyncStream<VideoFrame>
    let frames: AsyncStream<VideoFrame>.Continuation

    init(publisherId: String, subscriber: Subscriber, frameStream: AsyncStream<VideoFrame>,
         frames: AsyncStream<VideoFrame>.Continuation) {
        self.publisherId = publisherId
        self.subscriber = subscriber
        self.frameStream = frameStream
        self.frames = frames
    }
}

/// One participant as the loop runs it.
final class ParticipantRuntime {
    let id: String
    let events: AsyncStream<ParticipantEvent>.Continuation
    var camera: CameraRuntime?
    var subscriptions: [String: SubscriptionRuntime] = [:]
    let quality = CallQualityReporter(publisher: nil, subscribers: [])

    init(id: String, events: AsyncStream<ParticipantEvent>.Continuation) {
        self.id = id
        self.events = events
    }

    func close() {
        if let camera { try? camera.publisher.sendGoodbye(reason: "left") }
        for subscription in subscriptions.values { subscription.frames.finish() }
        events.yield(.connectionStateChanged(.disconnected))
        events.finish()
    }
}

/// A room the engine hosts on 127.0.0.1 (SPEC §3–5 and §7's options): a `RoomNode` with one
/// forwarding node per published camera, every participant's publisher and subscribers, all on
/// loopback UDP with SRTP keys the engine makes. Loop-confined.
final class RoomRuntime {
    let id: String
    let options: RoomOptions
    private let room: RoomNode
    private var participants: [String: ParticipantRuntime] = [:]
    /// Join order, for deterministic passes.
    private var order: [String] = []

    init(id: String, options: RoomOptions) {
        self.id = id
        self.options = options
        room = RoomNode()
        room.onAdaptiveEvent = { [unowned self] record in
            let event: ParticipantEvent
            switch record.event.kind {
            case let .paused(reason): event = .subscriptionPaused(publisherId: record.event.participantId, reason: reason)
            case let .resumed(reason): event = .subscriptionResumed(publisherId: record.event.participantId, reason: reason)
            }
            participants[record.subscriberId]?.events.yield(event)
        }
    }

    // MARK: - Participants

    func join(_ participantId: String, events: AsyncStream<ParticipantEvent>.Continuation, runtime: EngineRuntime) throws(EngineError) {
        guard participants[participantId] == nil else { throw .duplicateParticipant(participantId) }
        let participant = ParticipantRuntime(id: participantId, events: events)
        participants[participantId] = participant
        order.append(participantId)
        room.addSubscriber(participantId, autoConsume: options.autoConsume)
        events.yield(.connectionStateChanged(.connected))
        if options.autoConsume {
            for publisherId in order where publisherId != participantId && participants[publisherId]?.camera != nil {
                try subscribe(participantId, to: publisherId, runtime: runtime)
            }
        }
    }

    func leave(_ participantId: String) {
        guard let participant = participants.removeValue(forKey: participantId) else { return }
        order.removeAll { $0 == participantId }
        participant.close()
    }

    private func participant(_ id: String) throws(EngineError) -> ParticipantRuntime {
        guard let participant = participants[id] else { throw .unknownParticipant(id) }
        return participant
    }

    // MARK: - Publishing

    /// Publishes `participantId`'s camera: a node in the room and a publisher sending to it.
    func publishCamera(_ participantId: String, trackId: String, settings: CameraSettings, slot: PendingFrameSlot,
                       runtime: EngineRuntime) throws(EngineError) {
        let participant = try participant(participantId)
        guard participant.camera == nil else { throw .alreadyPublished("camera") }
        do {
            let plan = try LayerPlan(width: settings.config.width, height: settings.config.height,
                                     multiStream: settings.multiStream, maxLayer: settings.maxLayer)
            let firstSSRC = runtime.randomSSRC()
            let video = VideoTrackConfiguration(plan: plan, ssrcs: plan.layers.indices.map { firstSSRC + UInt32($0) },
                                                frameRate: settings.config.frameRate)
            let publisherKeys = try runtime.freshKeys(), feedbackKeys = try runtime.freshKeys()
            let socket = try UDPSocket(bindingTo: .loopback(port: 0))
            try socket.setReceiveBufferSize(4 << 20)
            let node = try room.addPublisher(participantId, configuration: ForwardingNodeConfiguration(
                plan: plan, layerSSRCs: video.ssrcs, publisherKeys: publisherKeys, feedbackKeys: feedbackKeys,
                localSSRC: runtime.randomSSRC()), transport: socket)
            let publisher = try Publisher(
                configuration: PublisherConfiguration(video: video, security: .srtp(local: publisherKeys, remote: feedbackKeys),
                                                      cname: participantId),
                transport: try UDPTransport(destination: node.localEndpoint))
            if options.dynaCast {
                try publisher.setDynaCast(enabled: true)
                node.onWantedLayersChanged = { [unowned publisher] wanted in _ = try? publisher.updateWantedLayers(wanted) }
            }
            participant.camera = CameraRuntime(trackId: trackId, publisher: publisher, node: node, slot: slot,
                                               frameRate: settings.config.frameRate)
        } catch let error as EngineError {
            throw error
        } catch {
            throw .systemFailure("publishing \(participantId)'s camera: \(error)")
        }
        if options.autoConsume {
            for subscriberId in order where subscriberId != participantId {
                try subscribe(subscriberId, to: participantId, runtime: runtime)
            }
        }
    }

    func camera(of participantId: String) throws(EngineError) -> CameraRuntime {
        guard let camera = try participant(participantId).camera else { throw .notPublished(participant: participantId, track: "camera") }
        return camera
    }

    // MARK: - Subscribing

    /// Receivers start their estimate at 5 Mbps (no probing exists yet: from the library's
    /// 300 kbps a loopback viewer would need ten seconds to reach a 720p layer); loss still
    /// brings it down within a report interval.
    static let receiveEstimate = BandwidthEstimator.Configuration(initialBitsPerSecond: 5_000_000)

    /// The subscription of `subscriberId` to `publisherId`'s camera, made if it does not exist yet.
    @discardableResult
    func subscribe(_ subscriberId: String, to publisherId: String, runtime: EngineRuntime) throws(EngineError) -> SubscriptionRuntime {
        let subscriber = try participant(subscriberId)
        if let existing = subscriber.subscriptions[publisherId] { return existing }
        guard publisherId != subscriberId else { throw .notAllowed("a participant cannot subscribe to itself") }
        let camera = try camera(of: publisherId)
        let (frames, continuation) = AsyncStream.makeStream(of: VideoFrame.self, bufferingPolicy: .bufferingNewest(4))
        do {
            let downKeys = try runtime.freshKeys(), upKeys = try runtime.freshKeys()
            let socket = try UDPSocket(bindingTo: .loopback(port: 0))
            try socket.setReceiveBufferSize(4 << 20)
            let localSSRC = runtime.randomSSRC()
            let endpoint = try Subscriber(configuration: SubscriberConfiguration(
                localSSRC: localSSRC, cname: "\(subscriberId)<-\(publisherId)",
                security: .srtp(receiveKeys: downKeys, sendKeys: upKeys), senderRTCPEndpoint: camera.node.localEndpoint,
                video: VideoReceiver.Configuration(localSSRC: localSSRC, bandwidth: Self.receiveEstimate)), transport: socket)
            endpoint.onVideoFrame = { continuation.yield($0.frame) }
            try room.addFeed(publisher: publisherId, ForwardedSubscriberConfiguration(
                id: subscriberId, outputSSRC: runtime.randomSSRC(), destination: socket.localEndpoint, sendKeys: downKeys,
                receiveKeys: upKeys, preference: preference(.quality(.high))))
            room.consume(subscriber: subscriberId, participant: publisherId)
            subscriber.quality.attach(endpoint)
            let subscription = SubscriptionRuntime(publisherId: publisherId, subscriber: endpoint, frameStream: frames,
                                                   frames: continuation)
            subscriber.subscriptions[publisherId] = subscription
            subscriber.events.yield(.trackSubscribed(publisherId: publisherId, trackId: camera.trackId))
            return subscription
        } catch let error as EngineError {
            throw error
        } catch {
            throw .systemFailure("subscribing \(subscriberId) to \(publisherId): \(error)")
        }
    }

    func subscription(_ subscriberId: String, to publisherId: String) throws(EngineError) -> SubscriptionRuntime {
        guard let subscription = try participant(subscriberId).subscriptions[publisherId] else {
            throw .notPublished(participant: publisherId, track: "subscribed camera")
        }
        return subscription
    }

    /// A preference as the room's `maxResolution` maps it: `.sd` asks one layer lower (SPEC §7).
    func preference(_ preference: EffectivePreference) -> EffectivePreference {
        guard options.maxResolution == .sd, case let .quality(quality) = preference else { return preference }
        return .quality(VideoQuality(rawValue: max(0, quality.rawValue - 1)) ?? .low)
    }

    func setPreference(_ preference: EffectivePreference, subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) {
        _ = try subscription(subscriberId, to: publisherId)
        do {
            try room.node(for: publisherId)?.setPreference(self.preference(preference), for: subscriberId)
        } catch {
            throw .unknownParticipant(subscriberId)
        }
    }

    func stats(subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) -> RemoteVideoStats {
        let subscription = try subscription(subscriberId, to: publisherId)
        guard let node = room.node(for: publisherId), let forwarded = try? node.stats(for: subscriberId) else {
            throw .notPublished(participant: publisherId, track: "camera")
        }
        let received = subscription.subscriber.statistics
        return RemoteVideoStats(
            currentSpatialLayer: forwarded.currentSpatialLayer, preferredSpatialLayer: forwarded.preferredSpatialLayer,
            currentTemporalLayer: forwarded.currentTemporalLayer, preferredTemporalLayer: forwarded.preferredTemporalLayer,
            bitsPerSecond: forwarded.bitsPerSecond, codec: "VP8",
            frameSize: received.video.frameWidth > 0 ? VideoSize(width: received.video.frameWidth, height: received.video.frameHeight) : nil,
            roundTripMilliseconds: forwarded.roundTripMilliseconds, jitterMilliseconds: received.video.jitterMilliseconds,
            packetsLost: Int(received.video.packetsLost), framesDecoded: Int(received.video.framesDecoded))
    }

    // MARK: - Running

    func tick(runtime: EngineRuntime) {
        let now = monotonicMicroseconds()
        for id in order {
            guard let participant = participants[id], let camera = participant.camera,
                  now >= camera.nextFrameMicroseconds, let frame = camera.slot.take() else { continue }
            do {
                try camera.publisher.send(video: frame)
            } catch {
                participant.events.yield(.failure(.invalidFrame("\(error)")))
            }
            // Paced: the next frame waits a frame interval (a late loop does not bunch frames up).
            camera.nextFrameMicroseconds = max(camera.nextFrameMicroseconds + camera.frameIntervalMicroseconds, now)
        }
        _ = try? room.poll(timeoutMilliseconds: 0)
        room.service()
        for id in order {
            for subscription in participants[id]?.subscriptions.values ?? [:].values {
                _ = try? subscription.subscriber.step(timeoutMilliseconds: 0)
            }
        }
        _ = try? room.poll(timeoutMilliseconds: 0)
        for id in order {
            guard let participant = participants[id] else { continue }
            if let camera = participant.camera {
                while (try? camera.publisher.pollIncoming(timeoutMilliseconds: 0)) != nil {}
                for (subscriberId, event) in camera.node.forwarder.switchEvents.drain() {
                    participants[subscriberId]?.events.yield(.layerSwitched(LayerSwitch(
                        publisherId: id, from: event.from, to: event.to, reason: event.reason,
                        latencyMilliseconds: event.latencyMilliseconds)))
                }
                if camera.publisher.keyFramesRequested > camera.keyFramesReported {
                    camera.keyFramesReported = camera.publisher.keyFramesRequested
                    participant.events.yield(.keyFrameRequested(trackId: camera.trackId))
                }
            }
            if let change = participant.quality.serviceIfDue()?.change {
                participant.events.yield(.qualityChanged(previous: change.previous, current: change.overall, mos: change.mos))
            }
        }
    }

    func close() {
        for id in order { participants[id]?.close() }
        participants.removeAll()
        order.removeAll()
    }
}
