import RTPWire

/// An adaptive playout buffer for one Opus RTP stream (RFC 7587): packets go in as they arrive,
/// and a listener pulls one playout step at a time (every 20 ms of audio it plays); each step
/// says what to do with the decoder: decode a packet, rebuild a lost one from the next packet's
/// in-band FEC (RFC 6716 §2.1.7), conceal (packet-loss concealment), or play silence.
///
/// - **Target delay adapts to the network** (as WebRTC's NetEq does, more simply): each packet's
///   delay relative to its RTP timestamp is kept for the last `delayWindow` packets; the target is
///   the `delayQuantile` of those delays above the smallest one (the jitter the buffer must
///   absorb), rounded up to whole 20 ms steps, within `minimumDelayMilliseconds` and
///   `maximumDelayMilliseconds`. Playout starts once the first packet has waited that long.
/// - **Loss**: a packet missing at its turn while a later one is buffered is lost. If the packet
///   right after it is there, its FEC rebuilds the lost one; otherwise the step conceals.
/// - **Underrun** (nothing at or after the playout point): the step conceals *without* moving on,
///   which stretches the audio and lets the buffer grow (the packet is late, not lost); after
///   `maximumExpandSteps` in a row the stream is taken as paused (sender muted, or gone) and steps
///   are silence until packets come again, when playout starts afresh.
/// - **Too much delay** (the newest buffered audio more than the target plus `dropHysteresisMilliseconds`
///   ahead of the playout point): the oldest buffered packet is dropped, at most once every
///   `dropIntervalSteps` steps.
///
/// Packets are keyed by their extended sequence number in a ring of `capacity` slots whose byte
/// buffers are reused: no allocation per packet once each slot has held a packet of the largest
/// size. Time is a parameter (microseconds on any monotonic clock). Not thread-safe; a value type.
public struct AudioJitterBuffer: Sendable {
    /// Settings of an audio jitter buffer.
    public struct Configuration: Sendable, Equatable {
        /// RTP clock rate (Opus: 48 kHz, RFC 7587 §4.1).
        public var clockRate: Int
        /// Audio per playout step and per packet (20 ms, the engine's Opus frame).
        public var stepMilliseconds: Int
        public var minimumDelayMilliseconds: Int
        public var maximumDelayMilliseconds: Int
        /// Packets whose delays set the target.
        public var delayWindow: Int
        /// Share of those delays the buffer absorbs (0.95: one packet in twenty may be late).
        public var delayQuantile: Double
        public var dropHysteresisMilliseconds: Int
        public var dropIntervalSteps: Int
        /// Concealed steps in a row before an underrun is taken as a pause.
        public var maximumExpandSteps: Int
        /// Ring size in packets; a packet further ahead than this restarts playout.
        public var capacity: Int

        public init(clockRate: Int = 48_000, stepMilliseconds: Int = 20, minimumDelayMilliseconds: Int = 20,
                    maximumDelayMilliseconds: Int = 500, delayWindow: Int = 100, delayQuantile: Double = 0.95,
                    dropHysteresisMilliseconds: Int = 40, dropIntervalSteps: Int = 5, maximumExpandSteps: Int = 10,
                    capacity: Int = 64) {
            self.clockRate = max(1, clockRate)
            self.stepMilliseconds = max(1, stepMilliseconds)
            self.minimumDelayMilliseconds = max(0, minimumDelayMilliseconds)
            self.maximumDelayMilliseconds = max(self.minimumDelayMilliseconds, maximumDelayMilliseconds)
            self.delayWindow = max(2, delayWindow)
            self.delayQuantile = min(1, max(0, delayQuantile))
            self.dropHysteresisMilliseconds = max(0, dropHysteresisMilliseconds)
            self.dropIntervalSteps = max(1, dropIntervalSteps)
            self.maximumExpandSteps = max(1, maximumExpandSteps)
            self.capacity = max(8, capacity)
        }
    }

    /// What an inserted packet became.
    public enum InsertResult: Sendable, Equatable {
        case buffered
        case duplicate
        /// Its turn had passed (played, concealed or dropped): not kept.
        case late
        /// Larger than `maximumPayloadBytes`: not kept.
        case tooLarge
    }

    /// What the listener does for one playout step.
    public enum Step: Sendable, Equatable {
        /// Decode this packet's payload.
        case decode(ArraySlice<UInt8>)
        /// The packet of this step is lost: decode the FEC of the next packet's payload.
        case decodeFEC(ArraySlice<UInt8>)
        /// Conceal one step (`OpusDecoder.concealLoss`).
        case conceal
        /// Play silence: not started yet, or the stream is paused.
        case silence
    }

    public static let maximumPayloadBytes = 1_500

    public let configuration: Configuration
    public private(set) var statistics = AudioJitterBufferStatistics()

    private struct Slot: Sendable {
        var sequence: Int64 = -1
        var arrival: Int64 = 0
        var timestamp: UInt32 = 0
        var payload: [UInt8] = []
    }

