import RTPWire
import SessionCore

/// The transport-wide feedback stage of a receiving endpoint that sends it
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1): notes the transport-wide sequence
/// number (its RFC 8285 header extension) and arrival time of every packet that carries one, and
/// builds the feedback report due (`TransportFeedbackRecorder`: bounded memory, nothing
/// allocated per packet). Off, it does nothing. The sending side is `SendSideCongestionControl`
/// (the publisher's send path, `SubscriberDownlink`), fed the RTT by a `ReportBlockTracker`.
struct TransportFeedbackStage {
    private var recorder: TransportFeedbackRecorder?

    init(enabled: Bool) {
        recorder = enabled ? TransportFeedbackRecorder() : nil
    }

    /// Whether the endpoint sends transport-wide feedback.
    var isEnabled: Bool { recorder != nil }

    /// A packet numbered `sequence` arrived at `arrivalMicroseconds`.
    mutating func arrived(_ sequence: TransportSequenceNumber, arrivalMicroseconds: Int64) {
        recorder?.record(transportSequenceNumber: sequence.value, arrivalMicroseconds: arrivalMicroseconds)
    }

    /// When `feedback` next has a report (µs; nil: off, or nothing arrived since the last).
    var nextDeadline: Int64? {
        recorder?.nextFeedbackMilliseconds.map { $0 == .min ? .min : $0 * 1000 }
    }

    /// The feedback from `senderSSRC` about `mediaSSRC` due at `nowMicroseconds`; nil when off,
    /// when nothing arrived or when the report interval has not passed.
    mutating func feedback(senderSSRC: UInt32, mediaSSRC: UInt32, nowMicroseconds: Int64) -> RTCPPacket? {
        recorder?.feedback(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, nowMicroseconds: nowMicroseconds)
            .map { .transportWideFeedback($0) }
    }
}
