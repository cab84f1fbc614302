import Foundation
import Glibc

/// A tiny HTTP/1.1 server on 127.0.0.1 (port 0, real sockets) that answers each request as its
/// script says, one thread per connection, `Connection: close`: a stand-in for a hostile or
/// broken SFU (malformed or huge replies, byte-at-a-time drips, keepalives forever).
final class FakeHTTPServer: @unchecked Sendable {
    /// A request as the script sees it.
    struct Request: Sendable {
        var method: String
        var path: String
        var body: String
        /// The JSON body's `janus` verb (`create`, `attach`, `message`, …); "poll" for a GET.
        var verb: String {
            guard method == "POST" else { return "poll" }
            let object = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
            return object?["janus"] as? String ?? ""
        }
    }

    /// One accepted connection: what the script writes goes straight to the socket.
    final class Connection {
        fileprivate let socket: Int32
        /// Bytes the kernel accepted so far (it stops accepting once the client stopped reading or left).
        private(set) var bytesSent = 0

        fileprivate init(socket: Int32) { self.socket = socket }

        /// Writes all of `bytes`; false once the client is gone (reset or closed).
        @discardableResult
        func send(_ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let sent = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard sent > 0 else { return false }
                offset += sent
                bytesSent += sent
            }
            return true
        }

        @discardableResult
        func send(_ text: String) -> Bool { send(Array(text.utf8)) }

        /// A 200 reply's status line and headers; `contentLength` nil: the body runs to the close.
        @discardableResult
        func head(contentLength: Int?) -> Bool {
            send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                + (contentLength.map { "Content-Length: \($0)\r\n" } ?? "") + "\r\n")
        }

        /// A complete 200 reply with `json` as its body.
        func json(_ json: String) {
            head(contentLength: json.utf8.count)
            send(json)
        }
    }

    let port: UInt16
    private let listener: Int32
    private let script: @Sendable (Request, Connection) -> Void
    private let lock = NSLock()
    private var connectionBytes: [Int] = []

    var url: URL { URL(string: "http://127.0.0.1:\(port)/janus")! }

    /// Bytes each finished connection sent, in the order they finished, once `count` have
    /// finished (or `seconds` passed).
    func bytesSentPerConnection(waitingFor count: Int = 1, seconds: Double = 5) -> [Int] {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline, lock.withLock({ connectionBytes.count }) < count { usleep(10_000) }
        return lock.withLock { connectionBytes }
    }

    init(_ script: @escaping @Sendable (Request, Connection) -> Void) throws {
        self.script = script
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 16) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        guard listener >= 0, bound else { throw POSIXError(.EADDRNOTAVAIL) }
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in acceptLoop() }.start()
    }

    /// Stops accepting (connections under way finish on their own threads). The accept thread
    /// closes the listening socket: closed here, its number could be reused by another socket
    /// before that thread's next `accept`.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                close(listener)
                return
            }
            Thread { [self] in serve(client) }.start()
        }
    }

    private func serve(_ client: Int32) {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connection = Connection(socket: client)
        if let request = Self.readRequest(client) { script(request, connection) }
        lock.withLock { connectionBytes.append(connection.bytesSent) }
        close(client)
    }

    /// The request line, headers and a Content-Length body (what URLSession sends).
    private static func readRequest(_ client: Int32) -> Request? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let separator = Array("\r\n\r\n".utf8)
        while bytes.count < 65_536 {
            if let end = bytes.firstRange(of: separator)?.upperBound {
                let head = String(decoding: bytes[..<end], as: UTF8.self)
                let lines = head.split(separator: "\r\n")
                let requestLine = lines.first?.split(separator: " ") ?? []
                guard requestLine.count >= 2 else { return nil }
                let length = lines.lazy.compactMap { line -> Int? in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                    return Int(parts[1].trimmingCharacters(in: .whitespaces))
                }.first ?? 0
                if bytes.count - end >= length {
                    return Request(method: String(requestLine[0]), path: String(requestLine[1]),
                                   body: String(decoding: bytes[end..<(end + length)], as: UTF8.self))
                }
            }
            let count = recv(client, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            bytes += buffer[..<count]
        }
        return nil
    }
}
