/// A typed header extension payload that knows its kind and how to read and write its data
/// (RFC 8285 §4 element data).
public protocol RTPHeaderExtensionValue: Sendable, Equatable {
    /// Which extension this value is.
    static var kind: RTPHeaderExtensionKind { get }
    /// Parses an element's data, read in place (a view of the packet: nothing is copied).
    /// Throws `WireError` for a wrong length or invalid content.
    init(extensionData: ArraySlice<UInt8>) throws(WireError)
    /// Decodes an element's data from raw bytes inside the packet (`RTPPacketView`'s lookup,
    /// no slice made); nil when the data is invalid, and `init(extensionData:)` then says why.
    static func decode(rawExtensionData data: UnsafeRawBufferPointer) -> Self?
    /// Appends the element's data (not the element header).
    func appendExtensionData(to buffer: inout [UInt8])
}

extension RTPHeaderExtensionValue {
    /// Through `init(extensionData:)` on a copy (the text values, which build a `String` anyway).
    public static func decode(rawExtensionData data: UnsafeRawBufferPointer) -> Self? {
        try? Self(extensionData: ArraySlice(data))
    }
}

extension RTPHeaderExtensionValue {
    /// The element data as a fresh array.
    public var extensionData: [UInt8] {
        var bytes: [UInt8] = []
        appendExtensionData(to: &bytes)
        return bytes
    }
}

extension RTPHeaderExtensions {
    /// The typed value of `type`'s kind, looked up through `map` (RFC 8285 §5). Returns nil when the
    /// kind is not negotiated or not present; throws `WireError` when present but malformed.
    public func value<Value: RTPHeaderExtensionValue>(_ type: Value.Type, map: RTPHeaderExtensionMap) throws(WireError) -> Value? {
        guard let id = map.id(for: Value.kind), let data = element(id: id) else { return nil }
        return try Value(extensionData: data)
    }
}

extension RTPHeaderExtensionElement {
    /// An element carrying `value` under the id `map` negotiated for its kind (RFC 8285 §5).
    /// Throws `WireError.unsupported` when the kind is not in the map.
    public init<Value: RTPHeaderExtensionValue>(_ value: Value, map: RTPHeaderExtensionMap) throws(WireError) {
        guard let id = map.id(for: Value.kind) else {
            throw .unsupported("header extension \(Value.kind.uri) is not negotiated")
        }
        self.init(id: id, data: value.extensionData)
    }
}

/// Client-to-mixer audio level (RFC 6464 §3): voice activity flag and level in −dBov (0...127).
public struct AudioLevel: RTPHeaderExtensionValue {
    /// RFC 6464 audio level extension.
    public static let kind = RTPHeaderExtensionKind.audioLevel
    /// The "V" bit: the encoder believes the packet contains voice (RFC 6464 §3).
    public var voiceActivity: Bool
    /// Level in −dBov, 0 (loudest) ... 127 (silence) (RFC 6464 §3).
    public var level: UInt8

    /// A level; throws `WireError.outOfRange` above 127.
    public init(voiceActivity: Bool, level: UInt8) throws(WireError) {
        guard level <= 127 else { throw .outOfRange(field: "audio level", value: Int(level)) }
        self.voiceActivity = voiceActivity
        self.level = level
    }

    /// A level clamped to 0...127 (for measured values, which cannot be out of range on the wire).
    public init(clampingLevel level: UInt8, voiceActivity: Bool) {
        self.voiceActivity = voiceActivity
        self.level = min(level, 127)
    }

    /// Digital silence: level 127, no voice (RFC 6464 §3).
    public static let silence = AudioLevel(clampingLevel: 127, voiceActivity: false)

    /// Parses the 1-byte element data (RFC 6464 §3).
    @inlinable
    public init(extensionData data: ArraySlice<UInt8>) throws(WireError) {
        guard data.count == 1 else { throw .wrongLength(field: "audio level length", data.count) }
        let byte = data[data.startIndex]
        self.voiceActivity = byte & 0x80 != 0
        self.level = byte & 0x7F
    }

    /// Reads the 1-byte element data in place (RFC 6464 §3); nil for another length.
    @inlinable @inline(__always)
    public static func decode(rawExtensionData data: UnsafeRawBufferPointer) -> AudioLevel? {
        guard data.count == 1 else { return nil }
        return AudioLevel(clampingLevel: data[0] & 0x7F, voiceActivity: data[0] & 0x80 != 0)
    }

