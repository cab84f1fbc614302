#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An SRTP master key and master salt for one suite (RFC 3711 §8.2).
///
/// The bytes live in one heap buffer shared by all copies of the value and are zeroed when the
/// last copy goes away. They are never printed: `description`, `debugDescription` and the mirror
/// (used by `dump`, `print`, string interpolation) show only the suite and lengths.
/// Arrays a caller passes in remain the caller's to wipe.
public struct SRTPKeyingMaterial: Sendable {
    /// The suite these lengths belong to.
    public let suite: SRTPSuite
    /// master key || master salt.
    let secret: SecretBytes

    /// Key and salt given separately; each must have the suite's exact length.
    public init(suite: SRTPSuite = .default, masterKey: [UInt8], masterSalt: [UInt8]) throws(SRTPError) {
        guard masterKey.count == suite.masterKeyLength else {
            throw .badKeyLength(suite: suite, field: .masterKey,
                                expected: suite.masterKeyLength, actual: masterKey.count)
        }
        guard masterSalt.count == suite.masterSaltLength else {
            throw .badKeyLength(suite: suite, field: .masterSalt,
                                expected: suite.masterSaltLength, actual: masterSalt.count)
        }
        self.suite = suite
        self.secret = SecretBytes(masterKey, masterSalt)
    }

    /// master key || master salt in one buffer, as in an SDES `inline:` key-salt or DTLS-SRTP
    /// exporter output split per side (RFC 5764 §4.2).
    public init(suite: SRTPSuite = .default, keyAndSalt: [UInt8]) throws(SRTPError) {
        guard keyAndSalt.count == suite.keyingMaterialLength else {
            throw .badKeyLength(suite: suite, field: .concatenated,
                                expected: suite.keyingMaterialLength, actual: keyAndSalt.count)
        }
        self.suite = suite
        self.secret = SecretBytes(keyAndSalt)
    }

    /// master key || master salt as a new array, for handing the key to a receiver out of band
    /// (the caller owns and should wipe the copy).
    public var keyAndSalt: [UInt8] { Array(secret.bytes) }

    /// Calls `body` with master key || master salt (the buffer is only valid inside it).
    func withKeyAndSalt<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        body(UnsafeBufferPointer(secret.bytes))
    }

    /// The keying material of an SDP `a=crypto` line; see ``SDESCryptoAttribute``.
    public init(cryptoLine: String) throws(SRTPError) {
        self = try SDESCryptoAttribute(parsing: cryptoLine).keyingMaterial
    }
}

extension SRTPKeyingMaterial: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "SRTPKeyingMaterial(\(suite), key: <\(suite.masterKeyLength) bytes redacted>, salt: <\(suite.masterSaltLength) bytes redacted>)"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: ["suite": suite, "secret": "<redacted>"], displayStyle: .struct)
    }
}

/// A heap buffer for secrets: immutable after `init`, wiped with `explicit_bzero` (which the
/// optimiser may not drop) before it is freed. Sendable because nothing mutates it after init.
final class SecretBytes: @unchecked Sendable {
    let bytes: UnsafeMutableBufferPointer<UInt8>

    init(_ parts: [UInt8]...) {
        bytes = .allocate(capacity: parts.reduce(0) { $0 + $1.count })
        var index = 0
        for part in parts {
            for byte in part {
                bytes[index] = byte
                index += 1
            }
        }
    }

    var count: Int { bytes.count }

    deinit {
        SecretBytes.wipe(UnsafeMutableRawBufferPointer(bytes))
        bytes.deallocate()
    }

    /// Zeroes an array's bytes in place (its count is kept).
    static func wipe(_ array: inout [UInt8]) {
        array.withUnsafeMutableBytes { wipe($0) }
    }

    /// Zeroes memory in a way the compiler may not elide as a dead store.
    static func wipe(_ memory: UnsafeMutableRawBufferPointer) {
        guard let base = memory.baseAddress, memory.count > 0 else { return }
        #if canImport(Glibc)
        explicit_bzero(base, memory.count)
        #else
        memset_s(base, memory.count, 0, memory.count)
        #endif
    }
}
