import MediaCodecs
import EngineCore
import SessionCore
import RTPWire

/// The file-reading targets: each input is written to a scratch file and read back through the
/// path the engine and its tools use for files.
enum FileReaderChecks {
    /// Frames read per input (each is at most the input's size, which libFuzzer bounds).
    static let maximumFrames = 16

    // MARK: Y4M

    /// `Y4MReader(path:)` reads incrementally with stdio; `Y4MReader(bytes:)` slices memory. Both
    /// must agree on the header, every frame and every error. `VideoSource(y4mPath:)` (the camera
    /// input of `simulcast encode/send`) must hand out frames of the size it was asked for.
    static func y4m(_ bytes: [UInt8]) -> String? {
        ScratchFiles.write(bytes, to: ScratchFiles.input)
        let fromMemory: Y4MReader, fromFile: Y4MReader
        do {
            fromMemory = try Y4MReader(bytes: bytes)
        } catch {
            do {
                _ = try Y4MReader(path: ScratchFiles.input)
                return "file reader accepts a header the memory reader rejects (\(error))"
            } catch let fileError {
                // An empty file is refused as a file (InputFile) before any header is parsed.
                return fileError == error || bytes.isEmpty ? nil : "header errors differ: memory \(error), file \(fileError)"
            }
        }
        do {
            fromFile = try Y4MReader(path: ScratchFiles.input)
        } catch {
            return "file reader rejects a header the memory reader accepts: \(error)"
        }
        guard fromFile.header == fromMemory.header else { return "headers differ: \(fromMemory.header) vs \(fromFile.header)" }
        var pixels = 0
        for index in 0..<maximumFrames {
            let memoryFrame = Result { () throws(Y4MError) in try fromMemory.nextFrame() }
            let fileFrame = Result { () throws(Y4MError) in try fromFile.nextFrame() }
            guard memoryFrame == fileFrame else { return "frame \(index) differs: memory \(memoryFrame), file \(fileFrame)" }
            guard case let .success(frame?) = memoryFrame else { break }
            guard frame.width == fromMemory.header.width, frame.height == fromMemory.header.height else {
                return "frame \(index) is \(frame.width)x\(frame.height), header says \(fromMemory.header.width)x\(fromMemory.header.height)"
            }
            pixels += fromMemory.header.frameSize
            guard pixels <= bytes.count else { return "\(pixels) pixel bytes read from a \(bytes.count)-byte file" }
        }
        // Scaling is the expensive part: only for pictures up to 256x256.
        guard fromMemory.header.width * fromMemory.header.height <= 256 * 256 else { return nil }
        let width = 16 + Int(bytes.count % 3) * 8, height = 16 + Int(bytes.count % 5) * 4
        do {
            let source = try VideoSource(y4mPath: ScratchFiles.input, width: width, height: height)
            for _ in 0..<2 {
                guard let frame = try source.nextFrame() else { break }
                guard frame.width == width, frame.height == height else {
                    return "VideoSource gave \(frame.width)x\(frame.height) for \(width)x\(height)"
                }
            }
        } catch {
            return nil  // a typed error for a malformed file is the expected outcome
        }
        return nil
    }

    // MARK: IVF

    /// IVFReader on the file's bytes; every frame must lie inside the file, and IVFWriter's file
    /// of the same frames must read back to the same header fields and frames. VP8 frames of a
    /// `VP80` file go through VP8Decoder (what an IVF consumer does with them).
    static func ivf(_ bytes: [UInt8]) -> String? {
        ScratchFiles.write(bytes, to: ScratchFiles.input)
        let file = ScratchFiles.read(ScratchFiles.input)
        guard file == bytes else { return "scratch file does not read back" }
        guard var reader = try? IVFReader(bytes: file) else { return nil }
        var frames: [IVFFrame] = []
        var used = Int(UInt16(file[6]) | UInt16(file[7]) << 8)
        while frames.count < 1024 {
            guard let frame = try? reader.nextFrame() else { break }
            used += 12 + frame.data.count
            guard used <= file.count else { return "frames end at byte \(used) of a \(file.count)-byte file" }
            frames.append(frame)
        }
        var writer = IVFWriter(width: reader.width, height: reader.height, timebaseNumerator: reader.timebaseNumerator,
                               timebaseDenominator: reader.timebaseDenominator)
        for frame in frames { writer.append(frame: frame.data, timestamp: frame.timestamp) }
        do {
            try writer.write(toFile: ScratchFiles.output)
        } catch {
            return "IVFWriter cannot write the scratch file: \(error)"
        }
        do {
            var again = try IVFReader(bytes: ScratchFiles.read(ScratchFiles.output))
            guard again.width == reader.width, again.height == reader.height,
                  again.timebaseNumerator == reader.timebaseNumerator,
                  again.timebaseDenominator == reader.timebaseDenominator,
                  again.declaredFrameCount == UInt32(frames.count) else { return "re-written IVF header differs" }
            for (index, frame) in frames.enumerated() {
                guard try again.nextFrame() == frame else { return "re-written IVF frame \(index) differs" }
            }
            guard try again.nextFrame() == nil else { return "re-written IVF has extra frames" }
        } catch {
            return "re-written IVF does not read: \(error)"
        }
        guard reader.fourcc == "VP80", !frames.isEmpty, let decoder = try? VP8Decoder() else { return nil }
        for frame in frames.prefix(4) {
            guard let picture = try? decoder.decode(frame.data) else { continue }
            guard picture.width > 0, picture.height > 0,
                  picture.width <= VideoFrame.maximumDimension, picture.height <= VideoFrame.maximumDimension
            else { return "decoded a \(picture.width)x\(picture.height) picture" }
        }
        return nil
    }

