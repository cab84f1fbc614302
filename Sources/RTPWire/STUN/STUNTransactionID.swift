/// The 96-bit transaction ID of a STUN message (RFC 8489 §5): chosen uniformly at random by the
/// requester, echoed by the response.
public struct STUNTransactionID: Sendable, Hashable, CustomStringConvertible {
    /// The 12 bytes as they appear on the wire.
    public let bytes: [UInt8]

    public static let length = 12

    /// nil unless exactly 12 bytes.
    public init?(_ bytes: [UInt8]) {
        guard bytes.count == Self.length else { return nil }
        self.bytes = bytes
    }

    /// A fresh random ID.
    public static func random(using generator: inout some RandomNumberGenerator) -> STUNTransactionID {
        STUNTransactionID((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })!
    }

    public var description: String { bytes.map { String($0, radix: 16) }.joined() }
}
