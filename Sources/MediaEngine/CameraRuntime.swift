internal import EngineCore
import MediaCodecs

/// One published video track as the loop runs it (a camera, or a screen share): its publisher
/// (encoder, SRTP, feedback), the room's forwarding node for it, the feed its frames arrive in,
/// and, beside a camera once the microphone is published, the mic's publisher too. Both
/// publishers share one socket (the node latches one publisher address) and the feedback on it
/// goes to both.
final class CameraRuntime {
    let trackId: String
    let publisher: Publisher
    let node: ForwardingNode
    /// The camera's frames at its frame rate (pushed ones too: a faster capture does not queue).
    private var video: PacedFeed<VideoFrame>
    /// The connection to the node (UDP, or TCP after a fallback): both publishers send on its
    /// transport and receive feedback there.
    let path: MediaPathRuntime
    /// The SSRC the node forwards as this participant's audio (reserved when a camera's node was
    /// made; nil for a screen share, whose node forwards no audio).
    let audioSSRC: UInt32?
    var microphone: MicrophoneRuntime?
    var keyFramesReported = 0
    private var receiveBuffer = [UInt8](repeating: 0, count: 2048)

    init(trackId: String, publisher: Publisher, node: ForwardingNode, feed: TrackFeed<VideoFrame>,
         path: MediaPathRuntime, audioSSRC: UInt32?, frameRate: Int) {
        self.trackId = trackId
        self.publisher = publisher
        self.node = node
        video = PacedFeed(trackId: trackId, feed: feed, intervalMicroseconds: 1_000_000 / Int64(max(1, frameRate)))
        self.path = path
        self.audioSSRC = audioSSRC
    }

    /// When this track next needs the loop though no socket became readable (monotonic µs;
    /// `Int64.max`: none): its node's stages (`ForwardingNode.nextDeadline`), the camera frame's
    /// cadence slot, the microphone's next frame.
    func nextDeadline(now: Int64) -> Int64 {
        var earliest = node.nextDeadline()
        if let frame = video.waitingDue(now: now, pacingPushes: true) { earliest = min(earliest, frame) }
        if let audio = microphone?.nextDue(now: now) { earliest = min(earliest, audio) }
        return earliest
    }

    /// Loop: encodes and sends the camera frame that is due (paced at the frame rate; a late loop
    /// does not bunch frames up) and the microphone frames waiting. Returns what failed.
    func sendDueMedia(now: Int64) -> EngineError? {
        var failure: EngineError?
        if let frame = video.takeDue(at: now, pacingPushes: true) {
            do {
                try publisher.send(video: frame)
            } catch {
                failure = .invalidFrame("\(error)")
            }
        }
        if let error = microphone?.sendDueFrames(now: now) { failure = error }
        return failure
    }

    /// Loop: every feedback datagram waiting (PLI, NACK, RR, REMB) to both publishers; each
    /// takes what names its SSRCs.
    func drainFeedback() {
        while true {
            let received = receiveBuffer.withUnsafeMutableBytes { buffer in
                (try? publisher.path.receiveFeedback(into: buffer, timeoutMilliseconds: 0)) ?? nil
            }
            guard let received else { return }
            // Each publisher copies what it reads into its own buffer: no array per datagram.
            _ = try? publisher.handleIncoming(receiveBuffer[..<received])
            if let microphone { _ = try? microphone.publisher.handleIncoming(receiveBuffer[..<received]) }
        }
    }

    /// Goodbye on every stream (RTCP BYE), and the playing sources stop.
    func close() {
        try? publisher.sendGoodbye(reason: "left")
        microphone?.close()
        video.feed.finishSource(.failure(EngineError.closed("video track \(trackId)")))
    }
}
