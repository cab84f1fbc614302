/// Why a webcam quality cap could not be set.
public enum WebcamQualityCapError: Error, Equatable, Sendable, CustomStringConvertible {
    /// docs/sending-caps.md: setting the cap while the camera is off is an error.
    case cameraOff

    /// What was wrong and what is allowed.
    public var description: String {
        switch self {
        case .cameraOff: return "the webcam quality cannot be set while the camera is off: turn the camera on first"
        }
    }
}

/// The publisher's `setWebcamQuality` cap (docs/sending-caps.md): `.high` sends every layer, `.medium` stops
/// the largest, `.low` sends only the smallest (`LayerPlan.activeLayerIndices(cap:)`). It can
/// only be set while the camera is on, and persists when the camera is turned off and on again.
public struct WebcamQualityCap: Sendable, Equatable {
    /// The cap in force; `.high` (no cap) until set.
    public private(set) var quality: VideoQuality
    /// Whether the camera is currently on.
    public private(set) var isCameraOn: Bool

    public init(quality: VideoQuality = .high, isCameraOn: Bool = false) {
        self.quality = quality
        self.isCameraOn = isCameraOn
    }

    /// `setWebcamQuality`: throws `.cameraOff` (and keeps the old cap) while the camera is off.
    public mutating func setQuality(_ newQuality: VideoQuality) throws(WebcamQualityCapError) {
        guard isCameraOn else { throw .cameraOff }
        quality = newQuality
    }

    /// The camera was turned on; the earlier cap applies again.
    public mutating func cameraTurnedOn() { isCameraOn = true }

    /// The camera was turned off; the cap is kept for the next time it is on.
    public mutating func cameraTurnedOff() { isCameraOn = false }

    /// The layers of `plan` the cap lets through (always `[0]` on a single-layer plan).
    public func activeLayerIndices(in plan: LayerPlan) -> [Int] {
        plan.activeLayerIndices(cap: quality)
    }
}
