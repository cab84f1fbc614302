import Foundation

/// `ReadmeSnippetExtractor README.md OUTPUT.swift`: writes each ```swift block of the README as
/// the body of `readmeSnippet<N>() async throws`, with `#sourceLocation` pointing at the README's
/// own lines (a compile error names README.md and the line), and the list `readmeSnippets` of
/// them in order. Names a snippet uses but does not define come from the test target
/// (`SnippetContext.swift`).
let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: ReadmeSnippetExtractor README.md OUTPUT.swift\n".utf8))
    exit(2)
}
let readmePath = URL(fileURLWithPath: arguments[1]).standardizedFileURL.path
let lines = try String(contentsOfFile: readmePath, encoding: .utf8).components(separatedBy: "\n")

var snippets: [(line: Int, body: [String])] = []
var current: (line: Int, body: [String])?
for (index, line) in lines.enumerated() {
    let trimmed = line.trimmingCharacters(in: .whitespaces)
    if current == nil, trimmed == "```swift" {
        current = (index + 2, [])  // the first code line, 1-based
    } else if let open = current, trimmed == "```" {
        snippets.append(open)
        current = nil
    } else if current != nil {
        current?.body.append(line)
    }
}
if let open = current {
    FileHandle.standardError.write(Data("\(readmePath):\(open.line - 1): error: ```swift block never closed\n".utf8))
    exit(1)
}

var source = """
// Generated from README.md by ReadmeSnippetExtractor (Tests/ReadmeSnippets): do not edit.
import Foundation
import MediaEngine

"""
let escapedPath = readmePath.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
for (number, snippet) in snippets.enumerated() {
    source += """

    /// README.md, the ```swift block whose code starts on line \(snippet.line).
    @Sendable func readmeSnippet\(number + 1)() async throws {
    #sourceLocation(file: "\(escapedPath)", line: \(snippet.line))
    \(snippet.body.joined(separator: "\n"))
    #sourceLocation()
    }

    """
}
source += """

/// Every snippet of README.md in order, with the line its code starts on.
let readmeSnippets: [ReadmeSnippet] = [
\(snippets.enumerated().map { "    ReadmeSnippet(line: \($0.element.line), run: readmeSnippet\($0.offset + 1))," }.joined(separator: "\n"))
]

"""
try source.write(toFile: arguments[2], atomically: true, encoding: .utf8)
