import Testing
#if canImport(Glibc)
import Glibc
#endif
import MediaCodecs

/// Files named as inputs that no reader can use are refused up front with an `InputFileError`
/// that says what they are (issue 11, item 5), by every path-taking reader.
@Suite struct InputFileTests {
    /// A scratch directory with an empty file, a FIFO, a small non-empty file and a subdirectory.
    final class Scratch {
        let directory: String
        var empty: String { directory + "/empty" }
        var fifo: String { directory + "/fifo" }
        var junk: String { directory + "/junk" }
        var subdirectory: String { directory + "/sub" }

        init() {
            var template = Array("/tmp/input-file-tests-XXXXXX".utf8CString)
            directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
            fclose(fopen(directory + "/empty", "w"))
            mkfifo(directory + "/fifo", 0o600)
            let file = fopen(directory + "/junk", "w")
            fputs("not a media file\n", file)
            fclose(file)
            mkdir(directory + "/sub", 0o700)
        }

        deinit {
            for name in ["empty", "fifo", "junk"] { unlink(directory + "/" + name) }
            rmdir(directory + "/sub")
            rmdir(directory)
        }
    }

    @Test func eachUnusablePathSaysWhatItIs() throws {
        let scratch = Scratch()
        let cases: [(String, InputFileError.Problem, String)] = [
            (scratch.subdirectory, .directory, "it is a directory, not a file"),
            (scratch.empty, .empty, "the file is empty (0 bytes)"),
            ("/dev/zero", .notRegularFile(kind: "a character device"), "it is a character device, not a regular file"),
            (scratch.fifo, .notRegularFile(kind: "a named pipe (FIFO)"), "it is a named pipe (FIFO), not a regular file"),
            (scratch.directory + "/missing.y4m", .notFound, "there is no such file"),
        ]
        for (path, problem, reason) in cases {
            #expect(throws: InputFileError(path: path, problem: problem)) { _ = try InputFile.readAll(path) }
            #expect(InputFileError(path: path, problem: problem).description == "cannot read \(path): \(reason)")
        }
    }

    @Test func permissionAndSizeProblemsAreSentencesToo() {
        // Tests may run as root, which reads anything: the errno mapping is checked directly.
        #expect(InputFileError(path: "/x", problem: .permissionDenied).description
                == "cannot read /x: permission denied (this user may not read it)")
        #expect(InputFileError(path: "/x", problem: .tooLarge(bytes: 2000, limit: 1000)).description
                == "cannot read /x: the file is 2000 bytes; at most 1000 bytes are read")
        #expect(InputFileError(path: "/x", problem: .readFailed(errno: EIO)).description
                == "cannot read /x: reading failed: Input/output error")
    }

    @Test func aFileOverTheLimitIsRefused() throws {
        let scratch = Scratch()
        #expect(throws: InputFileError(path: scratch.junk, problem: .tooLarge(bytes: 17, limit: 4))) {
            _ = try InputFile.readAll(scratch.junk, limit: 4)
        }
        #expect(try InputFile.readAll(scratch.junk) == Array("not a media file\n".utf8))
    }

    @Test func y4mReaderNamesTheFormat() {
        let scratch = Scratch()
        #expect(throws: Y4MError.file(InputFileError(path: "/dev/zero", problem: .notRegularFile(kind: "a character device")))) {
            _ = try Y4MReader(path: "/dev/zero")
        }
        do {
            _ = try Y4MReader(path: scratch.subdirectory)
            Issue.record("a directory was read as Y4M")
        } catch {
            #expect(error.description == "cannot read \(scratch.subdirectory) as a Y4M video: it is a directory, not a file")
        }
        do {
            _ = try Y4MReader(path: scratch.empty)
            Issue.record("an empty file was read as Y4M")
        } catch {
            #expect(error.description == "cannot read \(scratch.empty) as a Y4M video: the file is empty (0 bytes)")
        }
        #expect(throws: Y4MError.badSignature) { _ = try Y4MReader(path: scratch.junk) }
    }

    @Test func wavAndIVFReadersNameTheirFormat() {
        let scratch = Scratch()
        do {
            _ = try WAVReader(path: scratch.fifo)
            Issue.record("a FIFO was read as WAV")
        } catch {
            #expect(error.description == "cannot read \(scratch.fifo) as a WAV file: it is a named pipe (FIFO), not a regular file")
        }
        do {
            _ = try IVFReader(path: scratch.empty)
            Issue.record("an empty file was read as IVF")
        } catch {
            #expect(error.description == "cannot read \(scratch.empty) as an IVF file: the file is empty (0 bytes)")
        }
        #expect(throws: WAVError.notWAV("missing RIFF/WAVE signature")) { _ = try WAVReader(path: scratch.junk) }
        #expect(throws: IVFError.truncated(field: "file header", needed: 32, available: 17)) {
            _ = try IVFReader(path: scratch.junk)
        }
    }
}
