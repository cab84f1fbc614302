import EngineCore
import RTPWire
import SFrame

/// End-to-end encryption of the encoded layers as a publisher and a subscriber run it (issue 16):
/// `E2EEFrameSealer` on every layer's frame after the encoder (SFrame AES_128_GCM_SHA256_128,
/// RFC 9605 §4.5, the VP8 payload header in the clear) and `E2EEFrameOpener` on the sealed frame
/// after assembly. Thread CPU ns per frame (all layers, seal + open); a frame that does not open
/// back to itself fails the run.
final class E2EEFrameStage {
    private let sealer: E2EEFrameSealer
    private let opener: E2EEFrameOpener

    init() throws {
        let key = (0..<16).map { UInt8(truncatingIfNeeded: $0 &* 41 &+ 7) }
        sealer = E2EEFrameSealer(sender: try SFrameSender(suite: .aes128GcmSha256_128, keyID: 1, baseKey: key))
        let receiver = SFrameReceiver(suite: .aes128GcmSha256_128)
        try receiver.setKey(keyID: 1, baseKey: key, nowMilliseconds: 0)
        opener = E2EEFrameOpener(receiver: receiver)
    }

    /// Seals and opens one frame's layers; returns the thread CPU ns it took.
    func process(_ frames: [EncodedFrame]) throws -> Int64 {
        var cost: Int64 = 0
        for frame in frames {
            let start = threadCPUNanoseconds()
            let opened = try opener.openVideo(try sealer.sealVideo(frame.data), nowMilliseconds: 0)
            cost += threadCPUNanoseconds() - start
            guard opened == frame.data else { throw ValidationError(message: "an SFrame-sealed frame did not open back to itself") }
        }
        return cost
    }
}
