internal import EngineCore
import MediaCodecs
internal import SessionCore
import Simulcast
import SRTP

/// A plain RTP output as the loop runs it (`MediaEngine.sendPlainRTP`): one local participant,
/// one UDP socket, one `Publisher` carrying the camera's simulcast layers and the microphone.
/// Each pass is `PublisherFeeds`' (real time, or unpaced: the next frame in media-time order).
/// Closing sends the RTCP BYE (when reports are on) and finishes the pcap. Publish-only.
/// Loop-confined.
final class PlainRTPRuntime: PublishOnlyRoomBackend {
    let id: String
    let receivingUnsupported = EngineError.notAllowed("a plain RTP output only sends")
    private let setup: PlainRTPSetup
    /// End-to-end encryption of the frames, if asked for.
    private let e2ee: E2EEOptions?
    private let cname: String
    private let pacing: PlainRTPOptions.Pacing
    /// The one socket (RTP out, RTCP out and feedback in); let go of at close.
    private var socket: UDPSocket?
    /// Where each stream goes on the socket (per-layer and audio ports, RTCP ports).
    private var routing: PublisherRouting
    /// The pcap file every sent datagram is recorded in, when asked for; closed at close.
    private let pcap: PcapFile?
    private var participantId: String?
    private var events: AsyncStream<ParticipantEvent>.Continuation?
    private var publisher: Publisher?
    private var feeds = PublisherFeeds()
    /// Unpaced sending's media clock: the due time of the frame sent last.
    private var unpacedNow: Int64 = 0
    /// The counts at close (the publisher and socket are let go of then).
    private var finalStatistics: PlainRTPStatistics?
    private let clock: MediaClock

    var srtpKeyAndSalt: [UInt8]? { setup.srtpKeyAndSalt }
    var sdesCryptoAttribute: String? { setup.sdesCryptoAttribute }

    /// Checks `options`, opens the socket and the pcap; media flows once tracks are published.
    init(id: String, options: PlainRTPOptions, runtime: EngineRuntime) throws(EngineError) {
        self.id = id
        clock = runtime.clock
        setup = try PlainRTPSetup(options, runtime: runtime)
        e2ee = options.e2ee
        cname = options.cname
        pacing = options.pacing
        guard let defaultDestination = setup.videoDestinations.first ?? setup.audioDestination else {
            throw .invalidConfiguration("a plain RTP output needs a video or an audio destination")
        }
        do {
            var routing = try PublisherRouting(destination: defaultDestination, rtcpMux: options.rtcpMux,
                                               rtcpDestination: setup.rtcpDestination)
            if let audioDestination = setup.audioDestination { try routing.route(ssrc: setup.audioSSRC, to: audioDestination) }
            self.routing = routing
            if let path = options.pcapPath { pcap = try PcapFile(path: path) } else { pcap = nil }
        } catch {
            throw Self.setupError(error)
        }
        do {
            socket = try UDPSocket(sendingToward: defaultDestination)
        } catch {
            throw Self.setupError(.network(error))
        }
    }

    func join(_ participantId: String, events: AsyncStream<ParticipantEvent>.Continuation, keyProvider: E2EEKeyProvider?,
              runtime: EngineRuntime) throws(EngineError) {
        guard keyProvider == nil else { throw .notAllowed("per-participant E2EE keys need a hosted room") }
        guard self.participantId == nil else { throw .notAllowed("one local participant per plain RTP output") }
        self.participantId = participantId
        self.events = events
        events.yield(.connectionStateChanged(.connected))
    }

    func leave(_ participantId: String) {
        guard participantId == self.participantId else { return }
        close()
    }

