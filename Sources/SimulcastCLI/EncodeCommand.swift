import CommandLineSupport
import Foundation
import MediaCodecs
import RTPWire
import Simulcast

/// `simulcast encode`: encodes the built-in scene (or a Y4M file) into simulcast VP8 layers,
/// writes one IVF per layer plus a per-frame JSON log, and prints a per-layer summary.
enum EncodeCommand {
    static let usage = """
    usage: simulcast encode [--input FILE.y4m] [--frames N] [--size WxH] [--max-layer 2|3]
                            [--single-layer] [--out DIR]
      --frames N       frames to encode (default 150; a Y4M input may end sooner)
      --size WxH       encoder config size (default 1280x720); layers follow docs/layer-plan.md, and with L layers
                       the top one is cropped to a multiple of 2^(L-1): 1281x721 is encoded as 1280x720
                       (a note on stderr says so)
      --max-layer 2|3  2 drops the middle layer (default 3)
      --single-layer   multiStream off: one layer at the config size
      --out DIR        where layer<i>_<W>x<H>.ivf and frames.jsonl go (default out/encode)
    """

    /// - Parameter notice: where a note about the arguments goes (standard error by default).
    static func run(_ arguments: ArraySlice<String>,
                    notice: (String) -> Void = { writeToStandardError($0 + "\n") }) throws {
        let options = try CommandLineArguments(arguments, valueOptions: ["input", "frames", "size", "max-layer", "out"],
                                               flagOptions: ["single-layer"])
        let frameCount = try options.int("frames", default: 150, range: 1...1_000_000)
        let size = try options.size("size", default: (1280, 720))
        let maxLayerValue = try options.int("max-layer", default: 3, range: 2...3)
        let outDirectory = options.string("out") ?? "out/encode"
        let plan = try LayerPlan(width: size.width, height: size.height, multiStream: !options.flag("single-layer"),
                                 maxLayer: maxLayerValue == 2 ? .two : .three)
        let top = plan.top
        if let note = sizeNotice(requestedWidth: size.width, height: size.height, plan: plan) { notice(note) }
        // A Y4M file that is cut short or holds no frame is refused before anything is written.
        let source = try options.string("input").map { path throws in
            _ = try Y4MReader.frameCount(path: path)
            return try VideoSource(y4mPath: path, width: top.width, height: top.height)
        } ?? VideoSource(testSceneWidth: top.width, height: top.height)

        let encoder = try SimulcastEncoder(plan: plan)
        let meter = try LayerQualityMeter(plan: plan)
        guard var frame = try source.nextFrame() else { throw CommandError("\(source.name) holds no frames") }

        // Every output goes to disk as it is produced: memory stays flat for any --frames.
        try OutputFiles.createDirectory(outDirectory)
        let writers = try plan.layers.map { layer throws(IVFError) in
            try IVFFileWriter(path: "\(outDirectory)/layer\(layer.index)_\(layer.width)x\(layer.height).ivf",
                              width: layer.width, height: layer.height)
        }
        let log = try TextFileWriter(path: "\(outDirectory)/frames.jsonl")
        var encodedFrames = 0
        while true {
            let encoded = try encoder.encode(frame)
            try meter.record(encoded, source: frame)
            for layerFrame in encoded {
                try writers[layerFrame.spatialIndex].append(frame: layerFrame.data, timestamp: UInt64(encodedFrames))
                try log.write(JSONValue.object([
                    ("frame", .int(encodedFrames)), ("layer", .int(layerFrame.spatialIndex)),
                    ("width", .int(layerFrame.width)), ("height", .int(layerFrame.height)),
                    ("temporalId", .int(Int(layerFrame.temporalId))), ("layerSync", .bool(layerFrame.layerSync)),
                    ("keyFrame", .bool(layerFrame.keyFrame)), ("bytes", .int(layerFrame.data.count)),
                    ("rtpTimestamp", .int(Int(layerFrame.rtpTimestamp))),
                ]).serialized() + "\n")
            }
            encodedFrames += 1
            guard encodedFrames < frameCount, let next = try source.nextFrame() else { break }
            frame = next
        }
        for writer in writers { try writer.close() }
        try log.close()
        let files = writers.map(\.path)

        print("Encoded \(encodedFrames) frames of \(source.name) at \(top.width)x\(top.height), 30 fps, "
            + "\(plan.layers.count) layer(s), L1T3")
        print("")
        print("| layer | size | frames | key frames | target kbps | kbps | PSNR (Y, dB) | decode errors | file |")
        print("|---:|---|---:|---:|---:|---:|---:|---:|---|")
        for (index, layer) in meter.layers.enumerated() {
            let kbps = layer.kbps(totalFrames: encodedFrames, frameRate: encoder.frameRate)
            print("| \(index) | \(layer.width)x\(layer.height) | \(layer.frames) | \(layer.keyFrames) | "
                + "\(plan.layers[index].bitrates.targetKbps) | \(decimalText(kbps, 0)) | \(decimalText(layer.meanPSNR, 2)) | "
                + "\(layer.decodeErrors) | \(files[index]) |")
        }
        print("")
        print("Per-frame log: \(outDirectory)/frames.jsonl")
    }
}
