import Foundation

/// Newline-separated lines from a pipe, read as they come (a helper process's JSON lines).
public struct LineReader {
    public let handle: FileHandle
    var pending = Data()

    public init(_ handle: FileHandle) { self.handle = handle }

    /// The next line without its newline; nil once the pipe is closed with nothing pending.
    public mutating func next() -> String? {
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                let line = pending[pending.startIndex..<newline]
                pending = pending[(newline + 1)...]
                return String(decoding: line, as: UTF8.self)
            }
            let chunk = handle.availableData
            if chunk.isEmpty { return nil }
            pending.append(chunk)
        }
    }
}
