import EngineCore
import SessionCore
import RTPWire

/// `BundledStreamDemultiplexer.poll` (RFC 8843 bundle, the Janus room's one subscriber peer
/// connection) on datagram scripts (see `DatagramScript`): every datagram reaches the
/// demultiplexer through a `MemoryTransport` and is polled on its own, so each one's fate is checked.
///
/// Setup: SSRC `audioSSRC` announced for mid "0" (routed to endpoint 0, Opus), `videoSSRC` for mid
/// "1" (endpoint 1, VP8); mid "2" and "3" known to nobody until an action routes them. Variant bit 0:
/// the MID extension's id is known, bits 1–4 give it (0–15: 0 and 15 are not valid one-byte ids);
/// bit 5: the endpoints expect SRTP (then almost everything fails authentication inside them, which
/// the demultiplexer must not care about).
///
/// Actions (record bit 6, parameters in the datagram bytes `[op, mid, endpoint, ssrc…]`): op % 3 ==
/// 0 routes mid (`mid % 4`) to endpoint (`endpoint % 3`), 1 removes that mid's route, 2 announces
/// SSRC (4 bytes, big-endian; missing bytes are 0) for the mid. A record with `service` runs the
/// endpoints' timers (their RTCP is caught and counted against `OutputBudget`).
///
/// Invariants: no trap; each poll reads exactly the one datagram it was given (one longer than
/// `Subscriber.maximumDatagramSize` is dropped by the transport, as a socket drops it) and counts
/// it once; it reaches exactly one endpoint or is counted unrouted; a datagram of at least 12
/// bytes whose SSRC (RTP octets 8–11, RTCP 4–7 by the RFC 5761 rule) the script announced reaches
/// the endpoint routed for that SSRC's mid, or nobody when that mid has no route; the socket count
/// of an RTP packet's SSRC moves by at most one, and by one once that SSRC is counted at all.
enum BundleCheck {
    static let audioSSRC: UInt32 = 0x1111_0000
    static let videoSSRC: UInt32 = 0x2222_0000
    static let mids = ["0", "1", "2", "3"]
    static let peer = NetworkEndpoint.loopback(port: 9000)

    static func run(_ bytes: [UInt8]) -> String? {
        let script = DatagramScript(bytes)
        let clock = SimulatedClock()
        let transport = MemoryTransport()
        let demultiplexer = BundledStreamDemultiplexer(transport: transport)
        if script.variant & 1 != 0 { demultiplexer.midExtensionID = (script.variant >> 1) & 0x0F }
        let endpoints: [Subscriber]
        do {
            endpoints = try (0..<3).map { index in
                let security: SubscriberSecurity = script.variant & 0x20 != 0
                    ? .srtp(receiveKeys: FuzzKeys.material(SubscriberCheck.senderKeys), sendKeys: FuzzKeys.material(SubscriberCheck.subscriberKeys))
                    : .insecurePlaintext
                return try Subscriber(configuration: SubscriberConfiguration(
                    localSSRC: 0x0300_0000 + UInt32(index), videoPayloadType: index == 0 ? 127 : 96,
                    audioPayloadType: index == 0 ? 111 : 126, security: security), transport: nil, clock: clock.mediaClock)
            }
        } catch {
            return "endpoint setup failed: \(error)"
        }
        var sent = 0
        for endpoint in endpoints { endpoint.rtcpSink = { sent += $0.count } }
        // The model: which mid each announced SSRC belongs to, which endpoint each mid goes to.
        var announced: [UInt32: String] = [audioSSRC: "0", videoSSRC: "1"]
        var routes: [String: Int] = ["0": 0, "1": 1]
        for (ssrc, mid) in announced { demultiplexer.map(ssrc: ssrc, to: mid) }
        for (mid, index) in routes { demultiplexer.route(mid: mid, to: endpoints[index]) }

        var budget = OutputBudget(inputBytes: bytes.count, clock: clock)
        var fed: Int64 = 0
        for (index, record) in script.records.enumerated() {
            clock.advance(record.advanceMicroseconds)
            if record.isAction {
                let parameters = record.datagram + [UInt8](repeating: 0, count: 7)
                let mid = mids[Int(parameters[1] % 4)]
                switch parameters[0] % 3 {
                case 0:
                    routes[mid] = Int(parameters[2] % 3)
                    demultiplexer.route(mid: mid, to: endpoints[Int(parameters[2] % 3)])
                case 1:
                    routes[mid] = nil
                    demultiplexer.removeRoute(mid: mid)
                default:
                    let ssrc = parameters[3..<7].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                    // Past the limit the demultiplexer ignores a new SSRC: the model only keeps what it took.
                    if announced.count < BundledStreamDemultiplexer.ssrcLimit || announced[ssrc] != nil {
                        announced[ssrc] = mid
                    }
                    demultiplexer.map(ssrc: ssrc, to: mid)
                }
                continue
            }
            if let violation = feed(record.datagram, demultiplexer: demultiplexer, transport: transport,
                                    endpoints: endpoints, announced: announced, routes: routes, index: index) {
                return violation
            }
            fed += record.datagram.count <= Subscriber.maximumDatagramSize ? 1 : 0
            if record.service { for endpoint in endpoints { endpoint.service() } }
            budget.sentBytes = sent
            if let violation = budget.violation(at: clock, what: "bundle endpoints (record \(index))") { return violation }
        }
        guard demultiplexer.datagramsReceived == fed else {
            return "\(fed) datagrams fed, \(demultiplexer.datagramsReceived) counted"
        }
        let routed = endpoints.reduce(Int64(0)) { $0 + $1.statistics.datagramsReceived }
        guard routed + demultiplexer.unroutedDatagrams == fed else {
            return "\(fed) datagrams fed, \(routed) routed + \(demultiplexer.unroutedDatagrams) unrouted"
        }
        return nil
    }

