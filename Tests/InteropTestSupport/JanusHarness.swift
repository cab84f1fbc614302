import Foundation

/// A throw-away Janus 1.1.2 with VideoRoom 1234 (scripts/janus-harness.sh `start --videoroom`,
/// with `--ice-tcp` ICE-TCP and ICE-Lite on),
/// for tests inside `PrivateNamespace`; `stop()` ends it by the PID the harness recorded.
public struct JanusHarness: Sendable {
    public let url: URL
    public let directory: String

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/janus-harness.sh")

    /// Starts Janus with the harness's `options` and reads the one JSON line it prints (its HTTP
    /// API and directory).
    public static func start(_ options: [String] = []) throws -> JanusHarness {
        let line = try run(["start", "--videoroom"] + options)
        guard let info = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let url = (info["http"] as? String).flatMap(URL.init(string:)), let directory = info["dir"] as? String else {
            throw Failure(description: "janus-harness start --videoroom failed: \(line)")
        }
        return JanusHarness(url: url, directory: directory)
    }

    public func stop() { _ = try? Self.run(["stop", directory]) }

    /// The harness with `arguments`, its output read to the end (which waits for the script:
    /// Foundation's Process.waitUntilExit can miss a short-lived child's exit under the runner).
    private static func run(_ arguments: [String]) throws -> String {
        let harness = Process()
        harness.executableURL = script
        harness.arguments = arguments
        let output = Pipe()
        harness.standardOutput = output
        try harness.run()
        return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }
}