    /// Builds the publisher for the camera's layers (and the microphone the options name, which
    /// is published after it) and routes each layer.
    func publishCamera(_ participantId: String, trackId: String, settings: CameraSettings, feed: TrackFeed<VideoFrame>,
                       runtime: EngineRuntime) throws(EngineError) {
        let socket = try openSocket(participantId)
        guard !setup.videoDestinations.isEmpty else { throw .notAllowed("this plain RTP output has no video destination") }
        guard feeds.camera == nil else { throw .alreadyPublished("camera") }
        let plan: LayerPlan
        do {
            plan = try LayerPlan(width: settings.config.width, height: settings.config.height,
                                 multiStream: settings.multiStream, maxLayer: settings.maxLayer)
        } catch {
            throw .invalidConfiguration("\(error)")
        }
        let destinations = setup.videoDestinations
        guard destinations.count == 1 || destinations.count == plan.layers.count else {
            throw .invalidConfiguration("\(destinations.count) video ports for \(plan.layers.count) layer(s): "
                + "give one port or one per layer, lowest first")
        }
        let video = VideoTrackConfiguration(plan: plan, ssrcs: plan.layers.indices.map { setup.firstVideoSSRC &+ UInt32($0) },
                                            payloadType: setup.videoPayloadType, frameRate: settings.config.frameRate)
        let sealer = try e2ee?.makeSealer(for: participantId)
        do {
            if destinations.count > 1 {
                for (ssrc, destination) in zip(video.ssrcs, destinations) { try routing.route(ssrc: ssrc, to: destination) }
            }
            let publisher = try makePublisher(setup.publisherConfiguration(video: video, cname: cname), on: socket, runtime: runtime)
            publisher.frameSealer = sealer
            self.publisher = publisher
            feeds.addCamera(trackId: trackId, feed: feed, frameRate: settings.config.frameRate, publisher: publisher)
        } catch {
            throw Self.setupError(error)
        }
    }

    /// Adds the microphone: to the camera's publisher, or (audio only) to a publisher of its own.
    func publishMicrophone(_ participantId: String, trackId: String, feed: TrackFeed<AudioFrame>,
                           runtime: EngineRuntime) throws(EngineError) {
        let socket = try openSocket(participantId)
        guard setup.audioDestination != nil else { throw .notAllowed("this plain RTP output has no audio destination") }
        guard feeds.microphone == nil else { throw .alreadyPublished("microphone") }
        if publisher == nil {
            guard setup.videoDestinations.isEmpty else {
                throw .notAllowed("publish the camera first: one publisher carries both tracks of a plain RTP output")
            }
            let sealer = try e2ee?.makeSealer(for: participantId)
            do {
                let audioOnly = try makePublisher(setup.publisherConfiguration(video: nil, cname: cname), on: socket, runtime: runtime)
                audioOnly.frameSealer = sealer
                publisher = audioOnly
            } catch {
                throw Self.setupError(error)
            }
        }
        feeds.addMicrophone(trackId: trackId, feed: feed)
    }

    func setMicrophoneMuted(_ muted: Bool, participant participantId: String) throws(EngineError) {
        guard participantId == self.participantId, feeds.microphone != nil else {
            throw .notPublished(participant: participantId, track: "microphone")
        }
        feeds.microphoneMuted = muted
    }

    func videoPublisher(of participantId: String) throws(EngineError) -> Publisher {
        guard participantId == self.participantId, feeds.camera != nil, let publisher else {
            throw .notPublished(participant: participantId, track: "camera")
        }
        return publisher
    }

    func tick(runtime: EngineRuntime) {
        guard let publisher else { return }
        let now = pacing == .realTime ? clock.monotonicMicroseconds() : nextUnpacedInstant()
        feeds.pass(publisher, at: now, pacingPushes: pacing == .realTime, events: events)
    }

    /// The one socket (feedback, when reports are on, arrives there).
    func appendReadinessDescriptors(to descriptors: inout [Int32]) -> Bool {
        guard let socket else { return true }
        return EngineCore.appendReadinessDescriptors(of: socket, to: &descriptors)
    }

    /// Unpaced with a source playing: the next frame after `RoomBackendCadence.unpacedFrameGapMicroseconds`
    /// (a receiver keeps up). Real time: the earliest of the next waiting frame's slot and the
    /// publisher's pacer and probe steps (`Publisher.nextDeadline`; feedback arrives on the
    /// socket the loop waits on, sender reports ride on sent frames), with no fixed grain;
    /// nothing before a track is published.
    func nextDeadline(now: Int64) -> Int64 {
        guard let publisher else { return .max }
        if pacing == .unpaced, feeds.sourceDue(now: unpacedNow) != nil { return now + RoomBackendCadence.unpacedFrameGapMicroseconds }
        let earliest = min(feeds.mediaDue(now: now, pacingPushes: pacing == .realTime) ?? .max, publisher.nextDeadline())
        return earliest == .max ? .max : max(now, earliest)
    }

