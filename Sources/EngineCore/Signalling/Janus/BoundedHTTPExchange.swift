import Foundation
import Glibc
import RTPWire

/// One HTTP/1.1 request over a TCP connection of its own (plain `http://`, the host an IPv4
/// address, an IPv6 one in brackets (`http://[fd00::2]:8088/`, RFC 3986 §3.2.2) or a name
/// resolved to either), bounded however the server behaves: the reply is read
/// by `HTTPReplyReader`, which holds at most `byteLimit` bytes of body and stops at the first
/// byte past it (the connection is then closed unread, so the server's writes fail); the whole
/// exchange, connect included, ends at a deadline of `seconds`, so a server that never answers
/// or drips a byte at a time is given that long and no longer. Blocks its caller (poll on a
/// non-blocking socket). URLSession is not used: on Linux it reads a reply in full whatever its
/// delegate cancels (a 500 MB reply took 568 MB of resident memory).
enum BoundedHTTPExchange {
    /// How the exchange ended.
    enum Outcome {
        /// A complete reply whose body is at most the limit.
        case reply(status: Int, body: [UInt8])
        /// The reply declared or reached a body larger than the limit; the rest was not read.
        case tooLarge
        /// No complete reply by the deadline.
        case timedOut
        /// No connection (refused, unreachable, no such host…), `reason` in words.
        case cannotConnect(reason: String)
        /// Connected, but the exchange broke off (reset) or the reply was not HTTP, `reason` in words.
        case broken(reason: String)
    }

    /// Sends `method` `url` (with `body` as JSON, if any) and waits at most `seconds` for a
    /// reply of at most `byteLimit` bytes of body.
    static func perform(_ method: String, _ url: URL, body: [UInt8]?, byteLimit: Int, seconds: Double) -> Outcome {
        let deadline = deadline(after: seconds)
        guard url.scheme?.lowercased() == "http", var host = url.host, !host.isEmpty else {
            return .cannotConnect(reason: "only plain http:// URLs are supported")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard let address = resolve(host) else { return .cannotConnect(reason: "host name not found") }
        let destination = NetworkEndpoint(ip: address, port: UInt16(clamping: url.port ?? 80))
        let descriptor = SocketAddressCalls.socket(for: destination, type: Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
        guard descriptor >= 0 else { return .cannotConnect(reason: words(errno)) }
        // Closing with unread bytes resets the connection: a server streaming a huge reply learns at once.
        defer { close(descriptor) }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        if let failure = connect(descriptor, to: destination, by: deadline) {
            return failure
        }
        let request = requestBytes(method, url, host: host, body: body)
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                sent += count
            } else if errno == EAGAIN || errno == EINTR {
                guard wait(descriptor, for: POLLOUT, until: deadline) else { return .timedOut }
            } else {
                return .broken(reason: words(errno))
            }
        }
        var reader = HTTPReplyReader(bodyLimit: byteLimit)
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            let progress: HTTPReplyReader.Progress
            if count > 0 {
                progress = reader.consume(buffer[..<count])
            } else if count == 0 {
                progress = reader.end()
            } else if errno == EAGAIN || errno == EINTR {
                guard wait(descriptor, for: POLLIN, until: deadline) else { return .timedOut }
                continue
            } else {
                return .broken(reason: words(errno))
            }
            switch progress {
            case .needsMore: continue
            case .complete: return .reply(status: reader.status, body: reader.body)
            case .tooLarge: return .tooLarge
            case let .malformed(why): return .broken(reason: "the reply is not HTTP/1.1: \(why)")
            }
        }
    }

    /// The monotonic time (`DispatchTime` nanoseconds) `seconds` from now: not finite or not
    /// positive is now, at most a day.
    static func deadline(after seconds: Double) -> UInt64 {
        let clamped = seconds.isFinite ? min(max(seconds, 0), 86_400) : 0
        return DispatchTime.now().uptimeNanoseconds + UInt64(clamped * 1e9)
    }

    /// Connects the non-blocking `descriptor`; nil once connected, else how it failed.
    private static func connect(_ descriptor: Int32, to destination: NetworkEndpoint, by deadline: UInt64) -> Outcome? {
        guard SocketAddressCalls.connect(descriptor, to: destination) != 0 else { return nil }
        guard errno == EINPROGRESS else { return .cannotConnect(reason: words(errno)) }
        guard wait(descriptor, for: POLLOUT, until: deadline) else { return .timedOut }
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 else { return .cannotConnect(reason: words(errno)) }
        return failure == 0 ? nil : .cannotConnect(reason: words(failure))
    }

    /// Waits until `descriptor` is ready for `events` (or has failed: the next call says how);
    /// false once `deadline` has passed.
    private static func wait(_ descriptor: Int32, for events: Int32, until deadline: UInt64) -> Bool {
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return false }
            var entry = pollfd(fd: descriptor, events: Int16(events), revents: 0)
            let milliseconds = Int32(clamping: (deadline - now + 999_999) / 1_000_000)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { return true }
        }
    }

    /// The request: origin-form target, Host, the JSON body's length, and `Connection: close`.
    private static func requestBytes(_ method: String, _ url: URL, host: String, body: [UInt8]?) -> [UInt8] {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        var target = components?.percentEncodedPath ?? "/"
        if target.isEmpty { target = "/" }
        if let query = components?.percentEncodedQuery { target += "?" + query }
        let hostText = host.contains(":") ? "[\(host)]" : host  // RFC 7230 §5.4: an IPv6 literal in brackets
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(hostText)\(url.port.map { ":\($0)" } ?? "")\r\n"
            + "Accept: application/json\r\nConnection: close\r\n"
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        return Array((head + "\r\n").utf8) + (body ?? [])
    }

    /// `host` as an address: dotted IPv4, IPv6, `localhost`, or resolved (`AddressResolver`).
    private static func resolve(_ host: String) -> IPAddress? {
        if host == "localhost" { return .v4(IPv4Address(0x7F00_0001)) }
        return NetworkEndpoint.ipAddress(host) ?? AddressResolver.resolve(host, socketType: Int32(SOCK_STREAM.rawValue))
    }

    /// An errno in words, lower case: "connection refused".
    private static func words(_ code: Int32) -> String {
        let text = String(cString: strerror(code))
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}
