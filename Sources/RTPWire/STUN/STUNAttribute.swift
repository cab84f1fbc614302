/// One STUN attribute (RFC 8489 §14, RFC 8445 §16.1) as this engine reads and writes it.
/// MESSAGE-INTEGRITY and FINGERPRINT are not attributes here: `STUNMessage` computes and
/// checks them over the message bytes.
public enum STUNAttribute: Sendable, Hashable {
    /// MAPPED-ADDRESS (0x0001, RFC 8489 §14.1): read for old servers, not written.
    case mappedAddress(STUNAddress)
    /// XOR-MAPPED-ADDRESS (0x0020, §14.2): the requester's address as the responder saw it.
    case xorMappedAddress(STUNAddress)
    /// USERNAME (0x0006, §14.3): for ICE, "remote-ufrag:local-ufrag" (RFC 8445 §7.2.2).
    case username(String)
    /// ERROR-CODE (0x0009, §14.8): 300…699, e.g. 487 Role Conflict, 401 Unauthenticated.
    case errorCode(code: Int, reason: String)
    /// SOFTWARE (0x8022, §14.14).
    case software(String)
    /// PRIORITY (0x0024, RFC 8445 §7.1.1): the priority a peer-reflexive candidate would get.
    case priority(UInt32)
    /// USE-CANDIDATE (0x0025, RFC 8445 §7.1.2): the controlling agent nominates this pair.
    case useCandidate
    /// ICE-CONTROLLED (0x8029) and ICE-CONTROLLING (0x802A), RFC 8445 §7.1.3: the tie-breaker.
    case iceControlled(tieBreaker: UInt64)
    case iceControlling(tieBreaker: UInt64)
    /// TURN (RFC 8656 §18): CHANNEL-NUMBER (0x000C), LIFETIME (0x000D, seconds),
    /// XOR-PEER-ADDRESS (0x0012), DATA (0x0013), XOR-RELAYED-ADDRESS (0x0016),
    /// REQUESTED-TRANSPORT (0x0019, the IP protocol number: 17 for UDP).
    case channelNumber(UInt16)
    case lifetime(UInt32)
    case xorPeerAddress(STUNAddress)
    case data([UInt8])
    case xorRelayedAddress(STUNAddress)
    case requestedTransport(UInt8)
    /// Long-term credentials (RFC 8489 §9.2): REALM (0x0014) and NONCE (0x0015).
    case realm(String)
    case nonce(String)
    /// Any other attribute, kept as it came (type, value without padding).
    case unknown(type: UInt16, value: [UInt8])

    /// Attribute type codes (IANA "STUN Attributes").
    public enum Code {
        public static let mappedAddress: UInt16 = 0x0001
        public static let username: UInt16 = 0x0006
        public static let messageIntegrity: UInt16 = 0x0008
        public static let errorCode: UInt16 = 0x0009
        public static let xorMappedAddress: UInt16 = 0x0020
        public static let priority: UInt16 = 0x0024
        public static let useCandidate: UInt16 = 0x0025
        public static let software: UInt16 = 0x8022
        public static let fingerprint: UInt16 = 0x8028
        public static let iceControlled: UInt16 = 0x8029
        public static let iceControlling: UInt16 = 0x802A
        public static let channelNumber: UInt16 = 0x000C
        public static let lifetime: UInt16 = 0x000D
        public static let xorPeerAddress: UInt16 = 0x0012
        public static let data: UInt16 = 0x0013
        public static let realm: UInt16 = 0x0014
        public static let nonce: UInt16 = 0x0015
        public static let xorRelayedAddress: UInt16 = 0x0016
        public static let requestedTransport: UInt16 = 0x0019
    }

    /// Longest REALM and NONCE values (RFC 8489 §14.9, §14.10: under 128 characters, 763 bytes).
    public static let maximumRealmOrNonceLength = 763

    /// Longest USERNAME value (RFC 8489 §14.3: less than 513 bytes).
    public static let maximumUsernameLength = 512
    /// Longest SOFTWARE value and ERROR-CODE reason (RFC 8489 §14.14, §14.8: under 763 bytes).
    public static let maximumTextLength = 763

