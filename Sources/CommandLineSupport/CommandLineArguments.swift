/// A small command-line parser (the toolchain ships no argument parser): `--name value`,
/// `--name=value`, boolean `--flag`s and positionals. Unknown options are errors, not ignored.
///
/// `--help` (or `-h`) anywhere is reserved: once every other argument has parsed, the parser
/// throws ``ParseError/helpRequested`` and the tool prints that command's usage and exits 0. So
/// `cmd --frames 3 --help` succeeds only if `--frames` is an option of `cmd`: a test can check
/// every option a usage text lists without running the command.
public struct CommandLineArguments: Sendable {
    public enum ParseError: Error, CustomStringConvertible {
        case unknownOption(String)
        case missingValue(String)
        case invalidValue(option: String, value: String, expected: String)
        case unexpectedArgument(String)
        /// `--help` or `-h` was given and everything else parsed: print the usage, exit 0.
        case helpRequested

        public var description: String {
            switch self {
            case let .unknownOption(name): return "unknown option \(name) (see --help)"
            case let .missingValue(name): return "option \(name) needs a value"
            case let .invalidValue(option, value, expected): return "\(option) \(value): expected \(expected)"
            case let .unexpectedArgument(arg): return "unexpected argument '\(arg)' (options start with --; see --help)"
            case .helpRequested: return "--help: the usage was asked for"
            }
        }
    }

    public private(set) var values: [String: String] = [:]
    public private(set) var flags: Set<String> = []
    public private(set) var positionals: [String] = []

    /// - Parameters:
    ///   - valueOptions: options that take a value (without the leading `--`).
    ///   - flagOptions: boolean options.
    public init(_ arguments: some Sequence<String>, valueOptions: Set<String>, flagOptions: Set<String> = [],
         maxPositionals: Int = 0) throws(ParseError) {
        var iterator = arguments.makeIterator()
        var helpRequested = false
        while let argument = iterator.next() {
            if Self.helpSpellings.contains(argument) {
                helpRequested = true
                continue
            }
            guard argument.hasPrefix("--") else {
                guard positionals.count < maxPositionals else { throw .unexpectedArgument(argument) }
                positionals.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if flagOptions.contains(name), inlineValue == nil {
                flags.insert(name)
            } else if valueOptions.contains(name) {
                guard let value = inlineValue ?? iterator.next(), !Self.helpSpellings.contains(value) else {
                    throw .missingValue("--\(name)")
                }
                values[name] = value
            } else {
                throw .unknownOption("--\(name)")
            }
        }
        if helpRequested { throw .helpRequested }
    }

    /// The arguments that ask for the usage instead of a run.
    public static let helpSpellings: Set<String> = ["--help", "-h"]

    public func string(_ name: String) -> String? { values[name] }

    public func flag(_ name: String) -> Bool { flags.contains(name) }

    public func int(_ name: String, default defaultValue: Int, range: ClosedRange<Int> = 1...Int.max) throws(ParseError) -> Int {
        guard let text = values[name] else { return defaultValue }
        guard let value = Int(text), range.contains(value) else {
            throw .invalidValue(option: "--\(name)", value: text, expected: "an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// Parses `WxH` (e.g. `1280x720`).
    public func size(_ name: String, default defaultValue: (width: Int, height: Int)) throws(ParseError) -> (width: Int, height: Int) {
        guard let text = values[name] else { return defaultValue }
        let parts = text.split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) else {
            throw .invalidValue(option: "--\(name)", value: text, expected: "WIDTHxHEIGHT, e.g. 1280x720")
        }
        return (width, height)
    }
}

extension CommandLineArguments {
    /// Parses a length of time in seconds (e.g. `15`, `2.5`, `3600`) that lasts at least one
    /// frame interval at `framesPerSecond`: a call (or a sampling period) shorter than that
    /// would hold no frame. Zero, negative numbers, `nan`, `inf` and lengths under one frame
    /// interval are `.invalidValue` errors.
    public func duration(_ name: String, atLeastOneFrameAt framesPerSecond: Int) throws(ParseError) -> Double? {
        guard let text = values[name] else { return nil }
        guard let seconds = Double(text), seconds.isFinite, seconds > 0 else {
            throw .invalidValue(option: "--\(name)", value: text,
                                expected: "a positive, finite number of seconds, e.g. 15 or 2.5")
        }
        let framesPerSecond = max(1, framesPerSecond)
        guard seconds * Double(framesPerSecond) >= 1 else {
            throw .invalidValue(option: "--\(name)", value: text,
                                expected: "at least one frame interval (1/\(framesPerSecond) s at \(framesPerSecond) fps), e.g. 15 or 2.5")
        }
        return seconds
    }

    /// Parses `FROM-TO` in seconds (e.g. `4-9`, `1.5-3.5`): a window with 0 ≤ FROM < TO, both finite.
    public func secondsWindow(_ name: String) throws(ParseError) -> (from: Double, to: Double)? {
        guard let text = values[name] else { return nil }
        let parts = text.split(separator: "-").compactMap { Double($0) }
        guard parts.count == 2, parts[0] >= 0, parts[1] > parts[0], parts[1].isFinite else {
            throw .invalidValue(option: "--\(name)", value: text, expected: "FROM-TO in seconds, e.g. 4-9")
        }
        return (parts[0], parts[1])
    }
}
