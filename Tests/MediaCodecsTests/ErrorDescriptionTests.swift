import Testing
#if canImport(Glibc)
import Glibc
#endif
import MediaCodecs

/// Every MediaCodecs error reads as a sentence: what was wrong, the value, what is allowed
/// (issue 11, item 5) — never the enum dump.
@Suite struct MediaCodecsErrorDescriptionTests {
    @Test func y4mErrors() {
        #expect(Y4MError.truncatedFrame(frameIndex: 1, needed: 345_600, available: 172_800).description
                == "frame 1 of the Y4M file is cut short: 172800 of 345600 bytes")
        #expect(Y4MError.badFrameHeader(frameIndex: 3).description == "frame 3 of the Y4M stream does not start with a 'FRAME' line")
        #expect(Y4MError.badSignature.description == "not a Y4M stream: it must start with 'YUV4MPEG2 '")
        #expect(Y4MError.empty.description.hasPrefix("the Y4M stream is empty"))
        #expect(Y4MError.unsupportedColorSpace("444").description
                == "the Y4M colour space C444 is not supported: only 4:2:0 (C420, C420jpeg, C420paldv, C420mpeg2 or no C field) can be read")
        #expect(Y4MError.badHeader("the W (width) field is missing").description
                .hasPrefix("the Y4M header is malformed: the W (width) field is missing (expected 'YUV4MPEG2 W<width> H<height>"))
        #expect(Y4MError.io(path: "/a.y4m", errno: EIO).description == "reading /a.y4m failed: Input/output error")
    }

    @Test func aCutShortY4MFileSaysWhichFrameAndHowMuch() throws {
        var bytes = Array("YUV4MPEG2 W4 H2\nFRAME\n".utf8) + [UInt8](repeating: 1, count: 12)
        bytes += Array("FRAME\n".utf8) + [UInt8](repeating: 1, count: 5)
        let reader = try Y4MReader(bytes: bytes)
        _ = try reader.nextFrame()
        do {
            _ = try reader.nextFrame()
            Issue.record("a cut-short frame was read")
        } catch {
            #expect(error.description == "frame 1 of the Y4M file is cut short: 5 of 12 bytes")
        }
    }

    @Test func videoFrameErrors() {
        #expect(VideoFrameError.invalidDimensions(width: 0, height: 720).description
                == "a 0x720 frame is impossible: width and height must be 1 to 16384 pixels")
        #expect(VideoFrameError.oddDimension(width: 641, height: 360).description
                == "641x360 has an odd dimension: width and height must be even here")
        #expect(VideoFrameError.strideTooSmall(plane: "Y", stride: 100, minimum: 640).description
                == "the Y plane's stride of 100 bytes is shorter than one row (640 bytes)")
        #expect(VideoFrameError.planeTooSmall(plane: "U", bytes: 10, required: 57_600).description
                == "the U plane holds 10 bytes; its stride times its rows needs 57600")
        #expect(VideoFrameError.sizeMismatch(expectedWidth: 1280, expectedHeight: 720, width: 640, height: 360).description
                == "the frame is 640x360 but 1280x720 is required here")
    }

    @Test func ivfAndWAVErrors() {
        #expect(IVFError.badSignature.description
                == "not an IVF file: it must start with 'DKIF' and a header size of at least 32 bytes")
        #expect(IVFError.truncated(field: "frame data", needed: 4, available: 2).description
                == "the IVF file is cut short in its frame data: 2 of 4 bytes")
        #expect(IVFError.io(path: "/nope/x.ivf", errno: ENOENT).description
                == "cannot write or read /nope/x.ivf: No such file or directory")
        #expect(WAVError.truncated("RIFF header").description == "the WAV file is cut short inside its RIFF header")
        #expect(WAVError.unsupportedFormat("sampled at 44100 Hz").description
                == "the WAV audio is sampled at 44100 Hz; only 16-bit PCM at 48000 Hz, mono or stereo, can be sent")
    }

    @Test func aWAVAtTheWrongRateSaysSo() {
        // RIFF/WAVE, fmt: PCM, mono, 44.1 kHz, 16-bit; data: one sample.
        func le(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        let fmt = le(1, 2) + le(1, 2) + le(44_100, 4) + le(88_200, 4) + le(2, 2) + le(16, 2)
        let body = Array("WAVE".utf8) + Array("fmt ".utf8) + le(16, 4) + fmt + Array("data".utf8) + le(2, 4) + [0, 0]
        let file = Array("RIFF".utf8) + le(body.count, 4) + body
        do {
            _ = try WAVReader(bytes: file)
            Issue.record("44.1 kHz was accepted")
        } catch {
            #expect(error.description == "the WAV audio is sampled at 44100 Hz; only 16-bit PCM at 48000 Hz, mono or stereo, can be sent")
        }
    }

    @Test func encoderErrors() {
        #expect(SimulcastEncoderError.bitrateOutOfRange(kbps: 99_999, allowed: 30...10_000).description
                == "a layer bitrate of 99999 kbps is out of range: use 0 (pause) or 30 to 10000 kbps")
        #expect(SimulcastEncoderError.layerOutOfRange(index: 3, layerCount: 3).description
                == "layer 3 does not exist: the plan has 3 layer(s), 0 to 2")
        #expect(SimulcastEncoderError.invalidFrameRate(0).description == "a frame rate of 0 fps is out of range: use 1 to 120")
        #expect(SimulcastEncoderError.frame(.sizeMismatch(expectedWidth: 1280, expectedHeight: 720, width: 640, height: 360))
                    .description == "the encoder refused the frame: the frame is 640x360 but 1280x720 is required here")
        #expect(SimulcastEncoderError.codec(.invalidParameter).description.hasPrefix("the VP8 encoder (libvpx) failed: libvpx: "))
        #expect(SimulcastEncoderError.scaling(YUVError(rawValue: -1, call: "I420Scale")).description
                == "scaling a layer (libyuv) failed: I420Scale returned -1")
    }
}
