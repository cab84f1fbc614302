import CommandLineSupport
import RTPWire

/// How `simulcast inspect` interprets packets: which extension id means what (`--ext`) and
/// which payload types carry VP8 (`--vp8-pt`) and Opus (`--opus-pt`).
struct InspectOptions {
    /// Short names accepted by `--ext ID=NAME`.
    static let extensionNames: [String: RTPHeaderExtensionKind] = [
        "audio-level": .audioLevel, "abs-send-time": .absSendTime, "transport-cc": .transportSequenceNumber,
        "mid": .mid, "rid": .rid, "repaired-rid": .repairedRid,
    ]

    var extensionMap: RTPHeaderExtensionMap = .defaults
    var vp8PayloadTypes: Set<UInt8> = [96]
    var opusPayloadTypes: Set<UInt8> = [111]

    init(_ arguments: CommandLineArguments) throws {
        if let text = arguments.string("ext") {
            var pairs: [(id: UInt8, kind: RTPHeaderExtensionKind)] = []
            for item in text.split(separator: ",") {
                let parts = item.split(separator: "=")
                guard parts.count == 2, let id = UInt8(parts[0]), let kind = Self.extensionNames[String(parts[1])] else {
                    throw CommandError("--ext \(item): expected ID=NAME with NAME one of "
                        + Self.extensionNames.keys.sorted().joined(separator: ", "))
                }
                pairs.append((id, kind))
            }
            extensionMap = try RTPHeaderExtensionMap(pairs)
        }
        if let text = arguments.string("vp8-pt") { vp8PayloadTypes = try Self.payloadTypes(text, option: "--vp8-pt") }
        if let text = arguments.string("opus-pt") { opusPayloadTypes = try Self.payloadTypes(text, option: "--opus-pt") }
    }

    private static func payloadTypes(_ text: String, option: String) throws -> Set<UInt8> {
        var types: Set<UInt8> = []
        for item in text.split(separator: ",") {
            guard let value = UInt8(item), value < 128 else { throw CommandError("\(option) \(item): expected 0...127") }
            types.insert(value)
        }
        return types
    }
}
