import MediaEngine

extension Room {
    /// Squeezes everything the room forwards to `participantId` to `bitsPerSecond` (a policer:
    /// what exceeds it is lost, so the participant's estimate falls for real); nil opens it.
    public func limitDownlink(of participantId: String, to bitsPerSecond: Int?) async throws(EngineError) {
        try await setDownlinkLimit(bitsPerSecond, participant: participantId)
    }

    /// Datagrams the limit on `participantId`'s downlink dropped so far.
    public func droppedByDownlinkLimit(of participantId: String) async throws(EngineError) -> Int {
        try await downlinkDrops(participant: participantId)
    }
}

extension RoomOptions {
    /// The same options with a room's reaction times changed (nil: the library's default): the
    /// forwarder's up-switch hold (docs/receiving.md), how fast receivers' estimates grow per second
    /// without loss (1.0 doubles each second), where they start and their ceiling, and how long adaptive
    /// subscriptions hold a recovered estimate before resuming a video (docs/adaptive-subscriptions.md).
    public func tuned(upSwitchHoldMilliseconds: Int64? = nil, estimateGrowthPerSecond: Double? = nil,
                      initialReceiveEstimateBitsPerSecond: UInt64? = nil, maximumReceiveEstimateBitsPerSecond: UInt64? = nil,
                      resumeHoldMilliseconds: Int64? = nil) -> RoomOptions {
        var options = self
        options.tuning.upSwitchHoldMilliseconds = upSwitchHoldMilliseconds ?? options.tuning.upSwitchHoldMilliseconds
        options.tuning.estimateGrowthPerSecond = estimateGrowthPerSecond ?? options.tuning.estimateGrowthPerSecond
        options.tuning.initialReceiveEstimateBitsPerSecond = initialReceiveEstimateBitsPerSecond
            ?? options.tuning.initialReceiveEstimateBitsPerSecond
        options.tuning.maximumReceiveEstimateBitsPerSecond = maximumReceiveEstimateBitsPerSecond
            ?? options.tuning.maximumReceiveEstimateBitsPerSecond
        options.tuning.resumeHoldMilliseconds = resumeHoldMilliseconds ?? options.tuning.resumeHoldMilliseconds
        return options
    }
}

extension Room {
    /// The room's adaptive-subscription view of `participantId`: its estimated downlink (bps, nil
    /// before any estimate) and the videos paused for it, by publisher key (a participant id for
    /// a camera, `<id>/screen` for a screen share).
    public func adaptiveSubscriptions(of participantId: String) async throws(EngineError) -> (estimatedBitsPerSecond: Int?, paused: [String]) {
        try await adaptiveState(of: participantId)
    }
}
