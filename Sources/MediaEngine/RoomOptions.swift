/// The camera size a room opens by default (docs/joining-a-room.md).
public enum MaxResolution: Sendable, Hashable {
    /// 1280x720 (three layers).
    case hd
    /// 960x540 (three layers); `setQuality` also asks one layer lower than it otherwise would.
    case sd
}

/// How a hosted room's node measures what each subscriber's downlink carries.
public enum DownlinkEstimation: Sendable, Hashable {
    /// The node's own send-side estimate (GCC, draft-ietf-rmcat-gcc-02) from the subscribers'
    /// transport-wide feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01), with padding
    /// probes to climb back after a squeeze; a subscriber's REMB still caps it.
    case transportWide
    /// The subscribers' REMB (draft-alvestrand-rmcat-remb) capped by the loss in their receiver
    /// reports: for receivers that send no transport-wide feedback.
    case receiverReports
}

/// Room options of docs/joining-a-room.md.
public struct RoomOptions: Sendable, Hashable {
    /// Default camera size, and how `setQuality` maps to layers.
    public var maxResolution: MaxResolution
    /// Whether a participant receives everyone's tracks without asking (docs/adaptive-subscriptions.md on-demand
    /// receiving when false).
    public var autoConsume: Bool
    /// Whether layers nobody watches are paused at the publisher (docs/sending-caps.md).
    public var dynaCast: Bool
    /// How each subscriber's downlink estimate (layer selection, adaptive subscriptions) is made.
    public var downlinkEstimation: DownlinkEstimation
    /// End-to-end encryption of every camera and microphone frame (nil: off; hops are SRTP either way).
    public var e2ee: E2EEOptions?
    /// Demo and test knobs (package-visible).
    package var tuning = RoomTuning()

    public init(maxResolution: MaxResolution = .hd, autoConsume: Bool = true, dynaCast: Bool = false,
                downlinkEstimation: DownlinkEstimation = .transportWide, e2ee: E2EEOptions? = nil) {
        self.e2ee = e2ee
        self.maxResolution = maxResolution
        self.autoConsume = autoConsume
        self.dynaCast = dynaCast
        self.downlinkEstimation = downlinkEstimation
    }
}

/// A camera track's encoder settings (docs/layer-plan.md): the size captured frames are scaled and
/// centre-cropped to, and the frame rate the engine paces them at.
public struct CameraEncoderConfig: Sendable, Hashable {
    public var width: Int
    public var height: Int
    public var frameRate: Int

    public init(width: Int, height: Int, frameRate: Int = 30) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
    }

    /// 1280x720 at 30 fps (the `.hd` room default).
    public static let h720p = CameraEncoderConfig(width: 1280, height: 720)
    /// 960x540 at 30 fps (the `.sd` room default).
    public static let h540p = CameraEncoderConfig(width: 960, height: 540)
    /// 640x360 at 30 fps (two layers).
    public static let h360p = CameraEncoderConfig(width: 640, height: 360)
    /// A screen share's default: 1920x1080 at 15 fps (full resolution and 960x540 with
    /// `multiStream`; frames are sent only when the screen changes).
    public static let screen1080p = CameraEncoderConfig(width: 1920, height: 1080, frameRate: 15)
    /// A 2560x1440 screen at 15 fps (with 1280x720 beside it with `multiStream`).
    public static let screen1440p = CameraEncoderConfig(width: 2560, height: 1440, frameRate: 15)
}
