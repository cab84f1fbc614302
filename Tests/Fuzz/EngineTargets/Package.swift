// swift-tools-version:6.0
// libFuzzer targets that need the engine's modules and C libraries (file readers, SRTP, the
// publisher / subscriber / forwarding node datagram paths). Built only by scripts/fuzz.sh with
// `--sanitize=fuzzer --sanitize=address`; the wire parsers stay in ../FuzzEntry.swift.
import Foundation
import PackageDescription

// A path dependency's identity is its directory's name, which differs between checkouts
// (worktrees, CI): compute it instead of spelling it.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let rootIdentity = root.lastPathComponent.lowercased()

let package = Package(
    name: "EngineFuzzTargets",
    dependencies: [.package(path: root.path)],
    targets: [
        // Imports RTPWire, Simulcast, MediaCodecs and SRTP too: they are not products of the root
        // package, but SwiftPM builds every module of the graph into one module directory, so the
        // MediaEngine product's dependencies are importable (no @testable, public API only).
        .executableTarget(
            name: "fuzz-engine",
            dependencies: [.product(name: "MediaEngine", package: rootIdentity)],
            path: "Sources/fuzz-engine"),
    ],
    swiftLanguageModes: [.v6]
)
