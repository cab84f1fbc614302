import Dispatch
import Foundation
import Synchronization
internal import EngineCore

/// A participant's presence in a Janus VideoRoom, for the room model (SPEC §8,
/// docs/room-model.md): a Janus session of its own that joins the room as a publisher publishing
/// nothing (Janus then tells it the room's `joined` publishers list, later `event.publishers`,
/// `unpublished`, `leaving`, `destroyed`), and reads the session's events in a long poll on a
/// thread of its own (a long poll holds its thread up to 30 s, so it cannot share the
/// `SignallingWorker`'s serial queue). Only the VideoRoom events that change the room reach the
/// loop, each as a job; Janus's keepalive answers do not, so an idle room never wakes the loop.
/// Opens no media socket: a `SIGNALLING_ONLY` participant is this and nothing else.
final class JanusRoomPresence: Sendable {
    /// Where the events go: applied on the loop (the room's roster), or a failure to report.
    typealias Deliver = @Sendable (EngineRuntime, Result<JanusVideoRoomEvent, EngineError>) -> Void

    private let url: URL
    private let room: Int
    private let display: String
    private let queue = DispatchQueue(label: "MediaEngine Janus room events")
    private let stopped = Atomic<Bool>(false)
    /// The session and handle once attached (for `stop`, from another thread).
    private let attached = Mutex<(session: Int, handle: Int)?>(nil)

    /// A keepalive goes out after a long poll's answer once this long passed since the last one.
    static let keepAliveNanoseconds: UInt64 = 15_000_000_000

    init(url: URL, room: Int, display: String) {
        self.url = url
        self.room = room
        self.display = display
    }

    /// Joins and reads events until `stop` (or the loop stops): each room-changing event is
    /// handed to `deliver` on the loop through `worker`.
    func start(worker: SignallingWorker, deliver: @escaping Deliver) {
        queue.async { [self] in
            let janus = JanusHTTPClient(base: url)
            do throws(JanusHTTPClient.Failure) {
                try janus.attach(plugin: "janus.plugin.videoroom")
                if let session = janus.session, let handle = janus.handle { attached.withLock { $0 = (session, handle) } }
                guard !stopped.load(ordering: .acquiring) else { return leave(janus) }
                try janus.message(JanusVideoRoomRequest.joinAsPublisher(room: room, display: display).body)
                var lastKeepAlive = DispatchTime.now().uptimeNanoseconds
                while !stopped.load(ordering: .acquiring) {
                    let object = try janus.nextEvent()
                    // Janus answers a quiet long poll within 30 s; a keepalive at least every 45 s
                    // stays inside its 60 s session timeout.
                    if DispatchTime.now().uptimeNanoseconds - lastKeepAlive >= Self.keepAliveNanoseconds {
                        try janus.keepAlive()
                        lastKeepAlive = DispatchTime.now().uptimeNanoseconds
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
        guard let ids = attached.withLock({ $0 }) else { return }
        let url = url
        worker.run { Self.leave(JanusHTTPClient(base: url, session: ids.session, handle: ids.handle)) }
    }

    private func leave(_ janus: JanusHTTPClient) { Self.leave(janus) }

    private static func leave(_ janus: JanusHTTPClient) {
        _ = try? janus.message(JanusVideoRoomRequest.leave.body)
        janus.close()
    }

    /// The VideoRoom event of a long poll's answer that changes who is in the room (nil for
    /// keepalives, acks and everything else); an event that does not parse is a typed failure.
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
