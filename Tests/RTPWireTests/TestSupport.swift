import Foundation
@testable import RTPWire

/// Every randomized test replays identically.
typealias SeededGenerator = SplitMix64

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
