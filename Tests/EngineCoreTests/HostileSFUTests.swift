import Foundation
import Glibc
import Simulcast
import Testing
@testable import EngineCore

/// A hostile or broken SFU (`FakeHTTPServer` posing as Janus on 127.0.0.1) must not flood the
/// publisher's memory or its user's terminal: every case ends, within its bound, in one readable
/// sentence without control characters or dictionary dumps, and a huge reply is never held.
@Suite struct HostileSFUTests {
    /// Small bounds, so each case ends in about a second.
    static let limits = JanusHTTPClient.Limits(requestSeconds: 1, eventSeconds: 1)

    /// Joins room 1234 of `server` as a publisher; the failure and how long it took to come.
    static func publishFailure(_ server: URL, limits: JanusHTTPClient.Limits = limits) throws -> (JanusSessionFailure, Double) {
        let start = ContinuousClock.now
        do {
            let publisher = try JanusVideoRoomPublisher(options: .init(
                url: server, room: 1234, camera: try LayerPlan(width: 320, height: 180), localAddress: 0x7F00_0001, signalling: limits))
            publisher.leave()
        } catch let failure as JanusSessionFailure {
            return (failure, Double((ContinuousClock.now - start) / .milliseconds(1)) / 1000)
        }
        Issue.record("publishing into a broken SFU succeeded")
        throw CancellationError()
    }

