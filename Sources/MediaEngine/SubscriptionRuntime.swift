internal import EngineCore
import MediaCodecs
import SFrame

/// One received video as the loop runs it: the subscriber endpoint, the stream its decoded
/// frames go to, and a recording if one was started.
final class SubscriptionRuntime {
    let publisherId: String
    let subscriber: Subscriber
    /// The connection to the publisher's node in a hosted room (UDP, or TCP after a fallback);
    /// nil through an SFU's own WebRTC session (Janus).
    let path: MediaPathRuntime?
    /// Decoded frames: the stream a `RemoteVideoTrack` hands out, and where the loop puts them
    /// (the newest 4 wait when nobody reads).
    private(set) var frameStream: AsyncStream<VideoFrame>
    private(set) var frames: AsyncStream<VideoFrame>.Continuation
    /// False after `stopVideo()` until `restartVideo()`.
    private(set) var isConsumingVideo = true
    private(set) var recorder: ReceivedVideoRecorder?
    /// With E2EE: what opens the publisher's frames, and the state last reported.
    var frameOpener: E2EEFrameOpener? {
        didSet { subscriber.frameOpener = frameOpener }
    }
    var e2eeState: E2EEState = .ok
    var e2eeCountersSeen = SFrameReceiver.Counters()

    init(publisherId: String, subscriber: Subscriber, path: MediaPathRuntime?) {
        self.publisherId = publisherId
        self.subscriber = subscriber
        self.path = path
        (frameStream, frames) = AsyncStream.makeStream(of: VideoFrame.self, bufferingPolicy: .bufferingNewest(4))
        deliverFrames()
    }

    private func deliverFrames() {
        subscriber.onVideoFrame = { [frames] in frames.yield($0.frame) }
    }

    /// The app's video stops here: a recording finishes and `frames` ends.
    func stopVideo() {
        isConsumingVideo = false
        try? stopRecording()
        frames.finish()
    }

    /// A new frame stream for a video consumed again.
    func restartVideo() {
        (frameStream, frames) = AsyncStream.makeStream(of: VideoFrame.self, bufferingPolicy: .bufferingNewest(4))
        deliverFrames()
        isConsumingVideo = true
    }

    /// The E2EE state when it changed since the last call, judged on the frames since then:
    /// refused as missing a key, refused as not authentic, or opened.
    func takeE2EEStateChange() -> E2EEState? {
        guard let counters = frameOpener?.receiver.counters, counters != e2eeCountersSeen else { return nil }
        defer { e2eeCountersSeen = counters }
        let state: E2EEState
        if counters.unknownKey > e2eeCountersSeen.unknownKey {
            state = .missingKey
        } else if counters.authenticationFailures + counters.replayed + counters.truncated
                    > e2eeCountersSeen.authenticationFailures + e2eeCountersSeen.replayed + e2eeCountersSeen.truncated {
            state = .decryptionFailed
        } else {
            state = .ok
        }
        guard state != e2eeState else { return nil }
        e2eeState = state
        return state
    }

    /// Starts writing what arrives to `path` (IVF); a recording already running is finished first.
    func startRecording(path: String, width: Int, height: Int) throws(EngineError) {
        try stopRecording()
        do {
            let recorder = try ReceivedVideoRecorder(path: path, width: width, height: height)
            self.recorder = recorder
            subscriber.video.onAssembledFrame = { [unowned recorder] in recorder.append($0) }
        } catch {
            throw .systemFailure("recording to \(path): \(error)")
        }
    }

    func stopRecording() throws(EngineError) {
        guard let recorder else { return }
        subscriber.video.onAssembledFrame = nil
        self.recorder = nil
        do {
            try recorder.finish()
        } catch {
            throw .systemFailure("recording: \(error)")
        }
    }

    func close() {
        try? stopRecording()
        frames.finish()
    }
}
