import Foundation

/// Reads an HTTP/1.1 reply (RFC 9112) as its bytes arrive, holding at most `bodyLimit` bytes of
/// body: a body declared larger (Content-Length, a chunk size) is refused on its declaration, one
/// growing larger (chunked, or read to the connection's close) on the byte that passes the limit.
/// Lines (status, headers, chunk sizes) are bounded too. No I/O: `BoundedHTTPExchange` feeds it.
struct HTTPReplyReader {
    enum Progress: Equatable {
        case needsMore
        case complete
        /// The body is (or says it is) larger than the limit.
        case tooLarge
        /// Not an HTTP/1.1 reply, in words.
        case malformed(String)
    }

    private enum State: Equatable {
        case head
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkEnd
        case trailer
        case untilClose
        case done
    }

    /// The longest line (status, header, chunk size) and the most header bytes read.
    static let lineLimit = 8_192
    static let headLimit = 65_536

    let bodyLimit: Int
    private(set) var status = 0
    private(set) var body: [UInt8] = []
    private var state = State.head
    private var line: [UInt8] = []
    private var headBytes = 0
    private var contentLength: Int?
    private var chunked = false

    init(bodyLimit: Int) {
        self.bodyLimit = bodyLimit
    }

    /// Takes the next bytes of the connection.
    mutating func consume(_ bytes: ArraySlice<UInt8>) -> Progress {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            switch state {
            case .head, .chunkSize, .chunkEnd, .trailer:
                let byte = bytes[index]
                index += 1
                if state == .head {
                    headBytes += 1
                    guard headBytes <= Self.headLimit else { return .malformed("its headers are larger than 64 KiB") }
                }
                guard byte == 0x0A else {
                    guard line.count < Self.lineLimit else { return .malformed("a line is longer than 8 KiB") }
                    line.append(byte)
                    continue
                }
                let text = String(decoding: line.last == 0x0D ? line.dropLast() : line[...], as: UTF8.self)
                line.removeAll(keepingCapacity: true)
                let progress = take(line: text)
                guard progress == .needsMore else { return progress }
            case let .fixed(remaining):
                let count = min(remaining, bytes.endIndex - index)
                body += bytes[index..<(index + count)]
                index += count
                state = remaining == count ? .done : .fixed(remaining: remaining - count)
            case let .chunkData(remaining):
                let count = min(remaining, bytes.endIndex - index)
                body += bytes[index..<(index + count)]
                index += count
                state = remaining == count ? .chunkEnd : .chunkData(remaining: remaining - count)
            case .untilClose:
                guard bytes.endIndex - index <= bodyLimit - body.count else { return .tooLarge }
                body += bytes[index...]
                index = bytes.endIndex
            case .done:
                return .complete
            }
        }
        return state == .done ? .complete : .needsMore
    }

    /// The connection closed: complete if the body runs to the close (or had ended).
    mutating func end() -> Progress {
        switch state {
        case .untilClose, .done:
            state = .done
            return .complete
        default:
            return .malformed("the connection closed before the reply was complete")
        }
    }

    private mutating func take(line text: String) -> Progress {
        switch state {
        case .head where status == 0:
            let fields = text.split(separator: " ", maxSplits: 2)
            guard fields.count >= 2, fields[0].hasPrefix("HTTP/1."), let code = Int(fields[1]), (100...599).contains(code) else {
                return .malformed("it does not start with an HTTP/1.x status line")
            }
            status = code
        case .head where text.isEmpty:
            return endOfHead()
        case .head:
            let parts = text.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { return .malformed("a header line has no colon") }
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            switch parts[0].lowercased() {
            case "content-length":
                guard let length = Int(value), length >= 0 else { return .malformed("its Content-Length is not a number") }
                contentLength = length
            case "transfer-encoding":
                chunked = value.lowercased().hasSuffix("chunked")
            default:
                break
            }
        case .chunkSize:
            let size = text.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard let length = Int(size, radix: 16), length >= 0 else { return .malformed("a chunk size is not hexadecimal") }
            guard length > 0 else {
                state = .trailer
                return .needsMore
            }
            // Subtracted, not added: a hostile size near Int.max must not overflow.
            guard length <= bodyLimit - body.count else { return .tooLarge }
            state = .chunkData(remaining: length)
        case .chunkEnd:
            guard text.isEmpty else { return .malformed("a chunk is longer than its size") }
            state = .chunkSize
        case .trailer:
            if text.isEmpty {
                state = .done
                return .complete
            }
        default:
            break
        }
        return .needsMore
    }

    /// After the blank line: an interim (1xx) reply is skipped; the body is chunked, of a
    /// declared length, or runs to the close.
    private mutating func endOfHead() -> Progress {
        if (100...199).contains(status) {
            (status, contentLength, chunked) = (0, nil, false)
            return .needsMore
        }
        if chunked {
            state = .chunkSize
        } else if let contentLength {
            guard contentLength <= bodyLimit else { return .tooLarge }
            state = contentLength == 0 ? .done : .fixed(remaining: contentLength)
            if state == .done { return .complete }
        } else {
            state = .untilClose
        }
        return .needsMore
    }
}
