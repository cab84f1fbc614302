import Dispatch
import Foundation
import Synchronization
internal import EngineCore
internal import RTPWire

/// A participant's presence in a Janus VideoRoom, for the room model (SPEC §8,
/// docs/room-model.md): a Janus session of its own that joins the room as a publisher publishing
/// nothing (Janus then tells it the room's `joined` publishers list, later `event.publishers`,
/// `unpublished`, `leaving`, `destroyed`), and reads the session's events in a long poll on a
/// thread of its own (a long poll holds its thread up to 30 s, so it cannot share the
/// `SignallingWorker`'s serial queue). Only the VideoRoom events that change the room reach the
/// loop, each as a job; Janus's keepalive answers do not, so an idle room never wakes the loop.
/// Opens no media socket: a `SIGNALLING_ONLY` participant is this and nothing else.
///
/// Janus lists every handle that joined as a participant (`listparticipants`, and `joining` in
/// rooms with `notify_joining`), so once the participant publishes, its presence hands over to
/// the publisher's own handle (`follow`): the presence leaves the room, and the poll reads the
/// publisher session's events from then on (Janus queues them from the publisher's `join`, so
/// none is missed; the roster takes a repeated one as no change). Each of our participants is
/// then one participant of the Janus room.
final class JanusRoomPresence: Sendable {
    /// Where the events go: applied on the loop (the room's roster), or a failure to report.
    typealias Deliver = @Sendable (EngineRuntime, Result<JanusVideoRoomEvent, EngineError>) -> Void

    private let url: URL
    private let room: Int
    private let display: String
    private let queue = DispatchQueue(label: "MediaEngine Janus room events")
    private let stopped = Atomic<Bool>(false)
    /// The session and handle the poll reads now (the presence's own once attached, later a
    /// publisher's), for `stop` and `follow` from another thread.
    private let polled = Mutex<(session: Int, handle: Int)?>(nil)
    /// A publisher's session and handle to read from once the one polled now has left the room.
    private let handover = Mutex<(session: Int, handle: Int)?>(nil)

    /// JSEP answers read from the polled session (an ICE restart's, which the publisher waits for:
    /// Janus gives each event to the first long poll waiting, perhaps this one), oldest first.
    private let jsepAnswers = Mutex<[String]>([])

    /// The oldest JSEP answer the poll read and no one took yet.
    func takeJSEPAnswer() -> String? {
        jsepAnswers.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }

    /// Forgets the answers read so far (a screen share's renegotiation's), before an ICE restart
    /// sends the offer whose answer it waits for.
    func discardJSEPAnswers() {
        jsepAnswers.withLock { $0.removeAll() }
    }

    /// A keepalive goes out after a long poll's answer once this long passed since the last one.
    static let keepAliveNanoseconds: UInt64 = 15_000_000_000

    init(url: URL, room: Int, display: String) {
        self.url = url
        self.room = room
        self.display = display
    }

    /// Joins and reads events until `stop` (or the loop stops): each room-changing event is
    /// handed to `deliver` on the loop through `worker`.
    /// A candidate Janus trickled on the publisher's handle (trickle ICE, RFC 8838) is handed to
    /// `trickled` on the loop.
    func start(worker: SignallingWorker, deliver: @escaping Deliver, answered: (@Sendable (EngineRuntime, String) -> Void)? = nil,
               trickled: (@Sendable (EngineRuntime, ICECandidate) -> Void)? = nil) {
        queue.async { [self] in
            var janus = JanusHTTPClient(base: url)
            // The session polled is the presence's own (ended at a handover), not yet a publisher's.
            var ownSession = true
            do throws(JanusHTTPClient.Failure) {
                try janus.attach(plugin: "janus.plugin.videoroom")
                if let session = janus.session, let handle = janus.handle { polled.withLock { $0 = (session, handle) } }
                guard !stopped.load(ordering: .acquiring) else { return leave(janus) }
                try janus.message(JanusVideoRoomRequest.joinAsPublisher(room: room, display: display).body)
                // A publisher that connected before we joined: leave at once (the poll hands over at the acknowledgement).
                if handover.withLock({ $0 }) != nil { _ = try? janus.message(JanusVideoRoomRequest.leave.body) }
                var lastKeepAlive = DispatchTime.now().uptimeNanoseconds
                while !stopped.load(ordering: .acquiring) {
                    let object: [String: Any]
                    do throws(JanusHTTPClient.Failure) {
                        object = try janus.nextEvent()
                    } catch {
                        // The session polled was left and closed under the poll: read the publisher's.
                        guard let next = takeHandover(from: janus, closingIt: ownSession) else { throw error }
                        (janus, ownSession) = (next, false)
                        continue
                    }
                    // Janus answers a quiet long poll within 30 s; a keepalive at least every 45 s
                    // stays inside its 60 s session timeout.
                    if DispatchTime.now().uptimeNanoseconds - lastKeepAlive >= Self.keepAliveNanoseconds {
                        try janus.keepAlive()
                        lastKeepAlive = DispatchTime.now().uptimeNanoseconds
                    }
                    // Our `leave` acknowledged: every event of the old session came before it.
                    if Self.isOwnLeave(object), let next = takeHandover(from: janus, closingIt: ownSession) {
                        (janus, ownSession) = (next, false)
                        continue
                    }
                    // A JSEP answer on the publisher's session: to a renegotiation (its screen share
                    // added or taken out), handed to the loop, or to an ICE restart, which waits
                    // for it on the worker (`takeJSEPAnswer`); each side ignores the other's.
                    if let answer = Self.renegotiationAnswer(in: object) {
                        jsepAnswers.withLock { $0.append(answer) }
                        guard worker.postToLoop({ answered?($0, answer) }) else { return leave(janus) }
                        continue
                    }
                    if let candidate = JanusHTTPClient.trickledCandidate(object) {
                        guard worker.postToLoop({ trickled?($0, candidate) }) else { return leave(janus) }
                        continue
                    }
                    guard let outcome = Self.roomChange(in: object) else { continue }
                    guard worker.postToLoop({ deliver($0, outcome) }) else { return leave(janus) }
                }
            } catch {
                guard !stopped.load(ordering: .acquiring) else { return }
                let failure = EngineError.systemFailure("the events of Janus room \(room) at \(url): \(error)")
                _ = worker.postToLoop { deliver($0, .failure(failure)) }
                leave(janus)
            }
        }
    }

