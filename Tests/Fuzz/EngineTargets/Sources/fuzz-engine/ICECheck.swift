import RTPWire
import SessionCore

/// ICEAgent.handle + poll on a simulated clock, fed the STUN a peer or a stranger could send.
///
/// Input: `DatagramScript` (variant bit 0: the agent is controlling). Per record, `control` bit 0
/// picks the source (the signalled peer or a stranger); bits 1–2 the mode: 0 the bytes as they
/// are; 1 a Binding request whose attributes are the bytes (a USERNAME added if missing when bit
/// 3 is set), signed with the agent's password as a peer that knows it would; 2 a success and 3
/// an error response to the agent's latest outstanding check, attributes from the bytes, signed
/// with the peer's password; bit 4 runs the timers after the datagram.
///
/// Invariants beyond no trap: a request the harness did not sign is never answered; the agent
/// sends at most (pairs + 4) datagrams per call; it keeps at most 64 remote candidates; when
/// connected, the selected pair is permitted; once failed, nothing is sent or permitted.
enum ICECheck {
    static let agentCredentials = try! ICECredentials(usernameFragment: "AGNT", password: "agentagentagentagentagen")
    static let peerCredentials = try! ICECredentials(usernameFragment: "PEER", password: "peerpeerpeerpeerpeerpeer")
    static let local = STUNAddress.ipv4(0x0A00_0001, port: 1000)
    static let peer = STUNAddress.ipv4(0x0A00_0002, port: 2000)
    static let stranger = STUNAddress.ipv4(0x0A00_0009, port: 9)

    static func run(_ bytes: [UInt8]) -> String? {
        let script = DatagramScript(bytes)
        let role: ICEAgent.Role = script.variant & 1 == 0 ? .controlled : .controlling
        let agent = ICEAgent(configuration: .init(local: agentCredentials, role: role, tieBreaker: 77), seed: 1)
        agent.addLocalAddress(local)
        agent.setRemoteCredentials(peerCredentials)
        agent.addRemoteCandidate(peer, priority: 2_130_706_431)
        var now: Int64 = 1_000
        var outstanding: [(id: STUNTransactionID, to: STUNAddress)] = []
        var generator = SplitMix64(seed: 9)

        func check(_ sent: [ICEAgent.Transmission], _ what: String) -> String? {
            guard sent.count <= agent.pairs.count + 4 else { return "\(what) sent \(sent.count) datagrams for \(agent.pairs.count) pairs" }
            for transmission in sent {
                if let message = try? STUNMessage(parsing: transmission.bytes), message.type.messageClass == .request {
                    outstanding.append((message.transactionID, transmission.destination))
                    if outstanding.count > 16 { outstanding.removeFirst() }
                }
            }
            if agent.state == .failed, !sent.isEmpty, what == "poll" { return "a failed agent still sends" }
            return nil
        }

        if let violation = check(agent.poll(nowMilliseconds: now), "poll") { return violation }
        for record in script.records {
            now += record.advanceMicroseconds / 1000
            let source = record.control & 1 == 0 ? peer : stranger
            let mode = record.control >> 1 & 3
            var datagram = record.datagram
            if mode != 0 {
                let attributes = parsedAttributes(record.datagram)
                let messageClass: STUNClass = mode == 1 ? .request : mode == 2 ? .successResponse : .errorResponse
                let id: STUNTransactionID
                var to = source
                if mode == 1 {
                    id = .random(using: &generator)
                } else {
                    guard let latest = outstanding.last else { continue }
                    id = latest.id
                    to = latest.to
                }
                var all = attributes
                if mode == 1, record.control & 8 != 0, !all.contains(where: { if case .username = $0 { return true } else { return false } }) {
                    all.append(.username("AGNT:PEER"))
                }
                let key = mode == 1 ? agentCredentials.password : peerCredentials.password
                guard let signed = try? STUNMessage(type: STUNMessageType(method: .binding, messageClass: messageClass),
                                                    transactionID: id, attributes: all)
                    .serialized(integrityKey: Array(key.utf8), fingerprint: true) else { continue }
                datagram = signed
                let sent = agent.handle(datagram[...], from: mode == 1 ? source : to, on: local, nowMilliseconds: now)
                if let violation = check(sent, "handle") { return violation }
            } else {
                let sent = agent.handle(datagram[...], from: source, on: local, nowMilliseconds: now)
                if let message = try? STUNMessage(parsing: datagram), message.type.messageClass == .request, !sent.isEmpty,
                   STUNMessage.checkIntegrity(datagram[...], key: Array(agentCredentials.password.utf8)) != .valid {
                    return "an unsigned request was answered"
                }
                if let violation = check(sent, "handle") { return violation }
            }
            if record.control & 0x10 != 0, let violation = check(agent.poll(nowMilliseconds: now), "poll") { return violation }
            guard agent.pairs.count <= ICEAgent.maximumRemoteCandidates else { return "\(agent.pairs.count) pairs" }
            if agent.state == .connected {
                guard let selected = agent.selectedPair, agent.permits(selected.remote) else { return "connected without a permitted pair" }
            }
            if agent.state == .failed, agent.permits(peer) || agent.permits(stranger) { return "a failed agent permits media" }
        }
        return nil
    }

    /// The bytes as attribute TLVs (what a STUN message after the header would hold), or none.
    static func parsedAttributes(_ bytes: [UInt8]) -> [STUNAttribute] {
        var body = Array(bytes.prefix(512))
        while body.count % 4 != 0 { body.append(0) }
        let header: [UInt8] = [0, 1, UInt8(body.count >> 8), UInt8(body.count & 0xFF), 0x21, 0x12, 0xA4, 0x42]
            + [UInt8](repeating: 1, count: 12)
        return (try? STUNMessage(parsing: header + body))?.attributes ?? []
    }
}