    /// The type code this attribute is written with.
    public var type: UInt16 {
        switch self {
        case .mappedAddress: return Code.mappedAddress
        case .xorMappedAddress: return Code.xorMappedAddress
        case .username: return Code.username
        case .errorCode: return Code.errorCode
        case .software: return Code.software
        case .priority: return Code.priority
        case .useCandidate: return Code.useCandidate
        case .iceControlled: return Code.iceControlled
        case .iceControlling: return Code.iceControlling
        case .channelNumber: return Code.channelNumber
        case .lifetime: return Code.lifetime
        case .xorPeerAddress: return Code.xorPeerAddress
        case .data: return Code.data
        case .xorRelayedAddress: return Code.xorRelayedAddress
        case .requestedTransport: return Code.requestedTransport
        case .realm: return Code.realm
        case .nonce: return Code.nonce
        case let .unknown(type, _): return type
        }
    }

    /// Whether a receiver that does not understand the type must reject the message
    /// (types 0x0000–0x7FFF are comprehension-required, RFC 8489 §14).
    public var isComprehensionRequired: Bool { type < 0x8000 }

    /// Reads one attribute value of type `type`.
    static func parse(type: UInt16, value: ArraySlice<UInt8>, transactionID: STUNTransactionID) throws(WireError) -> STUNAttribute {
        var reader = ByteReader(value)
        switch type {
        case Code.mappedAddress:
            return .mappedAddress(try STUNAddress.parse(value, xored: false, transactionID: transactionID))
        case Code.xorMappedAddress:
            return .xorMappedAddress(try STUNAddress.parse(value, xored: true, transactionID: transactionID))
        case Code.username:
            return .username(try text(value, field: "STUN USERNAME", limit: maximumUsernameLength))
        case Code.software:
            return .software(try text(value, field: "STUN SOFTWARE", limit: maximumTextLength))
        case Code.errorCode:
            _ = try reader.readUInt16("STUN ERROR-CODE reserved")
            let hundreds = Int(try reader.readUInt8("STUN ERROR-CODE class") & 0x07)
            let number = Int(try reader.readUInt8("STUN ERROR-CODE number"))
            let code = hundreds * 100 + number
            guard (3...6).contains(hundreds), number < 100 else {
                throw .outOfRange(field: "STUN ERROR-CODE", value: code)
            }
            return .errorCode(code: code, reason: try text(reader.readRest(), field: "STUN ERROR-CODE reason",
                                                           limit: maximumTextLength))
        case Code.priority:
            try expectLength(value, 4, "STUN PRIORITY")
            return .priority(try reader.readUInt32("STUN PRIORITY"))
        case Code.useCandidate:
            try expectLength(value, 0, "STUN USE-CANDIDATE")
            return .useCandidate
        case Code.iceControlled:
            try expectLength(value, 8, "STUN ICE-CONTROLLED")
            return .iceControlled(tieBreaker: try reader.readUInt64("STUN ICE-CONTROLLED"))
        case Code.iceControlling:
            try expectLength(value, 8, "STUN ICE-CONTROLLING")
            return .iceControlling(tieBreaker: try reader.readUInt64("STUN ICE-CONTROLLING"))
        case Code.channelNumber:
            try expectLength(value, 4, "TURN CHANNEL-NUMBER")
            return .channelNumber(try reader.readUInt16("TURN CHANNEL-NUMBER"))
        case Code.lifetime:
            try expectLength(value, 4, "TURN LIFETIME")
            return .lifetime(try reader.readUInt32("TURN LIFETIME"))
        case Code.xorPeerAddress:
            return .xorPeerAddress(try STUNAddress.parse(value, xored: true, transactionID: transactionID))
        case Code.xorRelayedAddress:
            return .xorRelayedAddress(try STUNAddress.parse(value, xored: true, transactionID: transactionID))
        case Code.data:
            return .data(Array(value))
        case Code.requestedTransport:
            try expectLength(value, 4, "TURN REQUESTED-TRANSPORT")
            return .requestedTransport(try reader.readUInt8("TURN REQUESTED-TRANSPORT"))
        case Code.realm:
            return .realm(try text(value, field: "STUN REALM", limit: maximumRealmOrNonceLength))
        case Code.nonce:
            return .nonce(try text(value, field: "STUN NONCE", limit: maximumRealmOrNonceLength))
        default:
            return .unknown(type: type, value: Array(value))
        }
    }

