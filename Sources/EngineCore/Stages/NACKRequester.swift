import RTPWire
import SessionCore

/// The NACK generation stage (RFC 4585 §6.2.1 generic NACK) for one received stream: notes every
/// arrival (`NACKGenerator`: gaps, retries at the RTT, give-up age) and builds the NACK due now.
/// Sequence numbers come extended (the jitter buffer's) or as on the wire (unwrapped here).
///
/// Reuses one scratch list; a NACK packet is built only when something is due.
struct NACKRequester {
    let configuration: NACKGenerator.Configuration
    private(set) var generator: NACKGenerator
    private var unwrapper = SequenceNumberUnwrapper()
    private var due: [Int64] = []

    init(configuration: NACKGenerator.Configuration) {
        self.configuration = configuration
        generator = NACKGenerator(configuration: configuration)
    }

    /// Forgets every gap (a new stream, or its sequence numbers restarted).
    mutating func reset() {
        generator = NACKGenerator(configuration: configuration)
        unwrapper = SequenceNumberUnwrapper()
    }

    /// A packet with extended sequence number `sequence` arrived.
    mutating func received(extended sequence: Int64, nowMilliseconds: Int64) {
        generator.packetReceived(sequence, nowMilliseconds: nowMilliseconds)
    }

    /// A packet with the wire sequence number `sequenceNumber` arrived.
    mutating func received(sequenceNumber: UInt16, nowMilliseconds: Int64) {
        generator.packetReceived(unwrapper.unwrap(sequenceNumber), nowMilliseconds: nowMilliseconds)
    }

    /// Stops asking for anything before `sequence` (it is no longer awaited).
    mutating func flush(before sequence: Int64) {
        generator.flush(before: sequence)
    }

    /// When `request` next builds a NACK (ms; nil: nothing is missing).
    func nextDeadline(roundTripMilliseconds: Int64?) -> Int64? {
        generator.nextRequestMilliseconds(roundTripMilliseconds: roundTripMilliseconds)
    }

    /// How many sequence numbers the last `request` asked for.
    var lastRequestCount: Int { due.count }

    /// The generic NACK from `senderSSRC` about `mediaSSRC` due at `nowMilliseconds`, nil when
    /// nothing is (`roundTripMilliseconds`: the retry interval, if known).
    mutating func request(senderSSRC: UInt32, mediaSSRC: UInt32, nowMilliseconds: Int64,
                          roundTripMilliseconds: Int64?) -> GenericNACK? {
        due.removeAll(keepingCapacity: true)
        generator.requestInto(&due, nowMilliseconds: nowMilliseconds, roundTripMilliseconds: roundTripMilliseconds)
        guard !due.isEmpty else { return nil }
        return GenericNACK(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC,
                           lostSequenceNumbers: due.map { UInt16(truncatingIfNeeded: $0) })
    }
}
