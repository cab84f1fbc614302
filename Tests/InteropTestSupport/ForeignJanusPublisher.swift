import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A participant of a Janus VideoRoom that this project did not write: aiortc publishing VP8 (a
/// moving test pattern) and Opus (a sine tone) through Janus's HTTP API with a display that is
/// not the engine's `name|id` (Tests/Interop/foreign_room_publisher.py), run on the peer host of
/// scripts/netns-run.sh. It answers `participants()` with Janus's `listparticipants`, as any
/// client of the room could ask. Every read is bounded by the script's own deadlines.
public final class ForeignJanusPublisher: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Its Janus feed id and the display it joined with (set once it published).
    public private(set) var feed = 0
    public private(set) var display = ""
    /// How long joining, publishing, ICE and DTLS took on its side.
    public private(set) var connectMilliseconds = -1

    private let process: Process
    private let input: FileHandle
    private var lines: LineReader
    /// Reads run here, off Swift's cooperative threads (a read blocks until the script answers).
    private let reading = DispatchQueue(label: "foreign Janus publisher")

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Interop/foreign_room_publisher.py")
    static let python = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".venv-interop/bin/python")

    /// Starts the script on the peer host and waits until it publishes (its feed id on the first line).
    public static func start(url: URL, room: Int = 1234, display: String = "Gustav | aiortc", toneHz: Double = 520,
                             seconds: Double = 60) async throws -> ForeignJanusPublisher {
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw Failure(description: ".venv-interop/bin/python missing: scripts/install-interop-deps.sh creates it")
        }
        // A script that ended early makes writing to its stdin fail: a thrown error, not SIGPIPE's end of the test process.
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        try PrivateNamespace.runOnPeerHost(process, executable: python, arguments: [
            script.path, "--url", url.absoluteString, "--room", "\(room)", "--display", display, "--tone", "\(toneHz)",
            "--seconds", "\(seconds)",
        ])
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let publisher = ForeignJanusPublisher(process: process, input: input.fileHandleForWriting,
                                              lines: LineReader(output.fileHandleForReading))
        let first = await publisher.nextLine()
        guard let first, let object = Self.object(first), let feed = object["feed"] as? Int else {
            publisher.stop()
            throw Failure(description: "the aiortc publisher did not publish: \(first ?? "no output")")
        }
        publisher.feed = feed
        publisher.display = object["display"] as? String ?? display
        publisher.connectMilliseconds = object["connect_ms"] as? Int ?? -1
        return publisher
    }

    private init(process: Process, input: FileHandle, lines: LineReader) {
        self.process = process
        self.input = input
        self.lines = lines
    }

    /// Every participant Janus lists in the room (`listparticipants`: id, display, publisher).
    public func participants() async throws -> [[String: Any]] {
        guard let reply = try await ask("participants"), let participants = reply["participants"] as? [[String: Any]] else {
            throw Failure(description: "the aiortc publisher gave no participant list")
        }
        return participants
    }

    /// Leaves the room; returns what it sent and the room events Janus told it (its last line:
    /// it exits right after; `stop` ends it if it has not).
    @discardableResult
    public func leave() async throws -> [String: Any] {
        try await ask("leave") ?? [:]
    }

    /// Ends the script if it still runs (for `defer`).
    public func stop() {
        if process.isRunning { process.terminate() }
    }

    private func ask(_ command: String) async throws -> [String: Any]? {
        guard process.isRunning else { throw Failure(description: "the aiortc publisher ended before \(command)") }
        try input.write(contentsOf: Data("\(command)\n".utf8))
        return await nextLine().flatMap(Self.object)
    }

    /// The script's next line, read on `reading`.
    private func nextLine() async -> String? {
        await withCheckedContinuation { continuation in
            reading.async { continuation.resume(returning: self.lines.next()) }
        }
    }

    private static func object(_ line: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}