    /// Appends the value (unpadded).
    func serializeValue(into buffer: inout [UInt8], transactionID: STUNTransactionID) throws(WireError) {
        switch self {
        case let .mappedAddress(address):
            try address.serialize(into: &buffer, xored: false, transactionID: transactionID)
        case let .xorMappedAddress(address):
            try address.serialize(into: &buffer, xored: true, transactionID: transactionID)
        case let .username(name):
            try Self.append(name, into: &buffer, field: "STUN USERNAME", limit: Self.maximumUsernameLength)
        case let .software(name):
            try Self.append(name, into: &buffer, field: "STUN SOFTWARE", limit: Self.maximumTextLength)
        case let .errorCode(code, reason):
            guard (300...699).contains(code) else { throw .outOfRange(field: "STUN ERROR-CODE", value: code) }
            buffer += [0, 0, UInt8(code / 100), UInt8(code % 100)]
            try Self.append(reason, into: &buffer, field: "STUN ERROR-CODE reason", limit: Self.maximumTextLength)
        case let .priority(value):
            buffer.appendUInt32(value)
        case .useCandidate:
            break
        case let .iceControlled(tieBreaker), let .iceControlling(tieBreaker):
            buffer.appendUInt64(tieBreaker)
        case let .channelNumber(number):
            buffer.appendUInt16(number)
            buffer += [0, 0]  // RFFU (RFC 8656 §18.1)
        case let .lifetime(seconds):
            buffer.appendUInt32(seconds)
        case let .xorPeerAddress(address), let .xorRelayedAddress(address):
            try address.serialize(into: &buffer, xored: true, transactionID: transactionID)
        case let .data(bytes):
            guard bytes.count <= Int(UInt16.max) else { throw .outOfRange(field: "TURN DATA length", value: bytes.count) }
            buffer += bytes
        case let .requestedTransport(proto):
            buffer += [proto, 0, 0, 0]
        case let .realm(text):
            try Self.append(text, into: &buffer, field: "STUN REALM", limit: Self.maximumRealmOrNonceLength)
        case let .nonce(text):
            try Self.append(text, into: &buffer, field: "STUN NONCE", limit: Self.maximumRealmOrNonceLength)
        case let .unknown(type, value):
            guard type != Code.messageIntegrity, type != Code.fingerprint else {
                throw .unsupported("MESSAGE-INTEGRITY and FINGERPRINT are computed by STUNMessage.serialized")
            }
            guard value.count <= Int(UInt16.max) else { throw .outOfRange(field: "STUN attribute length", value: value.count) }
            buffer += value
        }
    }

    private static func text(_ value: ArraySlice<UInt8>, field: String, limit: Int) throws(WireError) -> String {
        guard value.count <= limit else { throw .outOfRange(field: field, value: value.count) }
        guard let string = String(validating: value, as: UTF8.self) else {
            throw .invalidValue(field: "\(field) (UTF-8)", value: value.count)
        }
        return string
    }

    private static func append(_ string: String, into buffer: inout [UInt8], field: String, limit: Int) throws(WireError) {
        let bytes = Array(string.utf8)
        guard bytes.count <= limit else { throw .outOfRange(field: field, value: bytes.count) }
        buffer += bytes
    }

    private static func expectLength(_ value: ArraySlice<UInt8>, _ length: Int, _ field: String) throws(WireError) {
        guard value.count == length else { throw .invalidValue(field: "\(field) length", value: value.count) }
    }
}
