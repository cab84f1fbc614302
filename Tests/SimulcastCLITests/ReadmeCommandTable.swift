import Foundation

/// The command column of README.md's "## Commands" table: the text inside the first backticks
/// of each row, Markdown's `\|` turned back into `|`.
struct ReadmeCommandTable {
    /// The package's root (this file is Tests/SimulcastCLITests/ReadmeCommandTable.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    let commands: [String]

    init(readme: String) {
        var commands: [String] = []
        var inSection = false
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { inSection = line == "## Commands" }
            guard inSection, line.hasPrefix("| `"), let open = line.firstIndex(of: "`") else { continue }
            let rest = line[line.index(after: open)...]
            guard let close = rest.firstIndex(of: "`") else { continue }
            commands.append(String(rest[..<close]).replacingOccurrences(of: "\\|", with: "|"))
        }
        self.commands = commands
    }

    static func load() throws -> ReadmeCommandTable {
        ReadmeCommandTable(readme: try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8))
    }
}

/// One row's command split the way the tests use it: `make TARGET ...`, or the executable
/// (`simulcast`, `simulcast-bench`) and its words after `swift run [-c release]`.
struct ReadmeCommand {
    let text: String
    let words: [String]

    init(_ text: String) {
        self.text = text
        var words = text.split(separator: " ").map(String.init)
        if words.starts(with: ["swift", "run"]) { words.removeFirst(2) }
        if words.starts(with: ["-c", "release"]) { words.removeFirst(2) }
        self.words = words
    }

    var isMake: Bool { words.first == "make" }
    var executable: String { words.first ?? "" }
    var subcommand: String { words.count > 1 ? words[1] : "" }

    /// The `--options` the row names.
    var options: [String] {
        UsageText(text: text).options
    }

    /// The words after the subcommand before its first optional (`[`) or elided (`...`) one;
    /// of alternatives (`udp-over-tcp|udp|tcp`) the first.
    var leadingArguments: [String] {
        words.dropFirst(2).prefix { !$0.hasPrefix("[") && $0 != "..." }
            .map { $0.split(separator: "|").first.map(String.init) ?? $0 }
    }
}
