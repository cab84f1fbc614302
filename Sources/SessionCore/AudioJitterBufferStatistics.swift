/// Counters of one `AudioJitterBuffer` (the audio fields of WebRTC's inbound-rtp stats map onto
/// them: `concealedSamples` from `concealedSteps`, `jitterBufferDelay` / `jitterBufferEmittedCount`
/// from `totalBufferDelayMicroseconds` / `decodedSteps`).
public struct AudioJitterBufferStatistics: Sendable, Equatable {
    public var packetsReceived = 0
    /// Packets whose turn came while a later packet was buffered (played as FEC or concealment).
    public var packetsLost = 0
    /// Packets that arrived after their turn.
    public var latePackets = 0
    public var duplicatePackets = 0
    /// Packets too large to be Opus (`AudioJitterBuffer.maximumPayloadBytes`).
    public var packetsRefused = 0
    /// Playout steps taken, and how each was played.
    public var steps = 0
    public var decodedSteps = 0
    public var recoveredSteps = 0
    public var concealedSteps = 0
    public var silentSteps = 0
    /// Steps skipped to bring the delay back down.
    public var droppedSteps = 0
    /// Times the buffer ran dry (each run of concealed steps counts once).
    public var underruns = 0
    /// Times playout (re)started after the target delay.
    public var starts = 0
    public var targetDelayMilliseconds = 0
    /// Sum over decoded packets of the time each waited in the buffer.
    public var totalBufferDelayMicroseconds: Int64 = 0

    public init() {}

    /// Mean time a decoded packet waited in the buffer, in milliseconds (0 before the first).
    public var averageBufferDelayMilliseconds: Double {
        decodedSteps == 0 ? 0 : Double(totalBufferDelayMicroseconds) / Double(decodedSteps) / 1_000
    }

    /// Share of the steps after playout started that were concealed (0–1).
    public var concealedShare: Double {
        let playing = steps - silentSteps
        return playing <= 0 ? 0 : Double(concealedSteps) / Double(playing)
    }
}
