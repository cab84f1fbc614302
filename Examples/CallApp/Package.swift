// swift-tools-version:6.0
// An example client: depends on the engine by path and imports only its `MediaEngine` product.
import Foundation
import PackageDescription

// A path dependency is named after its directory, which differs between checkouts: read it.
let engineRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

let package = Package(
    name: "CallApp",
    dependencies: [.package(path: engineRoot.path)],
    targets: [
        .executableTarget(
            name: "CallApp",
            dependencies: [.product(name: "MediaEngine", package: engineRoot.lastPathComponent.lowercased())],
            path: "Sources/CallApp"),
    ],
    swiftLanguageModes: [.v6]
)
