import RTPWire

/// Asks a STUN server which address it sees us at (RFC 8489 §6: a Binding request, the success
/// response's XOR-MAPPED-ADDRESS §14.2): the server-reflexive candidate of RFC 8445 §5.1.1.2,
/// the public side of the NAT we sit behind.
///
/// No I/O and no clock of its own: send `request`, then feed every datagram from the server to
/// `handle` and call `poll(now:)` at `nextDeadline` (nil once answered or failed); what `poll`
/// returns goes to the server again (`STUNRetransmission`). Answers with another transaction ID,
/// or that are not Binding responses, are not ours and are left alone.
public struct STUNBindingQuery: Sendable {
    public enum State: Sendable, Hashable {
        case waiting
        /// The address and port the server saw the request come from.
        case mapped(STUNAddress)
        case failed(STUNBindingQueryError)
    }

    public let transactionID: STUNTransactionID
    /// The request (resent unchanged: retransmissions keep the transaction ID).
    public let request: [UInt8]
    public private(set) var state: State = .waiting
    private var retransmission: STUNRetransmission

    /// A query whose request is sent at `now` (`reliable`: over TCP, sent once).
    public init(transactionID: STUNTransactionID, reliable: Bool = false, now: Int64) {
        self.transactionID = transactionID
        let message = STUNMessage(type: STUNMessageType(method: .binding, messageClass: .request), transactionID: transactionID)
        request = (try? message.serialized()) ?? []  // a header alone always serializes
        retransmission = STUNRetransmission(reliable: reliable, sentAt: now)
    }

    /// When `poll` has something to do; nil once the query ended.
    public var nextDeadline: Int64? { state == .waiting ? retransmission.nextDeadline : nil }

    /// The request again when a retransmission is due; fails the query once the last wait ran out.
    public mutating func poll(now: Int64) -> [UInt8]? {
        guard state == .waiting, now >= retransmission.nextDeadline else { return nil }
        if retransmission.resendDue(now: now) { return request }
        state = .failed(.noResponse(sends: retransmission.sends))
        return nil
    }

    /// Takes `datagram` if it answers this query (true), whatever the answer says.
    public mutating func handle(_ datagram: ArraySlice<UInt8>) -> Bool {
        guard state == .waiting, STUNMessage.isSTUN(datagram), let message = try? STUNMessage(parsing: datagram),
              message.transactionID == transactionID, message.type.method == .binding else { return false }
        switch message.type.messageClass {
        case .successResponse:
            state = message.mappedAddress.map { .mapped($0) } ?? .failed(.malformedResponse("a success without XOR-MAPPED-ADDRESS"))
        case .errorResponse:
            let error = message.errorCode
            state = .failed(.errorResponse(code: error?.code ?? 0, reason: PeerText.shown(error?.reason ?? "")))
        default:
            return false
        }
        return true
    }
}

/// Why a STUN Binding query got no address.
public enum STUNBindingQueryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing came back after every send and the last wait (RFC 8489 §6.2.1).
    case noResponse(sends: Int)
    /// The server answered with an error (§14.8).
    case errorResponse(code: Int, reason: String)
    case malformedResponse(String)

    public var description: String {
        switch self {
        case let .noResponse(sends): return "STUN: no answer to \(sends) Binding requests"
        case let .errorResponse(code, reason): return "STUN: Binding refused (\(code) \(reason))"
        case let .malformedResponse(what): return "STUN: \(what)"
        }
    }
}
