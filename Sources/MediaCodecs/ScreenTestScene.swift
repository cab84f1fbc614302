/// A deterministic generated screen for screen-share tests, benchmarks and demos (issue 17): a
/// window with a title bar, a page of text in most of it, a small video-like picture in its
/// bottom-right corner and a mouse cursor. Frame `n` is a pure function of (`seed`,
/// `frameRate`, `n`, size): integer arithmetic only, no clocks, no system randomness.
///
/// Timeline, repeating every `cycleSeconds` (8 s):
/// - seconds 0–3 of a cycle: **still** — nothing moves, not even the cursor or the video;
/// - seconds 3–5: **scrolling** — the text scrolls up steadily (half the text area's height in
///   the 2 s), the cursor glides across, the video plays;
/// - seconds 5–8: **still** again, at the scrolled position;
/// - every new cycle starts with a **slide flip**: another page of text (another title-bar
///   colour) from the top. Frame 0 is the first page; flips are at 8 s, 16 s, …
public struct ScreenTestScene: Sendable, Equatable {
    /// What the screen does around one frame.
    public enum Phase: Sendable, Equatable {
        case still
        case scrolling
    }

    /// Seeds the text; different seeds give different (but equally deterministic) pages.
    public var seed: UInt64
    /// Frames per second the timeline is laid out at.
    public var frameRate: Int
    /// Length of one cycle (still, scrolling, still), seconds.
    public static let cycleSeconds = 8
    /// When the scrolling starts and stops within a cycle, seconds.
    public static let scrollingSeconds = 3..<5

    /// A scene at `frameRate` (clamped to 1...120) with the given seed.
    public init(seed: UInt64 = 1, frameRate: Int = 15) {
        self.seed = seed
        self.frameRate = min(120, max(1, frameRate))
    }

    /// Frames in one cycle.
    public var cycleFrames: Int { Self.cycleSeconds * frameRate }

    /// Whether frame `n` scrolls (and the cursor and video move) or stands still.
    public func phase(of n: Int) -> Phase {
        let inCycle = n % cycleFrames
        let scroll = Self.scrollingSeconds
        return inCycle >= scroll.lowerBound * frameRate && inCycle < scroll.upperBound * frameRate ? .scrolling : .still
    }

    /// Whether frame `n` is the first of a new slide (a whole-screen change). Frame 0 is not.
    public func isSlideFlip(_ n: Int) -> Bool { n > 0 && n % cycleFrames == 0 }

    /// Whether frame `n` differs from frame `n - 1` (frame 0 counts as a change): a flip, every
    /// scrolling frame after the first, and the first still frame after the scrolling.
    public func differsFromPrevious(_ n: Int) -> Bool {
        guard n > 0, !isSlideFlip(n) else { return true }
        let inCycle = n % cycleFrames
        let start = Self.scrollingSeconds.lowerBound * frameRate, end = Self.scrollingSeconds.upperBound * frameRate
        return inCycle > start && inCycle <= end
    }

    /// The last frame at or before `n` that differs from the one before it.
    public func lastChange(atOrBefore n: Int) -> Int {
        var frame = max(0, n)
        while frame > 0 && !differsFromPrevious(frame) { frame -= 1 }
        return frame
    }

    /// Whether whole second `second` is static for an encoder that refines a still picture for
    /// `refinementFrames` frames: no frame of it changes and it starts more than that after the
    /// last change (what a static screen sends: keep-alives only).
    public func isStaticSecond(_ second: Int, refinementFrames: Int) -> Bool {
        let start = second * frameRate
        guard second > 0 else { return false }
        return (start..<(start + frameRate)).allSatisfy { !differsFromPrevious($0) }
            && start - lastChange(atOrBefore: start) > refinementFrames
    }

    /// Whether every frame of whole second `second` scrolls.
    public func isScrollingSecond(_ second: Int) -> Bool {
        let start = second * frameRate
        return (start..<(start + frameRate)).allSatisfy { phase(of: $0) == .scrolling }
    }

    /// The slide (page) shown at frame `n`: 0, 1, 2, ….
    public func slide(of n: Int) -> Int { n / cycleFrames }

    /// Frames of scrolling so far in frame `n`'s cycle (0 during the first still part).
    func scrolledFrames(_ n: Int) -> Int {
        let inCycle = n % cycleFrames
        let start = Self.scrollingSeconds.lowerBound * frameRate, end = Self.scrollingSeconds.upperBound * frameRate
        return min(max(0, inCycle - start), end - start)
    }

    /// Where the page of text is on a `width`x`height` screen (what text PSNR is measured on):
    /// below the title bar, left of the video and clear of the cursor's path.
    public static func textRegion(width: Int, height: Int) -> CropRect {
        let layout = ScreenLayout(width: width, height: height)
        return layout.text
    }

    /// A renderer for many frames of one size (up to `SimulcastEncoder.screenCaptureMaximum`).
    public func renderer(width: Int, height: Int) throws(VideoFrameError) -> ScreenTestSceneRenderer {
        try ScreenTestSceneRenderer(scene: self, width: width, height: height)
    }
}

/// Where the parts of the generated screen go at one size (even coordinates throughout).
struct ScreenLayout {
    let titleBar: CropRect
    let text: CropRect
    let video: CropRect
    /// Pixels per glyph dot (1 below 1080 rows, 2 from 1080: a 14-pixel font on a 1080p screen).
    let dot: Int
    /// The band the cursor moves in (below the text's bottom edge) and its size.
    let cursorBandY: Int
    let cursorSize: (width: Int, height: Int)

    init(width: Int, height: Int) {
        let even = { (value: Int) in value & ~1 }
        dot = max(1, height / 540)
        let barHeight = max(2, even(height / 27))
        titleBar = CropRect(x: 0, y: 0, width: width, height: barHeight)
        cursorSize = (width: max(2, even(6 * dot)), height: max(2, even(10 * dot)))
        let cursorBand = cursorSize.height + 2 * dot
        let videoWidth = max(2, even(width / 4)), videoHeight = max(2, even(height / 4))
        video = CropRect(x: even(width - videoWidth), y: even(height - videoHeight), width: videoWidth, height: videoHeight)
        let textTop = barHeight
        let textHeight = max(2, even(height - textTop - cursorBand))
        text = CropRect(x: 0, y: textTop, width: max(2, even(width - videoWidth)), height: textHeight)
        cursorBandY = even(textTop + textHeight)
    }
}