    // MARK: WAV

    /// WAVReader on the file's bytes (as `simulcast send --audio FILE.wav` reads it): samples fit
    /// the file, frames are whole 20 ms of the file's channel count, and they encode with Opus.
    static func wav(_ bytes: [UInt8]) -> String? {
        ScratchFiles.write(bytes, to: ScratchFiles.input)
        let file = ScratchFiles.read(ScratchFiles.input)
        guard let reader = try? WAVReader(bytes: file) else { return nil }
        guard reader.samples.count * 2 <= file.count else { return "\(reader.samples.count) samples in \(file.count) bytes" }
        let frameLength = AudioFrame.samplesPerChannel20ms * reader.channels.count
        guard reader.frameCount * frameLength <= reader.samples.count else { return "frameCount \(reader.frameCount) too large" }
        guard reader.frame(reader.frameCount) == nil, reader.frame(-1) == nil else { return "frame outside 0..<frameCount" }
        guard reader.frameCount > 0 else { return nil }
        guard let encoder = try? OpusEncoder(configuration: .init(channels: reader.channels)) else {
            return "no Opus encoder for \(reader.channels)"
        }
        var packet = [UInt8](repeating: 0, count: OpusEncoder.maxPacketSize)
        for index in 0..<min(reader.frameCount, 3) {
            guard let frame = reader.frame(index) else { return "frame \(index) of \(reader.frameCount) missing" }
            guard frame.samples.count == frameLength, frame.channels == reader.channels else {
                return "frame \(index) has \(frame.samples.count) samples"
            }
            do {
                let length = try encoder.encode(frame, into: &packet)
                guard length > 0, length <= OpusEncoder.maxPacketSize else { return "Opus packet of \(length) bytes" }
            } catch {
                return "a WAVReader frame does not encode: \(error)"
            }
        }
        return nil
    }

    // MARK: pcap

    /// A pcap file read from disk as `simulcast inspect FILE.pcap` reads it: the wire round trip,
    /// then every IPv4 UDP record classified and parsed as RTP/RTCP and re-written with
    /// MediaEngine's `PcapFile`, which must read back to the same records.
    static func pcapFile(_ bytes: [UInt8]) -> String? {
        ScratchFiles.write(bytes, to: ScratchFiles.input)
        let file = ScratchFiles.read(ScratchFiles.input)
        if let violation = WireRoundTripCheck.pcap.violation(in: file) { return violation }
        guard var reader = try? PcapReader(file) else { return nil }
        var expected: [PcapRecord] = []
        let output: PcapFile
        do { output = try PcapFile(path: ScratchFiles.output) } catch { return "PcapFile cannot create the scratch file: \(error)" }
        var attempts = 0
        while attempts <= file.count {  // every record consumes at least its 16-byte header
            attempts += 1
            let next: PcapRecord?
            do { next = try reader.next() } catch { continue }
            guard let record = next else { break }
            if let kind = try? RTPOrRTCP.classify(record.payload) {
                switch kind {
                case .rtp: _ = try? RTPPacket(parsing: record.payload)
                case .rtcp: _ = try? RTCPCompoundPacket(parsing: record.payload)
                }
            }
            guard case let .v4(source) = record.source.address, case let .v4(destination) = record.destination.address
            else { continue }
            let micros = UInt64(record.timestamp.seconds) * 1_000_000 + UInt64(record.timestamp.nanoseconds / 1000)
            let written: Bool = record.payload.withUnsafeBytes { payload in
                do {
                    try output.record(payload, from: NetworkEndpoint(address: source.value, port: record.source.port),
                                      to: NetworkEndpoint(address: destination.value, port: record.destination.port),
                                      unixMicroseconds: micros)
                    return true
                } catch {
                    return false  // e.g. a payload too large for one IPv4 datagram
                }
            }
            if written { expected.append(record) }
        }
        do { try output.close() } catch { return "PcapFile cannot close the scratch file: \(error)" }
        do {
            let rewritten = ScratchFiles.read(ScratchFiles.output)
            var again = try PcapReader(rewritten)
            for (index, record) in expected.enumerated() {
                guard let copy = try again.next() else { return "re-written pcap ends at record \(index) of \(expected.count)" }
                guard copy.source == record.source, copy.destination == record.destination,
                      copy.payload.elementsEqual(record.payload),
                      copy.timestamp.seconds == record.timestamp.seconds,
                      copy.timestamp.nanoseconds == record.timestamp.nanoseconds / 1000 * 1000
                else { return "re-written pcap record \(index) differs" }
            }
            guard try again.next() == nil else { return "re-written pcap has extra records" }
        } catch {
            return "re-written pcap does not read: \(error)"
        }
        return nil
    }
}
