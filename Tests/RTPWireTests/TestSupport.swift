import Foundation
@testable import RTPWire

/// SplitMix64: a tiny deterministic generator so every randomized test replays identically.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func bytes(hex: String) -> [UInt8] {
    var result: [UInt8] = []
    var chars = Array(hex.utf8)
    chars.removeAll { $0 == 0x20 }
    var index = 0
    while index + 1 < chars.count {
        let text = String(decoding: chars[index...index + 1], as: UTF8.self)
        result.append(UInt8(text, radix: 16) ?? 0)
        index += 2
    }
    return result
}

func randomBytes(count: Int, using generator: inout SeededGenerator) -> [UInt8] {
    (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
}

/// `<repo>/../shared/vectors`, found from this file's path.
func vectorsDirectory() -> URL {
    URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // RTPWireTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repo root
        .deletingLastPathComponent()  // parent of repo
        .appendingPathComponent("shared/vectors")
}

/// Runs `body` and returns the WireError it threw, or nil if it did not throw.
func wireError<T>(_ body: () throws(WireError) -> T) -> WireError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}