    /// One datagram through `poll`, with its fate checked.
    private static func feed(_ datagram: [UInt8], demultiplexer: BundledStreamDemultiplexer, transport: MemoryTransport,
                             endpoints: [Subscriber], announced: [UInt32: String], routes: [String: Int],
                             index: Int) -> String? {
        let before = endpoints.map(\.statistics.datagramsReceived)
        let unroutedBefore = demultiplexer.unroutedDatagrams
        let countedBefore = demultiplexer.datagramsReceived
        let isRTCP = datagram.count >= 2 && (64...95).contains(datagram[1] & 0x7F)
        let ssrc = datagram.count >= 12 ? MemoryTransport.Datagram(peer: peer, bytes: datagram).ssrc : nil
        let socketCountBefore = ssrc.map(demultiplexer.packetsReceived(ssrc:))
        transport.inbox = [.init(peer: peer, bytes: datagram)]
        let read: Int
        do {
            read = try demultiplexer.poll(timeoutMilliseconds: 0)
        } catch {
            return "record \(index): poll threw \(error)"
        }
        let fits = datagram.count <= Subscriber.maximumDatagramSize
        guard read == (fits ? 1 : 0), demultiplexer.datagramsReceived == countedBefore + Int64(read) else {
            return "record \(index): a \(datagram.count)-byte datagram read as \(read), counted \(demultiplexer.datagramsReceived - countedBefore)"
        }
        guard fits else { return nil }
        let reached = endpoints.indices.filter { endpoints[$0].statistics.datagramsReceived != before[$0] }
        let unrouted = demultiplexer.unroutedDatagrams - unroutedBefore
        guard reached.count + Int(unrouted) == 1, reached.allSatisfy({ endpoints[$0].statistics.datagramsReceived == before[$0] + 1 }) else {
            return "record \(index): a datagram reached endpoints \(reached) and counted \(unrouted) unrouted"
        }
        // MemoryTransport's SSRC reads RTCP by the second octet 192...223, the demultiplexer by its low 7 bits
        // (RFC 5761 §4): they agree except for a marker bit set on an RTP payload type 64...95, left unchecked.
        guard let ssrc, isRTCP == (192...223).contains(datagram[1]) else { return nil }
        if let mid = announced[ssrc] {
            let expected = routes[mid]
            guard reached.first == expected else {
                return "record \(index): SSRC \(ssrc) of mid \(mid) reached \(reached) instead of \(expected.map { "[\($0)]" } ?? "nobody")"
            }
        }
        if !isRTCP, let socketCountBefore {
            let moved = demultiplexer.packetsReceived(ssrc: ssrc) - socketCountBefore
            guard moved == 1 || (moved == 0 && socketCountBefore == 0) else {
                return "record \(index): SSRC \(ssrc)'s socket count moved by \(moved) from \(socketCountBefore)"
            }
        }
        return nil
    }
}