    /// Appends the 1-byte element data (RFC 6464 §3).
    public func appendExtensionData(to buffer: inout [UInt8]) {
        buffer.append((voiceActivity ? 0x80 : 0) | (level & 0x7F))
    }
}

/// Absolute send time: 24-bit 6.18 fixed-point seconds, wrapping every 64 s
/// (webrtc.org abs-send-time extension).
public struct AbsSendTime: RTPHeaderExtensionValue {
    /// abs-send-time extension.
    public static let kind = RTPHeaderExtensionKind.absSendTime
    /// The raw 24-bit 6.18 fixed-point value.
    public var rawValue: UInt32

    /// A value from its 24-bit raw form; throws `WireError.outOfRange` above 0xFFFFFF.
    public init(rawValue: UInt32) throws(WireError) {
        guard rawValue <= 0xFF_FFFF else { throw .outOfRange(field: "abs-send-time", value: Int(rawValue)) }
        self.rawValue = rawValue
    }

    /// The send time of `microseconds` since any epoch, reduced modulo 64 s.
    public init(microseconds: UInt64) {
        // Reduce first so the shift cannot overflow: < 64e6 * 2^18 < 2^45.
        let reduced = microseconds % 64_000_000
        self.rawValue = UInt32((reduced << 18) / 1_000_000)
    }

    /// The value in seconds within the 64 s wrap period.
    public var seconds: Double { Double(rawValue) / Double(1 << 18) }

    /// Parses the 3-byte element data.
    @inlinable
    public init(extensionData data: ArraySlice<UInt8>) throws(WireError) {
        guard data.count == 3 else { throw .wrongLength(field: "abs-send-time length", data.count) }
        let first = data.startIndex
        self.rawValue = UInt32(data[first]) << 16 | UInt32(data[first &+ 1]) << 8 | UInt32(data[first &+ 2])
    }

    /// Reads the 3-byte element data in place; nil for another length.
    @inlinable @inline(__always)
    public static func decode(rawExtensionData data: UnsafeRawBufferPointer) -> AbsSendTime? {
        guard data.count == 3 else { return nil }
        return AbsSendTime(validRawValue: UInt32(data[0]) << 16 | UInt32(data[1]) << 8 | UInt32(data[2]))
    }

    /// A value known to fit 24 bits.
    @inlinable
    init(validRawValue: UInt32) { rawValue = validRawValue }

    /// Appends the 3-byte element data.
    public func appendExtensionData(to buffer: inout [UInt8]) {
        buffer.appendUInt24(rawValue & 0xFF_FFFF)
    }
}

/// Transport-wide sequence number (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2).
public struct TransportSequenceNumber: RTPHeaderExtensionValue {
    /// transport-wide-cc extension.
    public static let kind = RTPHeaderExtensionKind.transportSequenceNumber
    /// The 16-bit transport-wide sequence number.
    public var value: UInt16

    /// A sequence number.
    public init(_ value: UInt16) { self.value = value }

    /// Parses the 2-byte element data.
    @inlinable
    public init(extensionData data: ArraySlice<UInt8>) throws(WireError) {
        guard data.count == 2 else { throw .wrongLength(field: "transport sequence number length", data.count) }
        self.value = UInt16(data[data.startIndex]) << 8 | UInt16(data[data.startIndex &+ 1])
    }

    /// Reads the 2-byte element data in place; nil for another length.
    @inlinable @inline(__always)
    public static func decode(rawExtensionData data: UnsafeRawBufferPointer) -> TransportSequenceNumber? {
        guard data.count == 2 else { return nil }
        return TransportSequenceNumber(UInt16(data[0]) << 8 | UInt16(data[1]))
    }

    /// Appends the 2-byte element data.
    public func appendExtensionData(to buffer: inout [UInt8]) { buffer.appendUInt16(value) }
}

/// Validation shared by the SDES-item extensions (RFC 7941 §4.1): 1...255 bytes of visible ASCII.
enum SDESText {
    static func decode(_ data: UnsafeRawBufferPointer, field: String,
                       allowed: (UInt8) -> Bool) throws(WireError) -> String {
        guard (1...255).contains(data.count) else {
            throw .invalidValue(field: "\(field) length", value: data.count)
        }
        // Indexes the bytes directly instead of `for byte in data`: unoptimized builds run that
        // through the unspecialized IndexingIterator, which may allocate per byte (every MID/RID
        // on the receive path). Optimized builds are the same.
        var index = 0
        while index < data.endIndex {
            let byte = data[index]
            guard allowed(byte) else { throw .invalidValue(field: "\(field) character", value: Int(byte)) }
            index += 1
        }
        return String(decoding: data, as: UTF8.self)
    }

