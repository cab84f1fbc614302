import EngineCore
import RTPWire
import SessionCore

/// A TURN allocation's client side fed what a TURN server (or someone forging its address) could
/// send: `TURNClient.handle` + `poll` on a simulated clock, and once allocated the relay transport's
/// receive path (`TURNRelayTransport.unwrap`, ChannelData moved in place, Data indications).
///
/// Input: `DatagramScript` (variant bit 0: a stream to the server, ChannelData padded). Per
/// record, `control` bits 1–2 pick the mode: 0 the bytes as they are; 1 a response to the client's
/// latest request, attributes from the bytes (a 401 with realm and nonce added first when bit 0 is
/// clear, else signed with the long-term key as a server that knows the password would, an
/// XOR-RELAYED-ADDRESS added when missing); 2 ChannelData on the channel the first two bytes name,
/// the rest as data; 3 an action: bind a channel to (or permit) the peer the bytes name. Bit 4 runs
/// the timers after it.
///
/// Invariants beyond no trap: one datagram from the server makes the client send at most 2; a
/// poll at most (transactions + renewals) ≤ 2 + 2 × peers; data comes out only for peers the harness
/// permitted or bound (nothing unsolicited); unwrapping never yields more bytes than came in.
enum TURNCheck {
    static let realm = "engine.test", password = "secret"
    static let key = MD5.longTermKey(username: "alice", realm: realm, password: password)
    static let server = NetworkEndpoint(address: 0x0A00_0002, port: 3478)

    static func run(_ bytes: [UInt8]) -> String? {
        let script = DatagramScript(bytes)
        let client = TURNClient(configuration: .init(username: "alice", password: password, reliable: script.variant & 1 != 0), seed: 5)
        let link = DiscardTransport()
        var relay: TURNRelayTransport?
        var now: Int64 = 1_000_000
        var latest: STUNMessage?
        var permitted: Set<STUNAddress.IP> = []
        var buffer = [UInt8](repeating: 0, count: 4_200)
        client.start(now: now)

        func sent(_ what: String, limit: Int) -> String? {
            let outgoing = client.takeOutgoing()
            for datagram in outgoing {
                if let message = try? STUNMessage(parsing: datagram[...]), message.type.messageClass == .request { latest = message }
            }
            return outgoing.count > limit ? "\(what) made the client send \(outgoing.count) datagrams" : nil
        }
        if let violation = sent("start", limit: 1) { return violation }

        for record in script.records {
            now += record.advanceMicroseconds
            let mode = record.control >> 1 & 3
            var datagram = record.datagram
            switch mode {
            case 1:
                guard let request = latest else { continue }
                var attributes = ICECheck.parsedAttributes(record.datagram)
                let signed = record.control & 1 != 0
                if !signed {
                    attributes = [.errorCode(code: 401, reason: "Unauthorized"), .realm(realm), .nonce("n")] + attributes
                } else if !attributes.contains(where: { if case .xorRelayedAddress = $0 { true } else { false } }) {
                    attributes.append(.xorRelayedAddress(.ipv4(0x0A00_0002, port: 50_000)))
                }
                let response = STUNMessage(type: STUNMessageType(method: request.type.method, messageClass: signed ? .successResponse : .errorResponse),
                                           transactionID: request.transactionID, attributes: attributes)
                guard let bytes = try? response.serialized(integrityKey: signed ? key : nil, fingerprint: false) else { continue }
                datagram = bytes
            case 2:
                let channel = UInt16(record.datagram.first ?? 0x40) << 8 | UInt16(record.datagram.dropFirst().first ?? 0)
                let data = Array(record.datagram.dropFirst(2))
                datagram = [UInt8(channel >> 8), UInt8(channel & 0xFF), UInt8(data.count >> 8), UInt8(data.count & 0xFF)] + data
            case 3:
                let peer = STUNAddress.ipv4(0x0A00_0100 | UInt32(record.datagram.first ?? 0), port: 4_000 &+ UInt16(record.datagram.count))
                permitted.insert(peer.ip)
                if record.control & 1 != 0 { client.permit(peer, now: now) } else { client.bindChannel(to: peer, now: now) }
                if let violation = sent("an action", limit: 1) { return violation }
                continue
            default:
                break
            }
            if let relay {
                let count = min(datagram.count, buffer.count)
                buffer.replaceSubrange(0..<count, with: datagram.prefix(count))
                let unwrapped = buffer.withUnsafeMutableBytes { relay.unwrap($0, count: count) }
                if let unwrapped {
                    guard unwrapped.count <= count else { return "unwrapped \(unwrapped.count) bytes from \(count)" }
                    guard let from = unwrapped.from.ipv4, permitted.contains(.v4(from)) else { return "data from \(unwrapped.from), never permitted" }
                }
            } else if let received = client.handle(datagram[...], now: now) {
                guard permitted.contains(received.peer.ip) else { return "data from \(received.peer), never permitted" }
            }
            if let violation = sent("a datagram", limit: 2) { return violation }
            if relay == nil, case .allocated = client.state {
                relay = TURNRelayTransport(client: client, server: server, link: link, candidatePriority: 16_777_215,
                                           clock: MediaClock(monotonicMicroseconds: { 0 }))
            }
            if record.service {
                client.poll(now: now)
                if let violation = sent("poll", limit: 2 + 2 * max(1, permitted.count)) { return violation }
            }
        }
        return nil
    }
}
