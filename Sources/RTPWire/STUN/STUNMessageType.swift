/// The class of a STUN message (RFC 8489 §5: bits C1 C0 of the message type).
public enum STUNClass: UInt16, Sendable, Equatable, CaseIterable {
    case request = 0b00
    case indication = 0b01
    case successResponse = 0b10
    case errorResponse = 0b11
}

/// A STUN method (RFC 8489 §5, 12 bits): Binding is the one ICE uses (RFC 8445 §7).
public struct STUNMethod: RawRepresentable, Sendable, Hashable {
    public let rawValue: UInt16

    /// nil for values wider than 12 bits.
    public init?(rawValue: UInt16) {
        guard rawValue <= 0x0FFF else { return nil }
        self.rawValue = rawValue
    }

    public static let binding = STUNMethod(rawValue: 0x001)!
    /// TURN's methods (RFC 8656 §17).
    public static let allocate = STUNMethod(rawValue: 0x003)!
    public static let refresh = STUNMethod(rawValue: 0x004)!
    public static let send = STUNMethod(rawValue: 0x006)!
    public static let data = STUNMethod(rawValue: 0x007)!
    public static let createPermission = STUNMethod(rawValue: 0x008)!
    public static let channelBind = STUNMethod(rawValue: 0x009)!
}

/// The 14-bit message type of the STUN header: method bits M11…M0 with the class bits C1 C0
/// interleaved at bit positions 8 and 4 (RFC 8489 §5, figure 3).
public struct STUNMessageType: Sendable, Hashable {
    public var method: STUNMethod
    public var messageClass: STUNClass

    public init(method: STUNMethod, messageClass: STUNClass) {
        self.method = method
        self.messageClass = messageClass
    }

    /// Decodes the 16-bit type field; nil when its two top bits are not zero (not STUN).
    public init?(field: UInt16) {
        guard field & 0xC000 == 0 else { return nil }
        let method = field & 0x000F | (field & 0x00E0) >> 1 | (field & 0x3E00) >> 2
        let bits = (field & 0x0010) >> 4 | (field & 0x0100) >> 7
        self.method = STUNMethod(rawValue: method)!
        messageClass = STUNClass(rawValue: bits)!
    }

    /// The 16-bit type field.
    public var field: UInt16 {
        let method = self.method.rawValue
        let bits = messageClass.rawValue
        return method & 0x000F | (method & 0x0070) << 1 | (method & 0x0F80) << 2
            | (bits & 0b01) << 4 | (bits & 0b10) << 7
    }
}
