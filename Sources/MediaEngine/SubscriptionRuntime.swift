internal import EngineCore
import MediaCodecs

/// One received video as the loop runs it: the subscriber endpoint, the stream its decoded
/// frames go to, and a recording if one was started.
final class SubscriptionRuntime {
    let publisherId: String
    let subscriber: Subscriber
    /// Decoded frames: the stream a `RemoteVideoTrack` hands out, and where the loop puts them
    /// (the newest 4 wait when nobody reads).
    let frameStream: AsyncStream<VideoFrame>
    let frames: AsyncStream<VideoFrame>.Continuation
    private(set) var recorder: ReceivedVideoRecorder?

    init(publisherId: String, subscriber: Subscriber) {
        self.publisherId = publisherId
        self.subscriber = subscriber
        (frameStream, frames) = AsyncStream.makeStream(of: VideoFrame.self, bufferingPolicy: .bufferingNewest(4))
        subscriber.onVideoFrame = { [frames] in frames.yield($0.frame) }
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
