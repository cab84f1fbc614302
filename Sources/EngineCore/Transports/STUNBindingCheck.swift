import RTPWire

/// The UDP connectivity check of `FallbackTransport` (issue 18, "UDP first"): a STUN Binding
/// request (RFC 8489 §6.1, no credentials: the server is the engine's own node, reached by an
/// address the client was given) sent over UDP until the server's success response comes back
/// (§6.3.1, XOR-MAPPED-ADDRESS §14.2). Both ends are here: the request and the recognition of its
/// answer for the client, the answer for the server (`UDPAndTCPTransport`).
///
/// The request carries a SOFTWARE attribute (§14.14) so it is longer than the answer: the server
/// answers only requests at least as long as what it sends back, so a forged source address
/// never receives more bytes than the forger spent.
///
/// Over TCP the check also proves who the client is, as an ICE check does (RFC 8445 §7.2.2,
/// RFC 8489 §9.1 short-term credential): USERNAME is the credentials' username fragment and
/// MESSAGE-INTEGRITY is keyed by their password, which the client got when it joined. The node
/// sends nothing down a connection before such a check from it verifies (`UDPAndTCPTransport`).
public enum STUNBindingCheck {
    /// SOFTWARE of every request (its length pads the request above the answer's).
    static let software = "SimulcastEngine UDP connectivity check"
    /// A success response's length: the header and an IPv4 XOR-MAPPED-ADDRESS.
    static let responseLength = STUNMessage.headerLength + 4 + 8

    /// The Binding request with `transactionID` (resent as is: RFC 8489 §6.2.1 retransmissions
    /// keep the transaction ID).
    public static func request(transactionID: STUNTransactionID) -> [UInt8] {
        let message = STUNMessage(type: STUNMessageType(method: .binding, messageClass: .request), transactionID: transactionID,
                                  attributes: [.software(software)])
        // A fixed, short SOFTWARE value always serializes.
        return (try? message.serialized()) ?? []
    }

    /// The Binding request that proves a connection belongs to the holder of `credentials`:
    /// USERNAME, MESSAGE-INTEGRITY under the password and FINGERPRINT (RFC 8489 §14.3, §14.5, §14.7).
    public static func request(transactionID: STUNTransactionID, credentials: ICECredentials) -> [UInt8] {
        let message = STUNMessage(type: STUNMessageType(method: .binding, messageClass: .request), transactionID: transactionID,
                                  attributes: [.username(credentials.usernameFragment), .software(software)])
        // ICE credentials are at most 256 characters: the message always serializes.
        return (try? message.serialized(integrityKey: Array(credentials.password.utf8), fingerprint: true)) ?? []
    }

    /// The username fragment a credentialed Binding request proves, with its transaction ID:
    /// nil unless `datagram` is a Binding request whose USERNAME has a password (`password(for:)`)
    /// and whose MESSAGE-INTEGRITY verifies under it and FINGERPRINT, if present, too.
    public static func verifiedUsername(of datagram: ArraySlice<UInt8>, password: (String) -> String?)
        -> (usernameFragment: String, transactionID: STUNTransactionID)? {
        guard STUNMessage.isSTUN(datagram), let message = try? STUNMessage(parsing: datagram),
              message.type == STUNMessageType(method: .binding, messageClass: .request) else { return nil }
        guard let username = message.attributes.lazy.compactMap({ attribute -> String? in
            if case let .username(name) = attribute { return name } else { return nil }
        }).first, let key = password(username) else { return nil }
        guard STUNMessage.checkIntegrity(datagram, key: Array(key.utf8)) == .valid,
              STUNMessage.checkFingerprint(datagram) != .invalid else { return nil }
        return (username, message.transactionID)
    }

    /// The success response to a verified credentialed request: XOR-MAPPED-ADDRESS, and
    /// MESSAGE-INTEGRITY under the same password (RFC 8489 §9.1.3), so the client can trust it.
    public static func response(answering transactionID: STUNTransactionID, from source: NetworkEndpoint,
                                credentials: ICECredentials) -> [UInt8] {
        (try? success(answering: transactionID, from: source).serialized(integrityKey: Array(credentials.password.utf8),
                                                                          fingerprint: true)) ?? []
    }

    /// Whether `datagram` is the success response to the request with `transactionID`.
    public static func isSuccess(_ datagram: ArraySlice<UInt8>, answering transactionID: STUNTransactionID) -> Bool {
        guard STUNMessage.isSTUN(datagram), let message = try? STUNMessage(parsing: datagram) else { return false }
        return message.type == STUNMessageType(method: .binding, messageClass: .successResponse)
            && message.transactionID == transactionID
    }

    /// Whether `bytes` can be a STUN message at all (RFC 8489 §5: first two bits zero, the magic
    /// cookie, a length that fills the datagram): checked in place, so the node copies only what
    /// passes, never every datagram that starts with 0-3.
    public static func mayBeSTUN(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= STUNMessage.headerLength, bytes[0] <= 3 else { return false }
        let cookie = UInt32(bytes[4]) << 24 | UInt32(bytes[5]) << 16 | UInt32(bytes[6]) << 8 | UInt32(bytes[7])
        return cookie == STUNMessage.magicCookie && Int(bytes[2]) << 8 | Int(bytes[3]) == bytes.count - STUNMessage.headerLength
    }

    /// What a server sends back for `datagram` from `source`: the success response when it is a
    /// Binding request no shorter than the response; nil for anything else (not STUN, another
    /// method or class, a request too short to answer without amplifying).
    public static func response(to datagram: ArraySlice<UInt8>, from source: NetworkEndpoint) -> [UInt8]? {
        guard datagram.count >= responseLength, STUNMessage.isSTUN(datagram),
              let message = try? STUNMessage(parsing: datagram),
              message.type == STUNMessageType(method: .binding, messageClass: .request) else { return nil }
        return try? success(answering: message.transactionID, from: source).serialized()
    }

    /// A Binding success response telling `source` the address it was seen from (§14.2).
    private static func success(answering transactionID: STUNTransactionID, from source: NetworkEndpoint) -> STUNMessage {
        STUNMessage(type: STUNMessageType(method: .binding, messageClass: .successResponse), transactionID: transactionID,
                    attributes: [.xorMappedAddress(ICEDatagramTransport.stunAddress(source))])
    }
}