    /// Leaves the room and ends the session (from the worker: the long poll may be waiting); the
    /// poll ends with it.
    func stop(worker: SignallingWorker) {
        stopped.store(true, ordering: .releasing)
        guard let ids = polled.withLock({ $0 }) else { return }
        let url = url
        worker.run { Self.leave(JanusHTTPClient(base: url, session: ids.session, handle: ids.handle)) }
    }

    /// Hands the room's events over to a publisher's handle (session `session`, handle `handle`)
    /// that joined the room since: the handle polled now leaves the room from the worker (its
    /// `leaving: ok` ends the poll), and the poll goes on with the publisher's session.
    func follow(session: Int, handle: Int, worker: SignallingWorker) {
        handover.withLock { $0 = (session, handle) }
        guard let current = polled.withLock({ $0 }), current != (session, handle) else { return }
        let url = url
        worker.run { _ = try? JanusHTTPClient(base: url, session: current.session, handle: current.handle).message(JanusVideoRoomRequest.leave.body) }
    }

    /// The client of the session handed over to, if one is waiting; the old session is ended if
    /// `closingIt` (the presence's own: detached and destroyed; a publisher's is its owner's to end).
    private func takeHandover(from old: JanusHTTPClient, closingIt: Bool) -> JanusHTTPClient? {
        guard let next = handover.withLock({ value -> (session: Int, handle: Int)? in
            defer { value = nil }
            return value
        }) else { return nil }
        if closingIt { old.close() }
        polled.withLock { $0 = next }
        return JanusHTTPClient(base: url, session: next.session, handle: next.handle)
    }

    /// A VideoRoom event acknowledging our own `leave` (`leaving: "ok"`, `left: "ok"`).
    static func isOwnLeave(_ object: [String: Any]) -> Bool {
        guard case let .videoRoom(_, .ownLeft, _)? = try? JanusSessionEvent(object: object) else { return false }
        return true
    }

    private func leave(_ janus: JanusHTTPClient) { Self.leave(janus) }

    private static func leave(_ janus: JanusHTTPClient) {
        _ = try? janus.message(JanusVideoRoomRequest.leave.body)
        janus.close()
    }

    /// The VideoRoom event of a long poll's answer that changes who is in the room (nil for
    /// keepalives, acks and everything else); an event that does not parse is a typed failure.
    /// The SDP of a JSEP answer riding a VideoRoom event (Janus's answer to a `configure` with an offer).
    static func renegotiationAnswer(in object: [String: Any]) -> String? {
        guard case let .videoRoom(_, _, jsep?)? = try? JanusSessionEvent(object: object), jsep.kind == .answer else { return nil }
        return jsep.sdp
    }

    static func roomChange(in object: [String: Any]) -> Result<JanusVideoRoomEvent, EngineError>? {
        let event: JanusSessionEvent
        do throws(JanusEventError) {
            event = try JanusSessionEvent(object: object)
        } catch {
            return .failure(.systemFailure("the room model cannot read it: \(error)"))
        }
        guard case let .videoRoom(_, roomEvent, _) = event else { return nil }
        switch roomEvent {
        case .joined, .publishers, .unpublished, .leaving, .joining, .destroyed, .error: return .success(roomEvent)
        default: return nil
        }
    }
}
