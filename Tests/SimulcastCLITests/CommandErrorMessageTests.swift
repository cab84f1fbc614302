import Foundation
import Testing
import Simulcast
@testable import SimulcastCLI

/// What `simulcast` prints when an input is wrong (issue 11, item 5): one readable sentence
/// saying what was wrong, the value and what is allowed — never an enum dump or an
/// `NSCocoaErrorDomain` code. Runs the built executable, as a user would.
@Suite struct CommandErrorMessageTests {
    /// A scratch directory with an empty file and a subdirectory, removed afterwards.
    final class Scratch {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-errors-\(UUID().uuidString)").path
        var empty: String { directory + "/empty.y4m" }
        var subdirectory: String { directory + "/sub" }

        init() throws {
            try FileManager.default.createDirectory(atPath: subdirectory, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: empty, contents: Data())
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    private func failure(_ arguments: [String]) throws -> String {
        let outcome = try SimulcastExecutable().run(arguments)
        #expect(outcome.status == 1, "exit status of simulcast \(arguments.joined(separator: " "))")
        #expect(!outcome.standardError.contains("Error Domain"))
        return outcome.standardError
    }

    @Test func encodeNamesAnInputThatIsADeviceADirectoryOrEmpty() throws {
        let scratch = try Scratch()
        #expect(try failure(["encode", "--input", "/dev/zero"])
                == "simulcast encode: cannot read /dev/zero as a Y4M video: it is a character device, not a regular file\n")
        #expect(try failure(["encode", "--input", scratch.subdirectory])
                == "simulcast encode: cannot read \(scratch.subdirectory) as a Y4M video: it is a directory, not a file\n")
        #expect(try failure(["encode", "--input", scratch.empty])
                == "simulcast encode: cannot read \(scratch.empty) as a Y4M video: the file is empty (0 bytes)\n")
        #expect(try failure(["encode", "--input", scratch.directory + "/missing.y4m"])
                == "simulcast encode: cannot read \(scratch.directory)/missing.y4m as a Y4M video: there is no such file\n")
    }

    @Test func encodeSaysWhyItCannotWriteItsOutput() throws {
        #expect(try failure(["encode", "--frames", "1", "--size", "320x180", "--out", "/dev/null/out"])
                == "simulcast encode: cannot create directory /dev/null/out: /dev/null exists and is not a directory\n")
    }

    @Test func sendExplainsABadKey() throws {
        #expect(try failure(["send", "--to", "127.0.0.1:9", "--key", "abc", "--frames", "1"])
                == "simulcast send: --key abc is not valid base64: expected the 30-byte key||salt of "
                   + "AES_CM_128_HMAC_SHA1_80 as 40 base64 characters (omit --key to have one generated)\n")
        #expect(try failure(["send", "--to", "127.0.0.1:9", "--key", "YWJj", "--frames", "1"])
                == "simulcast send: the SRTP key for AES_CM_128_HMAC_SHA1_80 must be 30 bytes "
                   + "(16-byte key + 14-byte salt); got 3\n")
        #expect(try failure(["send", "--to", "127.0.0.1:70000"]) == "simulcast send: port 70000 is out of range: use 1 to 65535\n")
    }

    @Test func sendNamesAnAudioInputThatIsNotAFile() throws {
        let scratch = try Scratch()
        #expect(try failure(["send", "--audio-to", "127.0.0.1:9", "--audio-input", scratch.subdirectory])
                == "simulcast send: cannot read \(scratch.subdirectory) as a WAV file: it is a directory, not a file\n")
    }

    @Test func inspectNamesAPcapPathThatIsNotAFile() throws {
        let scratch = try Scratch()
        #expect(try failure(["inspect", scratch.subdirectory])
                == "simulcast inspect: cannot read \(scratch.subdirectory) as a pcap capture: it is a directory, not a file\n")
        #expect(try failure(["inspect", scratch.empty])
                == "simulcast inspect: cannot read \(scratch.empty) as a pcap capture: the file is empty (0 bytes)\n")
    }

    @Test func inspectSaysWhichCharacterIsNotHex() throws {
        let outcome = try SimulcastExecutable().run(["inspect", "--hex", "zzzz"])
        #expect(outcome.status == 1)
        #expect(outcome.standardOutput == #"{"error":"invalidHex","detail":"character 1, 'z', is not a hex digit: "#
                + #"use 0-9 and a-f (spaces, colons and a leading 0x are ignored)"}"# + "\n")
    }

    @Test func demoLengthsAreCheckedBeforeAnythingStarts() throws {
        #expect(try failure(["demo", "--seconds", "0"])
                == "simulcast demo: --seconds 0: expected a positive, finite number of seconds, e.g. 15 or 2.5\n")
    }

    @Test func anUncroppableSizeIsAnnouncedOnStandardError() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("encode-size-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outcome = try SimulcastExecutable().run(["encode", "--size", "1281x721", "--frames", "1", "--out", directory])
        #expect(outcome.status == 0)
        #expect(outcome.standardError == "note: --size 1281x721 is encoded as 1280x720: with 3 layers "
                + "(320x180 + 640x360 + 1280x720) the top layer is cropped to a multiple of 4 in each dimension (docs/layer-plan.md)\n")
        #expect(outcome.standardOutput.contains("at 1280x720"))
    }
}