    private var slots: [Slot]
    /// Bytes reserved in every slot at init.
    static let reservedPayloadBytes = 512
    private var sequences = SequenceNumberUnwrapper()
    private var timestamps = TimestampUnwrapper()
    /// The extended sequence number of the next step; nil until playout starts.
    private var playout: Int64?
    /// The newest extended sequence number buffered (meaningful while `buffered > 0`).
    private var newest: Int64 = 0
    private var buffered = 0
    /// When the first packet of a (re)start arrived.
    private var firstArrival: Int64?
    private var expandSteps = 0
    private var stepsSinceDrop = Int.max
    /// Relative delays (microseconds) of the last `delayWindow` packets, a ring; and the same
    /// delays kept sorted (one removed and one inserted per packet, in place: no sort, which
    /// allocates).
    private var delays: [Int64]
    private var delayCount = 0
    private var delayNext = 0
    private var sortedDelays: [Int64]

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        // Each slot owns its bytes, reserved now so a payload's copy never grows them: Opus
        // packets of 20 ms are under 400 bytes up to 128 kbit/s (RFC 6716 §3.4 allows 1275, and a
        // rare larger one still fits after one allocation). Not `repeating:`, which would share one.
        slots = (0..<configuration.capacity).map { _ in
            var slot = Slot()
            slot.payload.reserveCapacity(Self.reservedPayloadBytes)
            return slot
        }
        delays = Array(repeating: 0, count: configuration.delayWindow)
        sortedDelays = []
        sortedDelays.reserveCapacity(configuration.delayWindow)
        statistics.targetDelayMilliseconds = configuration.minimumDelayMilliseconds
    }

    /// The RTP timestamp of the audio the last step played: its packet's for a decoded step;
    /// for a rebuilt or concealed one, where the missing packet's would be (the last decoded
    /// packet's plus a step's samples per sequence number since); an underrun's stretch carries
    /// the time of the packet it waits for. nil before the first decoded step and after a silent one.
    public private(set) var stepTimestamp: UInt32?
    /// The last decoded packet: its extended sequence number and RTP timestamp.
    private var lastDecoded: (sequence: Int64, timestamp: UInt32)?

    /// Packets held, waiting for their turn.
    public var bufferedPacketCount: Int { buffered }

    /// The delay playout aims for now, in milliseconds (whole steps).
    public var targetDelayMilliseconds: Int { statistics.targetDelayMilliseconds }

    /// Buffers one packet's payload (`sequenceNumber`, `timestamp` from its RTP header).
    @discardableResult
    public mutating func insert(sequenceNumber: UInt16, timestamp: UInt32, payload: ArraySlice<UInt8>,
                                arrivalMicroseconds: Int64) -> InsertResult {
        guard payload.count <= Self.maximumPayloadBytes else {
            statistics.packetsRefused += 1
            return .tooLarge
        }
        let sequence = sequences.unwrap(sequenceNumber)
        let mediaTime = timestamps.unwrap(timestamp) * 1_000_000 / Int64(configuration.clockRate)
        statistics.packetsReceived += 1
        let index = slotIndex(sequence)
        if slots[index].sequence == sequence {
            statistics.duplicatePackets += 1
            return .duplicate
        }
        recordDelay(arrivalMicroseconds - mediaTime)
        if let playout {
            if sequence < playout {
                statistics.latePackets += 1
                return .late
            }
            if sequence >= playout + Int64(configuration.capacity) {
                restart()  // far ahead: a new talk spurt or a sender restart
            }
        }
        if slots[index].sequence >= 0 {
            buffered -= 1  // an old packet that was never played (playout had not started)
        }
        slots[index].sequence = sequence
        slots[index].arrival = arrivalMicroseconds
        slots[index].timestamp = timestamp
        slots[index].payload.removeAll(keepingCapacity: true)
        slots[index].payload.append(contentsOf: payload)
        if buffered == 0 || sequence > newest { newest = sequence }
        buffered += 1
        if firstArrival == nil { firstArrival = arrivalMicroseconds }
        return .buffered
    }

    /// The next playout step (call once per 20 ms of audio played).
    public mutating func nextStep(nowMicroseconds: Int64) -> Step {
        statistics.steps += 1
        guard let current = playout ?? start(now: nowMicroseconds) else {
            statistics.silentSteps += 1
            stepTimestamp = nil
            return .silence
        }
        dropIfTooFarBehind()
        let position = playout ?? current
        let index = slotIndex(position)
        if slots[index].sequence == position {
            playout = position + 1
            expandSteps = 0
            statistics.decodedSteps += 1
            statistics.totalBufferDelayMicroseconds += max(0, nowMicroseconds - slots[index].arrival)
            stepTimestamp = slots[index].timestamp
            lastDecoded = (position, slots[index].timestamp)
            return take(index, as: Step.decode)
        }
        guard buffered > 0, newest > position else {
            return underrun(at: position)
        }
        // Lost: a later packet is here. Its FEC rebuilds this one when it is the very next.
        playout = position + 1
        expandSteps = 0
        statistics.packetsLost += 1
        setStepTimestamp(at: position)
        let next = slotIndex(position + 1)
        if slots[next].sequence == position + 1 {
            statistics.recoveredSteps += 1
            return .decodeFEC(slots[next].payload[...])
        }
        statistics.concealedSteps += 1
        return .conceal
    }

    // MARK: - Private

    private func slotIndex(_ sequence: Int64) -> Int {
        Int(UInt64(bitPattern: sequence) % UInt64(configuration.capacity))
    }

    private mutating func take(_ index: Int, as step: (ArraySlice<UInt8>) -> Step) -> Step {
        slots[index].sequence = -1
        buffered -= 1
        return step(slots[index].payload[...])
    }

    /// Starts playout at the oldest buffered packet once the first has waited the target delay.
    private mutating func start(now: Int64) -> Int64? {
        guard buffered > 0, let firstArrival,
              now - firstArrival >= Int64(targetDelayMilliseconds) * 1_000 else { return nil }
        var oldest = newest
        for slot in slots where slot.sequence >= 0 && slot.sequence < oldest { oldest = slot.sequence }
        playout = oldest
        statistics.starts += 1
        return oldest
    }

    private mutating func underrun(at position: Int64) -> Step {
        expandSteps += 1
        guard expandSteps <= configuration.maximumExpandSteps else {
            restart()
            statistics.silentSteps += 1
            stepTimestamp = nil
            return .silence
        }
        setStepTimestamp(at: position)
        statistics.concealedSteps += 1
        statistics.underruns += expandSteps == 1 ? 1 : 0
        return .conceal
    }

    /// A rebuilt or concealed step stands where the packet of `position` would have played.
    private mutating func setStepTimestamp(at position: Int64) {
        guard let lastDecoded else { return stepTimestamp = nil }
        let samplesPerStep = Int64(configuration.clockRate / 1_000 * configuration.stepMilliseconds)
        stepTimestamp = lastDecoded.timestamp &+ UInt32(truncatingIfNeeded: (position - lastDecoded.sequence) * samplesPerStep)
    }

    /// Drops the oldest buffered packet when the newest is far beyond the target delay.
    private mutating func dropIfTooFarBehind() {
        stepsSinceDrop = stepsSinceDrop == .max ? .max : stepsSinceDrop + 1
        guard let position = playout, buffered > 1, stepsSinceDrop >= configuration.dropIntervalSteps else { return }
        let aheadMilliseconds = Int(newest - position) * configuration.stepMilliseconds
        guard aheadMilliseconds > targetDelayMilliseconds + configuration.dropHysteresisMilliseconds else { return }
        let index = slotIndex(position)
        if slots[index].sequence == position {
            slots[index].sequence = -1
            buffered -= 1
        }
        playout = position + 1
        stepsSinceDrop = 0
        statistics.droppedSteps += 1
    }

    /// Forgets every buffered packet; the next one starts playout afresh after the target delay.
    private mutating func restart() {
        for index in slots.indices { slots[index].sequence = -1 }
        lastDecoded = nil
        buffered = 0
        playout = nil
        firstArrival = nil
        expandSteps = 0
    }

    /// Where `value` goes in the ascending `sorted` (binary search): the first index whose
    /// element is not below it (an element equal to it, if there is one).
    private static func firstIndex(notBelow value: Int64, in sorted: [Int64]) -> Int {
        var (low, high) = (0, sorted.count)
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private mutating func recordDelay(_ delay: Int64) {
        // Shifted by hand (`Array.insert(_:at:)` and `remove(at:)` allocate in a debug build), and
        // once the window is full only between where the oldest leaves and where the new one
        // goes: close together when the delays are.
        let place = Self.firstIndex(notBelow: delay, in: sortedDelays)
        if delayCount == delays.count {  // the oldest leaves
            let leaving = Self.firstIndex(notBelow: delays[delayNext], in: sortedDelays)
            if place > leaving {
                for index in leaving..<(place - 1) { sortedDelays[index] = sortedDelays[index + 1] }
                sortedDelays[place - 1] = delay
            } else {
                var index = leaving
                while index > place {
                    sortedDelays[index] = sortedDelays[index - 1]
                    index -= 1
                }
                sortedDelays[place] = delay
            }
        } else {
            sortedDelays.append(delay)
            var index = sortedDelays.count - 1
            while index > place {
                sortedDelays[index] = sortedDelays[index - 1]
                index -= 1
            }
            sortedDelays[place] = delay
        }
        delays[delayNext] = delay
        delayNext = (delayNext + 1) % delays.count
        delayCount = min(delayCount + 1, delays.count)
        guard delayCount >= 2 else { return }
        let sortScratch = sortedDelays
        let rank = min(delayCount - 1, Int((Double(delayCount - 1) * configuration.delayQuantile).rounded(.up)))
        let jitterMilliseconds = Int((sortScratch[rank] - sortScratch[0] + 999) / 1_000)
        // Playout starts on the first packet: the target must cover how much later than it any
        // other may come (the jitter), in whole steps.
        let step = configuration.stepMilliseconds
        let target = max(configuration.minimumDelayMilliseconds, (jitterMilliseconds + step - 1) / step * step)
        statistics.targetDelayMilliseconds = min(configuration.maximumDelayMilliseconds, target)
    }
}