    /// Unpaced: the media clock moves to the earliest frame a playing source has due, so one
    /// pass sends the next frame(s) in media-time order and the loop's wait between passes lets
    /// a receiver keep up.
    private func nextUnpacedInstant() -> Int64 {
        if let due = feeds.sourceDue(now: unpacedNow) { unpacedNow = max(unpacedNow, due) }
        return unpacedNow
    }

    var statistics: PlainRTPStatistics {
        if let finalStatistics { return finalStatistics }
        guard let publisher, socket != nil else {
            return PlainRTPStatistics(streams: [], videoFramesSent: 0, audioFramesSent: 0, reportsSent: 0, keyFramesRequested: 0,
                                      keyFrameRequestsThrottled: 0, rembsReceived: 0, lastREMBBitsPerSecond: nil,
                                      layerPausesByREMB: 0, layerResumesByREMB: 0, badFeedbackDatagrams: 0)
        }
        let streams = publisher.statistics.map { stream in
            PlainRTPStatistics.Stream(ssrc: stream.ssrc, name: stream.name, destination: "\(publisher.path.routing.destination(for: stream.ssrc))",
                                      packets: Int(stream.packets), payloadBytes: Int(stream.payloadOctets),
                                      wireBytes: Int(clamping: stream.wireBytes), retransmissions: stream.retransmissions)
        }
        return PlainRTPStatistics(streams: streams, videoFramesSent: feeds.videoFramesSent, audioFramesSent: feeds.audioFramesSent,
                                  reportsSent: publisher.reportsSent, keyFramesRequested: publisher.keyFramesRequested,
                                  keyFrameRequestsThrottled: publisher.keyFrameRequestsThrottled,
                                  rembsReceived: publisher.rembsReceived, lastREMBBitsPerSecond: publisher.lastREMBBitrate,
                                  layerPausesByREMB: publisher.layerPausesByREMB, layerResumesByREMB: publisher.layerResumesByREMB,
                                  badFeedbackDatagrams: publisher.feedbackErrors)
    }

    /// Goodbye (a last SR + SDES + BYE per stream, RFC 3550 §6.6) when reports are on, the pcap
    /// finished, the playing sources stopped, the events finished. Calling it again does nothing.
    func close() {
        guard finalStatistics == nil else { return }
        if let publisher, setup.reportIntervalMicroseconds > 0 {
            do {
                try publisher.sendGoodbye(reason: "left")
            } catch {
                events?.yield(.failure(PublisherFeeds.sendingError(error)))
            }
        }
        do {
            try pcap?.close()
        } catch {
            events?.yield(.failure(.systemFailure("\(error)")))
        }
        finalStatistics = statistics
        publisher = nil
        socket = nil
        feeds.finishSources()
        events?.yield(.connectionStateChanged(.disconnected))
        events?.finish()
        events = nil
    }

    /// The socket, while the output is open and `participantId` is its participant.
    private func openSocket(_ participantId: String) throws(EngineError) -> UDPSocket {
        guard let socket else { throw .closed("plain RTP output \(id)") }
        guard participantId == self.participantId else { throw .unknownParticipant(participantId) }
        return socket
    }

    /// The output's one publisher on `socket`, routed as set up, recording into the pcap file.
    private func makePublisher(_ configuration: PublisherConfiguration, on socket: UDPSocket,
                               runtime: EngineRuntime) throws(PublisherError) -> Publisher {
        let publisher = try Publisher(configuration: configuration, transport: socket, routing: routing, clock: clock,
                                      using: &runtime.random)
        publisher.path.recording = pcap
        return publisher
    }

    /// What a failure to open or publish is to the caller: a configuration that cannot work
    /// (SSRCs, ports), or the system (socket, codec, file).
    private static func setupError(_ error: PublisherError) -> EngineError {
        switch error {
        case .invalidConfiguration, .srtp: return .invalidConfiguration("\(error)")
        case let .network(network):
            if case .portOutOfRange = network { return .invalidConfiguration("\(network)") }
            return .systemFailure("\(error)")
        default: return .systemFailure("\(error)")
        }
    }
}
