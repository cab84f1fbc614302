import CommandLineSupport

/// A one-line progress bar on stderr, drawn only when stderr is a terminal.
struct ProgressBar {
    let total: Int
    private(set) var done = 0
    private let enabled = standardErrorIsTerminal

    init(total: Int) { self.total = max(1, total) }

    mutating func advance(label: String) {
        done += 1
        guard enabled else { return }
        let width = 30
        let filled = done * width / total
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let line = "\r[\(bar)] \(done)/\(total) \(label)".padding(toLength: 79)
        writeToStandardError(line)
        if done == total { writeToStandardError("\n") }
    }
}

extension String {
    func padding(toLength length: Int) -> String {
        count >= length ? String(prefix(length)) : self + String(repeating: " ", count: length - count)
    }
}
