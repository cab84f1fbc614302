internal import EngineCore
internal import SessionCore

/// Staying connected (issue 29 item 3): the publishing and receiving peer connections' paths
/// (`ICEDatagramTransport.pathState`, consent freshness RFC 7675) make the room `.reconnecting`
/// and `.reconnected` (`RoomReconnectWatch`); back on its path every received video asks for a
/// key frame (RFC 4585 PLI) so decoding resumes at once and without a decoder error; reconnecting
/// past the limit, or a connection whose consent expired, ends the room with
/// `EngineError.connectionLost`. A path that stays dead is restarted (JanusRoomRuntime+ICERestart.swift).
extension JanusRoomRuntime {
    /// The ICE transports of the room's peer connections, with which connection each is.
    private var iceTransports: [(kind: ReconnectingPath, ice: ICEDatagramTransport)] {
        var transports: [(ReconnectingPath, ICEDatagramTransport)] = []
        if let session = session { transports.append((.publishing, session.transport.ice)) }
        if let receivingTransport = receiving.demultiplexer?.transport as? WebRTCTransport {
            transports.append((.receiving, receivingTransport.ice))
        }
        return transports
    }

    /// At each pass: reports a change of the room's reconnect state.
    func followReconnect(nowMicroseconds now: Int64) {
        let paths = iceTransports.map { RoomReconnectWatch.Path(kind: $0.kind, state: $0.ice.pathState, failed: $0.ice.hasFailed,
                                                               moved: $0.ice.hasMoved) }
        guard let change = reconnect.evaluate(paths, nowMilliseconds: now / 1_000) else { return }
        switch change {
        case let .reconnecting(path):
            events?.yield(.reconnecting(path))
        case let .reconnected(after):
            for stream in receiving.streams.values where stream.kind != .microphone { stream.subscriber.video.requestKeyFrame() }
            adaptive.pathCameBack(mids: Array(receiving.streams.keys), nowMilliseconds: now / 1_000)
            // What the subscribers lost meanwhile needs a key frame: one goes out unasked. Janus
            // 1.1.2 falls back to a lower substream when one goes quiet and sends its PLI for the
            // switch at once, over the dead path; it then waited for that key frame and did not
            // pass on the subscribers' PLIs (seen in its log at debug level 5 after an address
            // change: bob stalled in 3 of 6 runs without this).
            session?.publisher.requestKeyFrame()
            events?.yield(.reconnected(afterMilliseconds: after))
        case .restartICE:
            restartICE()
        case let .lost(why):
            events?.yield(.failure(.connectionLost(why)))
            close()
        }
    }

    /// The next moment the reconnect state can change without a datagram arriving (microseconds):
    /// a path's next probe or its turning silent, or the reconnect limit.
    func nextReconnectDeadline() -> Int64 {
        var earliest = reconnect.nextDeadlineMilliseconds.map { $0 * 1_000 } ?? .max
        for (_, ice) in iceTransports { earliest = min(earliest, ice.nextLivenessDeadlineMicroseconds ?? .max) }
        return earliest
    }

    /// Refuses an action that needs the server while the room is reconnecting (SPEC §8).
    func refuseWhileReconnecting(_ action: String) throws(EngineError) {
        if reconnect.isReconnecting { throw .reconnecting(action) }
    }
}
