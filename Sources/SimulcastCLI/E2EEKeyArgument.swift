import Foundation
import MediaEngine

/// `--e2ee-key BASE64` of `demo`, `send` and `publish`: a shared SFrame key (RFC 9605) as the engine takes it.
enum E2EEKeyArgument {
    /// The room or output option for `text` (nil: no flag given); a `CommandError` for a key
    /// that is not base64 of 16 to 64 bytes.
    static func options(_ text: String?) throws -> E2EEOptions? {
        guard let text else { return nil }
        guard let key = Data(base64Encoded: text), E2EEKeyProvider.keyLengths.contains(key.count) else {
            throw CommandError("--e2ee-key \(text): expected \(E2EEKeyProvider.keyLengths.lowerBound) to "
                + "\(E2EEKeyProvider.keyLengths.upperBound) bytes as base64")
        }
        return E2EEOptions(keyProvider: try E2EEKeyProvider(sharedKey: [UInt8](key)))
    }
}