    static func validate(_ text: String, field: String, allowed: (UInt8) -> Bool) throws(WireError) {
        let count = text.utf8.count
        guard (1...255).contains(count) else { throw .outOfRange(field: "\(field) length", value: count) }
        for byte in text.utf8 where !allowed(byte) {
            throw .outOfRange(field: "\(field) character", value: Int(byte))
        }
    }

    /// MID is an SDP token (RFC 8843 §5, RFC 4566 token-char): visible ASCII.
    static func isTokenChar(_ byte: UInt8) -> Bool { (0x21...0x7E).contains(byte) }

    /// rid-id (RFC 8851 §10): ALPHA / DIGIT / "-" / "_".
    static func isRIDChar(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || byte == 0x2D || byte == 0x5F
    }
}

/// A header extension whose data is an RFC 7941 SDES text item: 1...255 bytes of ASCII from a
/// restricted alphabet. MID, RID and repaired RID share parsing, validation and serialization.
public protocol SDESTextExtensionValue: RTPHeaderExtensionValue {
    /// The name used in errors, e.g. "RID".
    static var fieldName: String { get }
    /// Whether one byte belongs to the item's alphabet.
    static func isAllowed(_ byte: UInt8) -> Bool
    /// The text, already validated.
    var value: String { get }
    /// Wraps text that has been validated against `isAllowed`.
    init(validated value: String)
}

extension SDESTextExtensionValue {
    /// The value; throws `WireError.outOfRange` unless 1...255 bytes of the item's alphabet.
    public init(_ value: String) throws(WireError) {
        try SDESText.validate(value, field: Self.fieldName, allowed: Self.isAllowed)
        self.init(validated: value)
    }

    /// Parses the element data (RFC 7941 §4.1).
    public init(extensionData data: ArraySlice<UInt8>) throws(WireError) {
        let decoded = data.withUnsafeBytes { bytes in
            Result { () throws(WireError) in try SDESText.decode(bytes, field: Self.fieldName, allowed: Self.isAllowed) }
        }
        self.init(validated: try decoded.get())
    }

    /// Appends the ASCII bytes.
    public func appendExtensionData(to buffer: inout [UInt8]) { buffer.append(contentsOf: value.utf8) }
}

/// Media identification "MID" (RFC 8843 §15.2 / RFC 7941 SDES item in a header extension):
/// 1...255 bytes of visible ASCII.
public struct MediaIdentifier: SDESTextExtensionValue {
    /// sdes:mid extension.
    public static let kind = RTPHeaderExtensionKind.mid
    public static let fieldName = "MID"
    public static func isAllowed(_ byte: UInt8) -> Bool { SDESText.isTokenChar(byte) }
    public let value: String
    public init(validated value: String) { self.value = value }
}

/// RTP stream identifier "RID" (RFC 8852 §3.1), e.g. `q`, `h`, `f` for simulcast layers:
/// 1...255 of ALPHA / DIGIT / "-" / "_" (RFC 8851 §10 rid-id).
public struct RTPStreamID: SDESTextExtensionValue {
    /// sdes:rtp-stream-id extension.
    public static let kind = RTPHeaderExtensionKind.rid
    public static let fieldName = "RID"
    public static func isAllowed(_ byte: UInt8) -> Bool { SDESText.isRIDChar(byte) }
    public let value: String
    public init(validated value: String) { self.value = value }
}

/// Repaired RTP stream identifier (RFC 8852 §3.2): the RID of the stream a repair stream repairs.
public struct RepairedRTPStreamID: SDESTextExtensionValue {
    /// sdes:repaired-rtp-stream-id extension.
    public static let kind = RTPHeaderExtensionKind.repairedRid
    public static let fieldName = "repaired RID"
    public static func isAllowed(_ byte: UInt8) -> Bool { SDESText.isRIDChar(byte) }
    public let value: String
    public init(validated value: String) { self.value = value }
}

extension WireError {
    /// `.invalidValue(field:value:)` for an element of the wrong length, built out of line: the
    /// fixed-size decoders on the packet path keep only a call on their error path.
    @usableFromInline @inline(never)
    static func wrongLength(field: String, _ count: Int) -> WireError { .invalidValue(field: field, value: count) }
}
