import RTPWire
import SessionCore

/// TURN over TCP while gathering (RFC 8656 §3.1): a connection of its own to the server from the
/// base's address, STUN and ChannelData framed by their own headers, requests sent once (TCP
/// retransmits; the client gives up on its Ti).
extension CandidateGatherer {
    func startStreamAllocation(on base: Base, to server: NetworkEndpoint, credentials: (username: String, password: String), now: Int64) {
        let local = base.socket.localEndpoint
        do {
            let connection = try TCPFramedConnection.connect(to: server, from: local.isUnspecified ? nil : local.at(port: 0),
                                                             timeoutMilliseconds: Int32(clamping: configuration.timeoutMicroseconds / 1_000),
                                                             framing: .stunAndChannelData)
            let client = TURNClient(configuration: .init(username: credentials.username, password: credentials.password, reliable: true),
                                    seed: nextSeed())
            client.start(now: now)
            base.streamAllocations.append((connection, client))
        } catch {
            note("TURN \(server) over TCP: \(error)")
        }
    }

    /// Sends what each stream allocation queued (after its timers at `now`, if given).
    func flushStreamAllocations(of base: Base, now: Int64?) {
        for (connection, client) in base.streamAllocations {
            if let now { client.poll(now: now) }
            for message in client.takeOutgoing() {
                do {
                    try connection.send(message, to: connection.peer)
                } catch {
                    note("TURN \(connection.peer) over TCP: \(error)")
                }
            }
        }
    }

    /// Hands every whole message the connection holds to its client.
    func receiveStream(_ connection: TCPFramedConnection, for client: TURNClient, into buffer: inout [UInt8], now: Int64) {
        do {
            while let received = try connection.receive(into: &buffer, timeoutMilliseconds: 0) {
                _ = client.handle(buffer[0..<received.count], now: now)
            }
        } catch {
            note("TURN \(connection.peer) over TCP: \(error)")
        }
    }
}