    /// One sentence a person can read: no control character, at most 320 characters, no Swift
    /// dictionary or NSError dump, containing `expected`.
    static func expectReadable(_ failure: JanusSessionFailure, saying expected: String,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        let text = failure.description
        #expect(text.contains(expected), "\(text)", sourceLocation: sourceLocation)
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, sourceLocation: sourceLocation)
        #expect(text.count <= 320, "\(text.count) characters", sourceLocation: sourceLocation)
        #expect(!text.contains("[\"") && !text.contains("Error Domain"), "\(text)", sourceLocation: sourceLocation)
    }

    /// The answers of a well-behaved Janus up to the point a case breaks it.
    static func janusAnswer(_ request: FakeHTTPServer.Request, _ connection: FakeHTTPServer.Connection) {
        switch request.verb {
        case "create": connection.json(#"{"janus": "success", "data": {"id": 111}}"#)
        case "attach": connection.json(#"{"janus": "success", "data": {"id": 222}}"#)
        case "message": connection.json(#"{"janus": "ack"}"#)
        default: connection.json(#"{"janus": "success"}"#)
        }
    }

    /// This process's resident memory (VmRSS), in bytes.
    static func residentBytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }

    @Test func aReplyThatIsNotJSONIsNamedAsSuch() throws {
        let server = try FakeHTTPServer { _, connection in connection.json(#"{"janus": "success", "data": {"id": 1"#) }
        defer { server.stop() }
        let (failure, seconds) = try Self.publishFailure(server.url)
        Self.expectReadable(failure, saying: "Janus's reply to create was not a JSON object")
        #expect(seconds < 2)
    }

    @Test func aReplyWithWrongTypesSaysWhatWasExpected() throws {
        // The session id as a string, then (once create is right) the publisher id as one.
        let server = try FakeHTTPServer { request, connection in
            request.verb == "create" ? connection.json(#"{"janus": "success", "data": {"id": "111"}}"#) : Self.janusAnswer(request, connection)
        }
        defer { server.stop() }
        let (failure, _) = try Self.publishFailure(server.url)
        Self.expectReadable(failure, saying: "Janus's reply to create had no numeric data.id")

        let joinedWithStringID = try FakeHTTPServer { request, connection in
            guard request.verb == "poll" else { return Self.janusAnswer(request, connection) }
            connection.json(#"{"janus": "event", "plugindata": {"data": {"videoroom": "joined", "id": "42", "room": 1234}}}"#)
        }
        defer { joinedWithStringID.stop() }
        let (joinFailure, _) = try Self.publishFailure(joinedWithStringID.url)
        Self.expectReadable(joinFailure, saying: "Janus's reply to join had no numeric plugindata.data.id in its joined event")
    }

    @Test func aHugeReplyFailsWithTheSizeErrorWithoutBeingHeld() throws {
        // 64 MiB of one JSON string, streamed without a Content-Length (the client must count).
        let replyBytes = 64 << 20
        let server = try FakeHTTPServer { _, connection in
            guard connection.head(contentLength: nil), connection.send(#"{"janus": "success", "data": {"pad": ""#) else { return }
            let chunk = [UInt8](repeating: UInt8(ascii: "A"), count: 64 << 10)
            for _ in 0..<(replyBytes / chunk.count) where !connection.send(chunk) { return }
        }
        defer { server.stop() }
        let before = Self.residentBytes()
        let (failure, seconds) = try Self.publishFailure(server.url)
        let growth = Self.residentBytes() - before
        Self.expectReadable(failure, saying: "Janus's reply to create was larger than 1 MiB; the rest was not read")
        #expect(seconds < 2)
        // The client stopped reading at 1 MiB: the server could hand the kernel only that plus
        // the loopback socket buffers before the connection was reset.
        let sent = try #require(server.bytesSentPerConnection().first)
        #expect(sent < 16 << 20, "the server sent \(sent) bytes")
        #expect(growth < 16 << 20, "resident memory grew by \(growth) bytes")
        print("huge reply: failed after \(seconds) s, server sent \(sent) of \(replyBytes) bytes, RSS grew \(growth >> 10) KiB")
    }

    @Test func aReplyDeclaredHugeIsRefusedBeforeItsBody() throws {
        let server = try FakeHTTPServer { _, connection in
            guard connection.head(contentLength: 500_000_000) else { return }
            let chunk = [UInt8](repeating: UInt8(ascii: " "), count: 64 << 10)
            for _ in 0..<8_000 where !connection.send(chunk) { return }
        }
        defer { server.stop() }
        let (failure, seconds) = try Self.publishFailure(server.url)
        Self.expectReadable(failure, saying: "larger than 1 MiB")
        #expect(seconds < 2)
    }

    @Test func aReplyDrippingAByteAtATimeEndsAtTheRequestDeadline() throws {
        let server = try FakeHTTPServer { _, connection in
            guard connection.head(contentLength: 1_000) else { return }
            for byte in Array(#"{"janus": "success", "data": {"id": 1, "pad": ""#.utf8) + Array(repeating: UInt8(ascii: "A"), count: 900) {
                guard connection.send([byte]) else { return }
                usleep(50_000)
            }
        }
        defer { server.stop() }
        let (failure, seconds) = try Self.publishFailure(server.url)
        Self.expectReadable(failure, saying: "Janus did not answer create within 1 s")
        #expect(seconds >= 0.9 && seconds < 2.5, "\(seconds) s")
    }

    @Test func keepalivesWithoutTheJoinedEventEndAtTheEventDeadline() throws {
        let server = try FakeHTTPServer { request, connection in
            guard request.verb == "poll" else { return Self.janusAnswer(request, connection) }
            usleep(100_000)
            connection.json(#"{"janus": "keepalive"}"#)
        }
        defer { server.stop() }
        let (failure, seconds) = try Self.publishFailure(server.url)
        Self.expectReadable(failure, saying: "Janus sent no joined event within 1 s (")
        #expect(seconds >= 0.9 && seconds < 2.5, "\(seconds) s")
    }

    @Test func anErrorReasonIsShortenedAndStrippedOfControlCharacters() throws {
        // Escape sequences (clear screen, window title, bell, colour) and about 1 MB of reason.
        let reason = #"\u001b[2J\u001b]0;owned\u0007\u001b[31mNo such room\u009b\r\n"# + String(repeating: "A", count: 1_000_000)
        let server = try FakeHTTPServer { request, connection in
            guard request.verb == "create" else { return Self.janusAnswer(request, connection) }
            connection.json(#"{"janus": "error", "error": {"code": 490, "reason": "\#(reason)"}}"#)
        }
        defer { server.stop() }
        let (failure, _) = try Self.publishFailure(server.url)
        Self.expectReadable(failure, saying: "Janus refused create (error 490): [2J]0;owned[31mNo such room  AAA")
        #expect(failure.description.hasSuffix("A…"))

        // The VideoRoom's own refusal, in the joined event's place.
        let refusing = try FakeHTTPServer { request, connection in
            guard request.verb == "poll" else { return Self.janusAnswer(request, connection) }
            connection.json(#"{"janus": "event", "plugindata": {"data": {"videoroom": "event", "error_code": 426, "error": "\#(reason)"}}}"#)
        }
        defer { refusing.stop() }
        let (refusal, _) = try Self.publishFailure(refusing.url)
        Self.expectReadable(refusal, saying: "Janus refused join (error 426): [2J]0;owned")
    }

    @Test func aRefusedConnectionIsDescribedInWords() throws {
        // A port nobody listens on: bound by a server that has stopped.
        let server = try FakeHTTPServer { _, _ in }
        server.stop()
        let (failure, seconds) = try Self.publishFailure(server.url)
        Self.expectReadable(failure, saying: "could not connect to 127.0.0.1:\(server.port): connection refused")
        #expect(seconds < 2)
    }
}