/// The pieces behind those messages, in-process.
@Suite struct CommandInputParsingTests {
    @Test func hexInputSaysWhatIsWrongAndWhere() {
        #expect(throws: HexInput.ParseError.notAHexDigit("z", position: 1)) { _ = try HexInput.parse("zzzz") }
        #expect(throws: HexInput.ParseError.notAHexDigit("g", position: 7)) { _ = try HexInput.parse("80 60 g1") }
        #expect(throws: HexInput.ParseError.oddDigitCount(3)) { _ = try HexInput.parse("0x806") }
        #expect(throws: HexInput.ParseError.empty) { _ = try HexInput.parse(" : ") }
        #expect(HexInput.ParseError.oddDigitCount(3).description
                == "an odd number of hex digits (3): each byte takes two, so one digit is missing")
        #expect(HexInput.ParseError.notAHexDigit("\t", position: 2).description.hasPrefix("character 2, U+9, is not a hex digit"))
    }

    @Test func hexInputIgnoresSeparatorsAndA0xPrefix() throws {
        #expect(try HexInput.parse("0x80:60 00\n01") == [0x80, 0x60, 0x00, 0x01])
        #expect(try HexInput.parse("0X0a0B") == [0x0A, 0x0B])
        #expect(try HexInput.parse("00") == [0x00])
    }

    @Test func theSizeNoticeAppearsOnlyWhenTheSizeChanges() throws {
        let cropped = try LayerPlan(width: 1281, height: 721)
        #expect(sizeNotice(requestedWidth: 1281, height: 721, plan: cropped)?.hasPrefix("note: --size 1281x721 is encoded as 1280x720") == true)
        #expect(sizeNotice(requestedWidth: 1280, height: 720, plan: try LayerPlan(width: 1280, height: 720)) == nil)
        #expect(sizeNotice(requestedWidth: 321, height: 181, plan: try LayerPlan(width: 321, height: 181)) == nil)
        let twoLayers = try LayerPlan(width: 641, height: 361)
        #expect(sizeNotice(requestedWidth: 641, height: 361, plan: twoLayers)
                == "note: --size 641x361 is encoded as 640x360: with 2 layers (320x180 + 640x360) the top layer is "
                   + "cropped to a multiple of 2 in each dimension (docs/layer-plan.md)")
    }

    @Test func theNoticeUsesTheRealCropWhenTheMiddleLayerIsDropped() throws {
        let plan = try LayerPlan(width: 1282, height: 722, maxLayer: .two)
        #expect(sizeNotice(requestedWidth: 1282, height: 722, plan: plan)
                == "note: --size 1282x722 is encoded as 1280x720: with 2 layers (320x180 + 1280x720) the top layer is "
                   + "cropped to a multiple of 4 in each dimension (docs/layer-plan.md)")
    }

    @Test func encodeHandsTheNoticeToItsCaller() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("encode-note-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var notes: [String] = []
        try EncodeCommand.run(["--size", "643x363", "--frames", "1", "--out", directory], notice: { notes.append($0) })
        #expect(notes.count == 1)
        #expect(notes.first?.hasPrefix("note: --size 643x363 is encoded as 642x362") == true)
    }

    @Test func foundationErrorsStillGetASentenceWithThePath() {
        let error = CocoaError(.fileReadNoPermission, userInfo: [NSFilePathErrorKey: "/root/secret"])
        #expect(errorMessage(error).hasSuffix("(/root/secret)"))
        #expect(!errorMessage(error).contains("Error Domain"))
        #expect(errorMessage(CommandError("plain words")) == "plain words")
    }
}
