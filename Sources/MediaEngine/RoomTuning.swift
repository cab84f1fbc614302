/// Knobs of a hosted room that demos and tests turn (package-visible, not public API): how fast
/// the forwarder moves up, how estimates grow, how adaptive subscriptions hold. nil: the
/// library's default.
package struct RoomTuning: Sendable, Hashable {
    /// The layer selector's up-switch hold (docs/receiving.md hysteresis), ms.
    package var upSwitchHoldMilliseconds: Int64?
    /// How fast a subscriber's estimate grows without loss, per second (1.0 doubles each second).
    package var estimateGrowthPerSecond: Double?
    /// A receiver's estimate before any measurement, bits per second.
    package var initialReceiveEstimateBitsPerSecond: UInt64?
    /// A receiver's estimate ceiling, bits per second.
    package var maximumReceiveEstimateBitsPerSecond: UInt64?
    /// How long a recovered estimate must hold before adaptive subscriptions resume a video, ms.
    package var resumeHoldMilliseconds: Int64?

    package init() {}
}
