internal import EngineCore
import MediaCodecs

/// The camera and microphone of a publish-only backend (a plain RTP output, a Janus room) and
/// what they do to its one `Publisher` each pass of the loop: the camera's frame when due (one
/// every 1/frame rate s), the microphone's frames when due (every 20 ms, silence while muted),
/// then the feedback waiting (PLI/FIR, NACK, REMB), its honoured key-frame requests and REMB
/// layer changes turned into events. A frame that cannot be sent stops its playing source with
/// the error, unless `downPathIsLoss` and the network path is down (`NetworkError.isPathDown`:
/// the link went away, a backend that reconnects reports that instead): then the frame is lost
/// like packets on the wire, counted in `framesLostToDownPath`. Loop-confined.
struct PublisherFeeds {
    /// Feedback datagrams handled per pass at most (the rest wait for the next pass).
    static let feedbackPerPass = 64
    static let microphoneIntervalMicroseconds: Int64 = 20_000

    private(set) var camera: PacedFeed<VideoFrame>?
    private(set) var microphone: PacedFeed<AudioFrame>?
    var microphoneMuted = false
    /// Called with every microphone frame as sent (silence while muted): a Janus room measures
    /// its own participant's level for active speakers from it.
    var onMicrophoneFrameSent: ((AudioFrame) -> Void)?
    private(set) var videoFramesSent = 0
    private(set) var audioFramesSent = 0
    /// A down path loses frames instead of failing them (a Janus room: it reports `.reconnecting`).
    var downPathIsLoss = false
    /// Frames not sent because the path was down (with `downPathIsLoss`).
    private(set) var framesLostToDownPath = 0
    /// Layers the REMB allowed when last reported.
    private var rembActiveLayers = 0
    /// Feedback datagrams handled so far.
    private var feedbackHandled = 0
    /// The last pass stopped at `feedbackPerPass`: more may wait, some perhaps already read from
    /// the socket (a `recvmmsg` batch, which `poll` does not see), so the next pass is due at once.
    private(set) var feedbackMayWait = false

    mutating func addCamera(trackId: String, feed: TrackFeed<VideoFrame>, frameRate: Int, publisher: Publisher) {
        camera = PacedFeed(trackId: trackId, feed: feed, intervalMicroseconds: 1_000_000 / Int64(max(1, frameRate)))
        rembActiveLayers = publisher.rembActiveLayerCount
    }

    mutating func addMicrophone(trackId: String, feed: TrackFeed<AudioFrame>) {
        microphone = PacedFeed(trackId: trackId, feed: feed, intervalMicroseconds: Self.microphoneIntervalMicroseconds)
    }

    /// Sends what is due at `now` (pushed camera frames wait for the cadence only when
    /// `pacingPushes`), then handles the feedback waiting.
    mutating func pass(_ publisher: Publisher, at now: Int64, pacingPushes: Bool,
                       events: AsyncStream<ParticipantEvent>.Continuation?) {
        if var camera {
            if let frame = camera.takeDue(at: now, pacingPushes: pacingPushes) {
                do throws(PublisherError) {
                    try publisher.send(video: frame)
                    videoFramesSent += 1
                } catch {
                    if downPathIsLoss, case let .network(network) = error, network.isPathDown {
                        framesLostToDownPath += 1
                    } else {
                        Self.fail(Self.sendingError(error), feed: camera.feed, events: events)
                    }
                }
            }
            self.camera = camera
        }
        if var microphone {
            while let frame = microphone.takeDue(at: now, pacingPushes: false) {
                do throws(PublisherError) {
                    let sent = microphoneMuted ? AudioFrame.silence(channels: frame.channels) : frame
                    try publisher.send(audio: sent)
                    audioFramesSent += 1
                    onMicrophoneFrameSent?(sent)
                } catch {
                    if downPathIsLoss, case let .network(network) = error, network.isPathDown {
                        framesLostToDownPath += 1
                        continue
                    }
                    Self.fail(Self.sendingError(error), feed: microphone.feed, events: events)
                    break
                }
            }
            self.microphone = microphone
        }
        handleFeedback(publisher, events: events)
    }

    /// The earliest time a playing source has a frame due (`now` if at once); nil when none plays.
    func sourceDue(now: Int64) -> Int64? {
        [camera?.sourceDue(now: now), microphone?.sourceDue(now: now)].compactMap { $0 }.min()
    }

    /// When the next waiting frame (camera or microphone, pushed or played) is due, or feedback
    /// left over from the last pass (now); nil: none waits.
    func mediaDue(now: Int64, pacingPushes: Bool) -> Int64? {
        if feedbackMayWait { return now }
        return [camera?.waitingDue(now: now, pacingPushes: pacingPushes), microphone?.waitingDue(now: now, pacingPushes: false)]
            .compactMap { $0 }.min()
    }


    /// Stops the playing sources (their `play(from:)` throws `.closed`).
    func finishSources() {
        camera?.feed.finishSource(.failure(EngineError.closed("camera track \(camera?.trackId ?? "")")))
        microphone?.feed.finishSource(.failure(EngineError.closed("microphone track \(microphone?.trackId ?? "")")))
    }

    /// The feedback waiting: what REMB paused or resumed, and each key frame made for a request.
    private mutating func handleFeedback(_ publisher: Publisher, events: AsyncStream<ParticipantEvent>.Continuation?) {
        var handled = 0
        while handled < Self.feedbackPerPass, let outcome = try? publisher.pollIncoming(timeoutMilliseconds: 0) {
            handled += 1
            feedbackHandled += 1
            if outcome.layersPaused > 0 || outcome.layersResumed > 0 {
                let before = rembActiveLayers, after = publisher.rembActiveLayerCount
                rembActiveLayers = after
                events?.yield(.publishedLayersChanged(PublishedLayersChange(
                    wanted: Array(0..<after), sending: publisher.sendingLayers,
                    paused: after < before ? Array(after..<before) : [], resumed: before < after ? Array(before..<after) : [],
                    rembBitsPerSecond: outcome.rembBitrate)))
            }
            if let camera {
                for _ in 0..<outcome.keyFramesRequested { events?.yield(.keyFrameRequested(trackId: camera.trackId)) }
            }
        }
        feedbackMayWait = handled == Self.feedbackPerPass
    }

    /// A frame could not be sent: the event says so, and a playing source stops with the error
    /// (its `play(from:)` throws it), as sending the rest would fail the same way.
    private static func fail(_ error: EngineError, feed: TrackFeed<some Any>, events: AsyncStream<ParticipantEvent>.Continuation?) {
        events?.yield(.failure(error))
        feed.finishSource(.failure(error))
    }

    /// What a failure to send a frame is: the frame (encoder, packetizer) or the system (socket, SRTP).
    static func sendingError(_ error: PublisherError) -> EngineError {
        switch error {
        case .encoder, .opus, .packetizer: return .invalidFrame("\(error)")
        default: return .systemFailure("sending: \(error)")
        }
    }
}
