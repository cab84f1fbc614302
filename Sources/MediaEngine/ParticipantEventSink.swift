/// Where a hosted room's participant is told what happens to it: its public event stream
/// (`LocalParticipant.events`) and, on virtual time, the driver's log of every event, which a
/// test reads at once after `advance` instead of waiting on the stream.
struct ParticipantEventSink {
    let participantId: String
    let stream: AsyncStream<ParticipantEvent>.Continuation
    let tap: ((_ participantId: String, _ event: ParticipantEvent) -> Void)?

    func yield(_ event: ParticipantEvent) {
        tap?(participantId, event)
        stream.yield(event)
    }

    func finish() { stream.finish() }
}
