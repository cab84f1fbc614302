/// The first value of each attribute a TURN client reads (RFC 8656 §18, RFC 8489 §14).
extension STUNMessage {
    public var errorCode: (code: Int, reason: String)? {
        attributes.lazy.compactMap { if case let .errorCode(code, reason) = $0 { (code, reason) } else { nil } }.first
    }
    public var realm: String? { attributes.lazy.compactMap { if case let .realm(text) = $0 { text } else { nil } }.first }
    public var nonce: String? { attributes.lazy.compactMap { if case let .nonce(text) = $0 { text } else { nil } }.first }
    public var lifetime: UInt32? { attributes.lazy.compactMap { if case let .lifetime(seconds) = $0 { seconds } else { nil } }.first }
    public var mappedAddress: STUNAddress? { attributes.lazy.compactMap { if case let .xorMappedAddress(a) = $0 { a } else { nil } }.first }
    public var relayedAddress: STUNAddress? { attributes.lazy.compactMap { if case let .xorRelayedAddress(a) = $0 { a } else { nil } }.first }
    public var peerAddress: STUNAddress? { attributes.lazy.compactMap { if case let .xorPeerAddress(a) = $0 { a } else { nil } }.first }
    public var dataAttribute: [UInt8]? { attributes.lazy.compactMap { if case let .data(bytes) = $0 { bytes } else { nil } }.first }
}
