internal import EngineCore
import MediaCodecs
internal import RTPWire

/// Writes a received video's assembled VP8 frames to an IVF file as they arrive (90 kHz
/// timebase, RTP time unwrapped), so a recording never grows in memory. The first write failure
/// stops it and is kept for `finish`.
///
/// The header's picture size is that of the first key frame recorded (its VP8 frame header,
/// RFC 6386 §9.1, which stays in the clear under end-to-end encryption): what the subscriber
/// received, not the publisher's top layer. The size given to `init` stands only for a
/// recording without a key frame.
final class ReceivedVideoRecorder {
    private var writer: IVFFileWriter?
    private(set) var failure: IVFError?
    private var timestamp: UInt64 = 0
    private var lastRTPTimestamp: UInt32?
    private var sizeFromKeyFrame = false

    init(path: String, width: Int, height: Int) throws(IVFError) {
        writer = try IVFFileWriter(path: path, width: width, height: height,
                                   timebaseNumerator: 1, timebaseDenominator: 90_000)
    }

    func append(_ frame: VP8AssembledFrame) {
        guard let writer else { return }
        if let last = lastRTPTimestamp {
            timestamp += UInt64(max(0, Int64(Int32(bitPattern: frame.timestamp &- last))))
        }
        lastRTPTimestamp = frame.timestamp
        if !sizeFromKeyFrame, frame.keyFrame, let info = try? VP8PayloadHeader(parsing: frame.data[...]).keyFrameInfo {
            writer.setPictureSize(width: Int(info.width), height: Int(info.height))
            sizeFromKeyFrame = true
        }
        do {
            try writer.append(frame: frame.data, timestamp: timestamp)
        } catch {
            failure = error
            self.writer = nil
        }
    }

    /// Closes the file; throws the first failure, if any.
    func finish() throws(IVFError) {
        if let failure { throw failure }
        try writer?.close()
        writer = nil
    }
}
