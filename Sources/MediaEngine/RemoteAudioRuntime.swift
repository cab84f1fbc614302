internal import EngineCore
import MediaCodecs
internal import RTPWire

/// A consumed microphone as the loop runs it: the receiver of the publisher's audio plays out
/// through its jitter buffer at a 20 ms cadence the room's deadline (the engine's timer heap)
/// brings round, and each block goes to the stream a `RemoteAudioTrack` hands out. A loop that
/// comes late plays the missed steps at once, up to `maximumCatchUpSteps`; further behind, the
/// cadence restarts from now. Loop-confined.
final class RemoteAudioRuntime {
    static let stepMicroseconds: Int64 = 20_000
    static let maximumCatchUpSteps: Int64 = 10
    /// Blocks waiting when nobody reads (1 s); older ones are dropped.
    static let bufferedFrames = 50

    let publisherId: String
    let receiver: AudioReceiver
    /// What the track hands out, and where the loop puts it.
    let frameStream: AsyncStream<ReceivedAudioFrame>
    private let frames: AsyncStream<ReceivedAudioFrame>.Continuation
    /// When the next 20 ms step is due (the engine's monotonic clock).
    private(set) var nextStepMicroseconds: Int64
    private var lastLevel: UInt8?

    init(publisherId: String, receiver: AudioReceiver, now: Int64) {
        self.publisherId = publisherId
        self.receiver = receiver
        (frameStream, frames) = AsyncStream.makeStream(of: ReceivedAudioFrame.self,
                                                       bufferingPolicy: .bufferingNewest(Self.bufferedFrames))
        nextStepMicroseconds = now + Self.stepMicroseconds
        receiver.startPlayout()
    }

    /// Plays every step due at `now`.
    func playDueSteps(now: Int64) {
        if now - nextStepMicroseconds > Self.maximumCatchUpSteps * Self.stepMicroseconds { nextStepMicroseconds = now }
        while nextStepMicroseconds <= now {
            if let frame = receiver.playOut(nowMicroseconds: nextStepMicroseconds) {
                lastLevel = frame.audio.audioLevel.level
                frames.yield(frame)
            }
            nextStepMicroseconds += Self.stepMicroseconds
        }
    }

    func stats(isMuted: Bool?) -> RemoteAudioStats {
        let received = receiver.statistics
        let playout = receiver.playoutStatistics ?? .init()
        let step = Int(Self.stepMicroseconds / 1_000)
        return RemoteAudioStats(
            packetsReceived: Int(received.packetsReceived), packetsLost: Int(received.packetsLost),
            jitterMilliseconds: received.jitterMilliseconds, framesDecoded: playout.decodedSteps,
            framesRecoveredByFEC: playout.recoveredSteps, concealedMilliseconds: playout.concealedSteps * step,
            jitterBufferDelayMilliseconds: playout.averageBufferDelayMilliseconds,
            jitterBufferTargetDelayMilliseconds: playout.targetDelayMilliseconds, audioLevel: lastLevel, isMuted: isMuted,
            decoderErrors: Int(received.decoderErrors))
    }

    /// Consuming stops: the receiver goes back to arrival order and the stream finishes.
    func close() {
        receiver.stopPlayout()
        frames.finish()
    }
}
