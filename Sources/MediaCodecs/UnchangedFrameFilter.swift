import Glibc

/// Change-driven frame rate for screen content (issue 17): once a picture has stopped changing
/// and has been encoded `refinementFrames` more times, a frame whose pixels equal the last frame
/// encoded costs no bits and is not sent, except one every `keepAliveFrames` (so a viewer that
/// joins, or lost a packet, still hears from the track) and whenever a key frame is due.
///
/// Why refine first: after a slide flip or a scroll, a real-time VP8 frame within its budget
/// leaves text soft (about 31 dB on the 1080p test screen); each further encode of the same
/// picture spends its budget on what is still wrong (about 38 dB after a second at 15 fps),
/// so the still picture a viewer reads is sharp, and then the track goes quiet.
///
/// Keeps one copy of the last encoded picture (allocated once, reused); comparing is a row-wise
/// `memcmp` of the three planes. Not thread-safe: owned by one encoder.
struct UnchangedFrameFilter {
    /// An unchanged frame is still encoded when this many input frames passed since the last
    /// encoded one.
    let keepAliveFrames: Int
    /// Encodes of an unchanged picture before it stops being sent.
    let refinementFrames: Int
    private var previous: VideoFrame?
    private var framesSinceEncoded = 0
    /// Encodes of the current picture since it last changed.
    private var unchangedEncodes = 0

    init(keepAliveFrames: Int, refinementFrames: Int) {
        self.keepAliveFrames = max(1, keepAliveFrames)
        self.refinementFrames = max(0, refinementFrames)
    }

    /// What to do with one input frame.
    enum Decision: Equatable {
        /// Encode it: it changed, or a key frame is due.
        case encode
        /// Encode it to sharpen a picture that stopped changing (see the type's notes).
        case refine
        /// Encode it as a keep-alive: unchanged and refined already, so nothing of it needs
        /// coding (the encoder makes it an all-skip frame of a few bytes).
        case keepAlive
        /// Do not encode or send it.
        case skip
    }

    /// Decides on the frame in `planes`. A frame that is not skipped must be passed to
    /// `encoded(_:)` once encoded.
    mutating func decide(_ planes: ConstPlanes, keyFrameDue: Bool) -> Decision {
        framesSinceEncoded += 1
        let unchanged = previous.map { previous in
            previous.width == planes.width && previous.height == planes.height
                && previous.withUnsafePlanes { Self.equal($0, planes) }
        } ?? false
        unchangedEncodes = unchanged ? unchangedEncodes : 0
        guard unchanged, !keyFrameDue else { return .encode }
        guard unchangedEncodes >= refinementFrames else { return .refine }
        return framesSinceEncoded < keepAliveFrames ? .skip : .keepAlive
    }

    /// Remembers `planes` as the last encoded picture.
    mutating func encoded(_ planes: ConstPlanes) {
        framesSinceEncoded = 0
        unchangedEncodes += 1
        if previous?.width != planes.width || previous?.height != planes.height {
            previous = VideoFrame(unchecked: planes.width, height: planes.height)
        }
        previous!.withUnsafeMutablePlanes { copy in
            VideoFrame.copyPlane(planes.y, planes.strideY, copy.y, copy.strideY, planes.width, planes.height)
            let cw = (planes.width + 1) / 2, ch = (planes.height + 1) / 2
            VideoFrame.copyPlane(planes.u, planes.strideU, copy.u, copy.strideU, cw, ch)
            VideoFrame.copyPlane(planes.v, planes.strideV, copy.v, copy.strideV, cw, ch)
        }
    }

    private static func equal(_ a: ConstPlanes, _ b: ConstPlanes) -> Bool {
        let cw = (a.width + 1) / 2, ch = (a.height + 1) / 2
        return rowsEqual(a.y, a.strideY, b.y, b.strideY, rowBytes: a.width, rows: a.height)
            && rowsEqual(a.u, a.strideU, b.u, b.strideU, rowBytes: cw, rows: ch)
            && rowsEqual(a.v, a.strideV, b.v, b.strideV, rowBytes: cw, rows: ch)
    }

    private static func rowsEqual(_ a: UnsafePointer<UInt8>, _ strideA: Int, _ b: UnsafePointer<UInt8>, _ strideB: Int,
                                  rowBytes: Int, rows: Int) -> Bool {
        for row in 0..<rows where memcmp(a + row * strideA, b + row * strideB, rowBytes) != 0 { return false }
        return true
    }
}
