import CReference
import MediaCodecs
import RTPWire
import Simulcast

/// What one frame cost a pipeline: thread CPU split into scaling and encoding, and the
/// encoded frames it produced (lightest layer first).
struct FrameCost {
    var scalingNanoseconds: Int64
    var totalNanoseconds: Int64
    var encoded: [EncodedFrame]
}

/// One configuration under test: takes top-size I420 frames, scales to its layers, encodes.
protocol EncodePipeline: AnyObject {
    /// Layer sizes, lightest first.
    var layerSizes: [(width: Int, height: Int)] { get }
    func encode(_ frame: VideoFrame) throws -> FrameCost
}

/// Our default: `SimulcastEncoder` (one libvpx multi-resolution encoder over every layer).
final class MultiResolutionPipeline: EncodePipeline {
    private let encoder: SimulcastEncoder
    let layerSizes: [(width: Int, height: Int)]

    init(plan: LayerPlan) throws {
        encoder = try SimulcastEncoder(plan: plan)
        encoder.phaseClock = threadCPUNanoseconds
        layerSizes = plan.layers.map { ($0.width, $0.height) }
    }

    func encode(_ frame: VideoFrame) throws -> FrameCost {
        let start = threadCPUNanoseconds()
        let encoded = try encoder.encode(frame)
        let total = threadCPUNanoseconds() - start
        return FrameCost(scalingNanoseconds: encoder.lastScalingNanoseconds, totalNanoseconds: total, encoded: encoded)
    }
}

/// How GStreamer or ffmpeg users do simulcast: one independent libvpx encoder per layer, each
/// fed its own downscaled copy (scaled layer to layer with the same box filter, same settings).
final class IndependentEncodersPipeline: EncodePipeline {
    private let encoders: [SimulcastEncoder]
    private var scaled: [VideoFrame]
    private let scaler = Scaler()
    let layerSizes: [(width: Int, height: Int)]

    init(plan: LayerPlan) throws {
        let denoising = SimulcastEncoder.defaultDenoising(layerCount: plan.layers.count)
        encoders = try plan.layers.map { layer in
            try SimulcastEncoder(plan: LayerPlan(width: layer.width, height: layer.height, multiStream: false),
                                 denoising: [denoising[layer.index]])
        }
        scaled = try plan.layers.dropLast().map { try VideoFrame(width: $0.width, height: $0.height) }
        layerSizes = plan.layers.map { ($0.width, $0.height) }
    }

    func encode(_ frame: VideoFrame) throws -> FrameCost {
        let start = threadCPUNanoseconds()
        // Highest to lowest, each from the layer above it, like libvpx multi-res input.
        var source = frame
        for index in scaled.indices.reversed() {
            try scaler.scale(source, into: &scaled[index])
            source = scaled[index]
        }
        let scaling = threadCPUNanoseconds() - start
        var encoded: [EncodedFrame] = []
        for index in encoders.indices {
            var frames = try encoders[index].encode(index == encoders.count - 1 ? frame : scaled[index])
            for i in frames.indices { frames[i].spatialIndex = index }
            encoded += frames
        }
        return FrameCost(scalingNanoseconds: scaling, totalNanoseconds: threadCPUNanoseconds() - start, encoded: encoded)
    }
}

/// The plain-C reference harness (Benchmarks/CReference): same libyuv and libvpx calls and
/// settings, no Swift in the loop.
final class CReferencePipeline: EncodePipeline {
    private let handle: OpaquePointer
    /// Output buffers per layer (highest first), allocated once.
    private let buffers: [UnsafeMutableBufferPointer<UInt8>]
    private let bufferPointers: [UnsafeMutablePointer<UInt8>?]
    let layerSizes: [(width: Int, height: Int)]

    struct CreateFailed: Error, CustomStringConvertible { var description: String }

    init(plan: LayerPlan) throws {
        let highestFirst = plan.layers.reversed()
        var widths = highestFirst.map { Int32($0.width) }
        var heights = highestFirst.map { Int32($0.height) }
        var kbps = highestFirst.map { Int32($0.bitrates.targetKbps) }
        var denoise = SimulcastEncoder.defaultDenoising(layerCount: plan.layers.count).reversed().map { Int32($0 ? 1 : 0) }
        var error = [CChar](repeating: 0, count: 256)
        guard let handle = cref_create(Int32(plan.layers.count), &widths, &heights, &kbps, &denoise, 30, &error, 256)
        else { throw CreateFailed(description: "cref_create: " + String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
        self.handle = handle
        buffers = highestFirst.map { .allocate(capacity: $0.width * $0.height * 3 / 2 + 65536) }
        bufferPointers = buffers.map(\.baseAddress)
        layerSizes = plan.layers.map { ($0.width, $0.height) }
    }

    deinit {
        cref_destroy(handle)
        for buffer in buffers { buffer.deallocate() }
    }

    /// The C reference harness's `cref_encode` returned a non-zero status.
    struct EncodeFailed: Error, CustomStringConvertible {
        var code: Int32
        var description: String { "the C reference encoder (cref_encode) failed with status \(code)" }
    }

    func encode(_ frame: VideoFrame) throws -> FrameCost {
        let count = layerSizes.count
        var sizes = [Int](repeating: 0, count: count)
        var keys = [Int32](repeating: 0, count: count)
        var capacities = buffers.map(\.count)
        var scaling: Int64 = 0, encoding: Int64 = 0
        let status: Int32 = frame.yPlane.withUnsafeBufferPointer { y in
            frame.uPlane.withUnsafeBufferPointer { u in
                frame.vPlane.withUnsafeBufferPointer { v in
                    cref_encode(handle, y.baseAddress, Int32(frame.strideY), u.baseAddress, Int32(frame.strideUV),
                                v.baseAddress, Int32(frame.strideUV), bufferPointers, &capacities, &sizes, &keys,
                                &scaling, &encoding)
                }
            }
        }
        guard status == 0 else { throw EncodeFailed(code: status) }
        var encoded: [EncodedFrame] = []
        for c in (0..<count).reversed() where sizes[c] > 0 {  // lightest first
            let index = count - 1 - c
            encoded.append(EncodedFrame(spatialIndex: index, width: layerSizes[index].width,
                                        height: layerSizes[index].height, temporalId: 0, layerSync: false,
                                        keyFrame: keys[c] != 0, rtpTimestamp: 0, data: Array(buffers[c].prefix(sizes[c]))))
        }
        return FrameCost(scalingNanoseconds: scaling, totalNanoseconds: scaling + encoding, encoded: encoded)
    }
}
