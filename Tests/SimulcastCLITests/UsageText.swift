/// What a tool's `--help` text promises, read the way a person reads it: the subcommands a
/// top-level usage lists, the options a subcommand's usage names, and the arguments each of its
/// synopses starts with (`simulcast demo --participants [N] ...` accepts the room's options only
/// after `--participants`; `simulcast send --to HOST:PORT ...` needs `--to`).
struct UsageText {
    let text: String

    /// Subcommand names: the first word of each line indented by two spaces and followed by
    /// at least two spaces (`  demo      a loopback call ...`).
    var subcommands: [String] {
        text.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
            let words = line.split(separator: " ", maxSplits: 1)
            guard let name = words.first, name.allSatisfy({ $0.isLetter || $0 == "-" }), !name.hasPrefix("-"),
                  line.dropFirst(2 + name.count).hasPrefix("  ") else { return nil }
            return String(name)
        }
    }

    /// Every `--option` the text names, in order of first mention (without `--help`).
    var options: [String] {
        var seen: [String] = []
        var rest = Substring(text)
        while let range = rest.range(of: "--") {
            let name = rest[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" }
            if let first = name.first, first.isLetter, !seen.contains("--" + name), name != "help" {
                seen.append("--" + name)
            }
            rest = rest[range.upperBound...]
        }
        return seen
    }

    /// Per synopsis (`usage: tool sub ...` and the `tool sub ...` lines under it), the arguments
    /// before its first optional one (`[`), the subcommand not included. Always holds `[]`.
    func synopsisPrefixes(tool: String, subcommand: String) -> [[String]] {
        var prefixes: [[String]] = [[]]
        for line in text.split(separator: "\n") {
            var words = line.split(separator: " ").map(String.init)
            if words.first == "usage:" { words.removeFirst() }
            guard words.count >= 2, words[0] == tool, words[1] == subcommand else { continue }
            let prefix = Array(words.dropFirst(2).prefix { !$0.hasPrefix("[") && $0 != "|" })
            if !prefix.isEmpty && !prefixes.contains(prefix) { prefixes.append(prefix) }
        }
        return prefixes
    }
}
