internal import EngineCore
import MediaCodecs
internal import RTPWire
import Simulcast

/// A Janus room's screen share (issue 28): the second video m-line of the camera's peer
/// connection (mid `JanusVideoRoomPublisher.screenShareMid`, described to Janus as "screen"):
/// published before the camera it waits for it and goes out in its first offer; published
/// after, it is added by a renegotiation (`JanusVideoRoomPublisher+ScreenShare`), as taking it
/// out is. It goes out on the
/// screen-share encoder settings of a hosted room (`LayerPlan(screenShareWidth:height:)`,
/// unchanged frames not encoded) as one layer. Its publisher shares the camera's transport; the
/// camera's publisher reads the feedback for both (`Publisher.bundledPublisher`). Loop-confined.
struct JanusScreenShare {
    let trackId: String
    let feed: TrackFeed<VideoFrame>
    /// The plan the app's settings give (a hosted room's screen-share plan).
    let plan: LayerPlan
    let frameRate: Int
    /// Once the camera's peer connection runs: the screen share's publisher and its paced frames.
    private(set) var publisher: Publisher?
    private var paced: PacedFeed<VideoFrame>?
    private(set) var framesSent = 0
    /// The renegotiation offer adding it, until Janus's answer comes.
    var awaitingAnswer: SimulcastOffer?

    init(trackId: String, settings: CameraSettings, feed: TrackFeed<VideoFrame>) throws(EngineError) {
        do {
            plan = try settings.plan()
        } catch {
            throw .invalidConfiguration("\(error)")
        }
        self.trackId = trackId
        self.feed = feed
        self.frameRate = settings.config.frameRate
    }

    /// The connected peer connection's screen-share publisher sends from the next pass.
    mutating func start(on publisher: Publisher) {
        self.publisher = publisher
        paced = PacedFeed(trackId: trackId, feed: feed, intervalMicroseconds: 1_000_000 / Int64(max(1, frameRate)))
    }

    /// Sends the frame due at `now`, if any (pushed frames at the track's frame rate). A frame
    /// that cannot be sent stops the playing source with the error, as the camera's does.
    mutating func pass(at now: Int64, events: AsyncStream<ParticipantEvent>.Continuation?) {
        guard let publisher, var paced else { return }
        if let frame = paced.takeDue(at: now, pacingPushes: true) {
            do throws(PublisherError) {
                try publisher.send(video: frame)
                framesSent += 1
            } catch {
                let failure = PublisherFeeds.sendingError(error)
                events?.yield(.failure(failure))
                feed.finishSource(.failure(failure))
            }
        }
        self.paced = paced
    }

    /// When the next waiting frame is due (nil: none waits, or not running yet).
    func mediaDue(now: Int64) -> Int64? { paced?.waitingDue(now: now, pacingPushes: true) }

    /// Stops a playing source (its `play(from:)` throws `.closed`).
    func finishSource(_ why: String) {
        feed.finishSource(.failure(EngineError.closed("screen share track \(trackId) (\(why))")))
    }
}
