// swift-tools-version:6.0
// A real-time simulcast media engine: libvpx/libyuv/libopus/libsrtp2 for the heavy lifting,
// Swift for all protocol logic, policy and public API. See ../shared/ARCHITECTURE.md.
import PackageDescription

let package = Package(
    name: "SimulcastEngine",
    products: [
        .library(name: "MediaEngine", targets: ["MediaEngine"]),
        .library(name: "MediaEngineTesting", targets: ["MediaEngineTesting"]),
        .library(name: "RTPWire", targets: ["RTPWire"]),
        .executable(name: "simulcast", targets: ["SimulcastCLI"]),
        .executable(name: "simulcast-bench", targets: ["simulcast-bench"]),
    ],
    targets: [
        // System libraries (Debian packages; installed by scripts/install-deps.sh).
        .systemLibrary(name: "CVPX", path: "Sources/CVPX", pkgConfig: "vpx",
                       providers: [.apt(["libvpx-dev"])]),
        .systemLibrary(name: "CYUV", path: "Sources/CYUV",
                       providers: [.apt(["libyuv-dev"])]),
        .systemLibrary(name: "COpus", path: "Sources/COpus", pkgConfig: "opus",
                       providers: [.apt(["libopus-dev"])]),
        .systemLibrary(name: "CSRTP", path: "Sources/CSRTP", pkgConfig: "libsrtp2",
                       providers: [.apt(["libsrtp2-dev"])]),
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "openssl",
                       providers: [.apt(["libssl-dev"])]),
        // The one C target: variadic controls and macros Swift cannot call.
        .target(name: "CShims", dependencies: ["CVPX", "COpus"], path: "CShims",
                linkerSettings: [.linkedLibrary("vpx"), .linkedLibrary("opus")]),

        // Pure Swift: every byte on the wire. The fuzzed surface.
        .target(name: "RTPWire", path: "Sources/RTPWire"),
        // Pure policy: layer plan, caps, layer selection, ... (no clocks, no sockets).
        .target(name: "Simulcast", dependencies: ["RTPWire"], path: "Sources/Simulcast"),
        // libvpx / libyuv / libopus wrappers.
        .target(name: "MediaCodecs",
                dependencies: ["CVPX", "CYUV", "COpus", "CShims", "RTPWire", "Simulcast"],
                path: "Sources/MediaCodecs"),
        // libsrtp2 wrapper.
        .target(name: "SRTP", dependencies: ["CSRTP"], path: "Sources/SRTP"),
        // DTLS-SRTP (RFC 5764) on OpenSSL 3: certificates, the handshake, SRTP keys.
        .target(name: "DTLS", dependencies: ["COpenSSL", "SRTP", "RTPWire"], path: "Sources/DTLS"),
        // End-to-end frame encryption (RFC 9605) on OpenSSL 3's EVP.
        .target(name: "SFrame", dependencies: ["COpenSSL"], path: "Sources/SFrame"),
        // The session core: per-stream stages with no I/O, no threads, no clock of their own
        // (packet history, NACK, retransmission budget, receive statistics, jitter buffer,
        // bandwidth estimation, address and SSRC guards, event rings).
        .target(name: "SessionCore", dependencies: ["RTPWire", "Simulcast"], path: "Sources/SessionCore"),
        // Endpoints: publisher, subscriber, forwarding node, room node, sockets and transports.
        .target(name: "EngineCore",
                dependencies: ["RTPWire", "Simulcast", "SessionCore", "MediaCodecs", "SRTP", "DTLS", "SFrame", "CShims"],
                path: "Sources/EngineCore"),
        // The public API a client links: the engine object, tracks, rooms, events.
        .target(name: "MediaEngine",
                dependencies: ["EngineCore", "SessionCore", "RTPWire", "Simulcast", "MediaCodecs", "SRTP", "SFrame", "CShims"],
                path: "Sources/MediaEngine"),
        // What tests and demos of a client need besides the API: generated scenes and tones,
        // file sources, a squeezed downlink, room tuning, a whole engine on virtual time.
        .target(name: "MediaEngineTesting", dependencies: ["MediaEngine", "MediaCodecs", "EngineCore"],
                path: "Sources/MediaEngineTesting"),
        // Argument parsing shared by the command-line tools.
        .target(name: "CommandLineSupport", path: "Sources/CommandLineSupport"),
        .executableTarget(name: "SimulcastCLI",
                          dependencies: ["MediaEngine", "MediaEngineTesting", "EngineCore", "SessionCore", "MediaCodecs", "RTPWire", "Simulcast", "SRTP",
                                         "CommandLineSupport"],
                          path: "Sources/SimulcastCLI"),
        // The C reference harness: the same libyuv + libvpx calls as the Swift pipeline, in plain C.
        // Also the direct libsrtp2 protect loop that `simulcast-bench srtp` compares SRTPSession with.
        .target(name: "CReference", dependencies: ["CVPX", "CYUV", "CSRTP"], path: "Benchmarks/CReference",
                linkerSettings: [.linkedLibrary("vpx"), .linkedLibrary("yuv"), .linkedLibrary("srtp2")]),
        // Interposes malloc & co. to count heap allocations for `simulcast-bench wire`. Linked
        // into simulcast-bench only: it replaces the allocator of whatever executable links it.
        .target(name: "AllocationCounter", path: "Benchmarks/AllocationCounter"),
        .executableTarget(name: "simulcast-bench",
                          dependencies: ["MediaEngine", "MediaEngineTesting", "MediaCodecs", "EngineCore", "SessionCore", "RTPWire", "Simulcast", "SRTP",
                                         "SFrame", "CReference", "CommandLineSupport", "AllocationCounter", "CShims"],
                          path: "Benchmarks/simulcast-bench"),

        .testTarget(name: "RTPWireTests", dependencies: ["RTPWire"], path: "Tests/RTPWireTests"),
        .testTarget(name: "SimulcastTests", dependencies: ["Simulcast"], path: "Tests/SimulcastTests"),
        .testTarget(name: "MediaCodecsTests", dependencies: ["MediaCodecs", "Simulcast", "RTPWire"],
                    path: "Tests/MediaCodecsTests"),
        .testTarget(name: "SRTPTests", dependencies: ["SRTP"], path: "Tests/SRTPTests"),
        .testTarget(name: "DTLSTests", dependencies: ["DTLS", "SRTP", "RTPWire"], path: "Tests/DTLSTests"),
        .testTarget(name: "SFrameTests", dependencies: ["SFrame"], path: "Tests/SFrameTests",
                    exclude: ["Vectors"]),
        // The public API as a client sees it: `import MediaEngine` only.
        // The private namespace check and the throw-away Janus of the interop tests.
        .target(name: "InteropTestSupport", path: "Tests/InteropTestSupport"),
        .testTarget(name: "MediaEngineTests", dependencies: ["MediaEngine", "MediaEngineTesting", "InteropTestSupport"],
                    path: "Tests/MediaEngineTests"),
        .testTarget(name: "SessionCoreTests", dependencies: ["SessionCore"], path: "Tests/SessionCoreTests"),
        .testTarget(name: "EngineCoreTests", dependencies: ["EngineCore", "SessionCore", "MediaEngineTesting", "InteropTestSupport"],
                    path: "Tests/EngineCoreTests"),
        // The README's ```swift blocks, extracted at build time by a plugin and compiled against
        // the MediaEngine product alone; the first one is run (ReadmeSnippetTests).
        .executableTarget(name: "ReadmeSnippetExtractor", path: "Tests/ReadmeSnippets/Extractor"),
        .plugin(name: "ReadmeSnippetsPlugin", capability: .buildTool(), dependencies: ["ReadmeSnippetExtractor"],
                path: "Tests/ReadmeSnippets/Plugin"),
        .testTarget(name: "ReadmeSnippetTests", dependencies: ["MediaEngine"], path: "Tests/ReadmeSnippetTests",
                    plugins: ["ReadmeSnippetsPlugin"]),
        .testTarget(name: "SimulcastCLITests", dependencies: ["SimulcastCLI", "MediaEngine", "RTPWire", "MediaCodecs", "Simulcast", "SFrame",
                                                      "InteropTestSupport"],
                    path: "Tests/SimulcastCLITests"),
    ],
    swiftLanguageModes: [.v6]
)
