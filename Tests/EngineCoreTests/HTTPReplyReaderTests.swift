import Testing
@testable import EngineCore

/// `HTTPReplyReader`: an HTTP/1.1 reply read as it arrives, never holding more body than its
/// limit, whatever the sizes a server declares.
@Suite struct HTTPReplyReaderTests {
    /// Feeds `text` in pieces of `piece` bytes, then the close if it is still waiting.
    static func read(_ text: String, limit: Int = 64, piece: Int = 1) -> (HTTPReplyReader.Progress, HTTPReplyReader) {
        var reader = HTTPReplyReader(bodyLimit: limit)
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            let progress = reader.consume(bytes[start..<min(start + piece, bytes.count)])
            guard progress == .needsMore else { return (progress, reader) }
            start += piece
        }
        return (reader.end(), reader)
    }

    @Test func aContentLengthReplyIsReadWhateverItsPieces() {
        for piece in [1, 3, 1_000] {
            let (progress, reader) = Self.read("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", piece: piece)
            #expect(progress == .complete && reader.status == 200 && reader.body == Array("hello".utf8))
        }
    }

    @Test func aChunkedReplyIsDecodedAndAnInterimReplySkipped() {
        let text = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "3;name=value\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: x\r\n\r\n"
        let (progress, reader) = Self.read(text)
        #expect(progress == .complete && reader.status == 404 && reader.body == Array("abcde".utf8))
    }

    @Test func aBodyToTheCloseEndsAtTheClose() {
        let (progress, reader) = Self.read("HTTP/1.0 200 OK\r\n\r\n{}")
        #expect(progress == .complete && reader.body == Array("{}".utf8))
    }

    @Test func aBodyLargerThanTheLimitIsRefusedAtItsDeclarationOrItsFirstByteTooMany() {
        #expect(Self.read("HTTP/1.1 200 OK\r\nContent-Length: 65\r\n\r\n").0 == .tooLarge)
        #expect(Self.read("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n41\r\n").0 == .tooLarge)
        // A chunk size near Int.max is refused, not added up to an overflow.
        #expect(Self.read("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n7FFFFFFFFFFFFFFF\r\n").0 == .tooLarge)
        let (progress, reader) = Self.read("HTTP/1.1 200 OK\r\n\r\n" + String(repeating: "a", count: 65))
        #expect(progress == .tooLarge && reader.body.count == 64)
    }

    @Test func whatIsNotHTTPIsMalformed() {
        #expect(Self.read("SSH-2.0-OpenSSH\r\n").0 != .complete)
        #expect(Self.read("HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\n").0 != .complete)
        #expect(Self.read("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort").0
            == .malformed("the connection closed before the reply was complete"))
        #expect(Self.read("HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 9_000), piece: 4_096).0
            == .malformed("a line is longer than 8 KiB"))
        #expect(Self.read("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n").0 == .malformed("a chunk size is not hexadecimal"))
    }
}
