import CommandLineSupport
import Foundation
import EngineCore
import Simulcast

/// What one subscriber of the demo got, for the summary table, the JSON and the tests.
struct DemoViewerReport {
    var id: String
    var viewport: VideoSize
    var viewportLayer: Int
    var viewportLayerSize: String
    var throttled: Bool
    var framesDecoded: Int
    var decodedSizes: [String: Int]
    var decoderErrors: Int
    var freezes: Int
    var longestFreezeMilliseconds: Int64
    var packetsLost: Int64
    var nackRequests: Int64
    var packetsRecovered: Int64
    var retransmittedByNode: Int
    var droppedByLink: Int
    var bytesReceived: Int64
    var finalLayer: LayerTarget?
    /// The node's view at the end (SPEC §3 stats): round trip and jitter from the RRs.
    var finalStats: ForwardedSubscriberStats?
    var switches: [DemoSwitch]
    /// Milliseconds spent on each forwarded layer ("S2T2"; "none" before the first key frame).
    var layerMilliseconds: [(layer: String, milliseconds: Int64)]
    var ivfPath: String?

    /// Milliseconds on each spatial layer, lightest first.
    func spatialMilliseconds(layerCount: Int) -> [Int64] {
        var result = [Int64](repeating: 0, count: layerCount)
        for (layer, milliseconds) in layerMilliseconds {
            guard layer.hasPrefix("S"), let tIndex = layer.firstIndex(of: "T"),
                  let spatial = Int(layer[layer.index(after: layer.startIndex)..<tIndex]),
                  result.indices.contains(spatial) else { continue }
            result[spatial] += milliseconds
        }
        return result
    }
}

/// The whole demo's outcome.
struct DemoReport {
    var seconds: Double
    var layerSizes: [String]
    var throttle: (subscriber: String, kbps: Int, fromSeconds: Double, toSeconds: Double)?
    var viewers: [DemoViewerReport]
    var publisherFrames: Int
    var publisherKeyFrames: Int
    var publisherSending: [Int]
    var publisherEvents: [DemoPublisherEvent]
    var nodeKeyFrameRequests: Int
    /// Datagrams the node's socket dropped for being longer than its receive buffer.
    var nodeTruncatedDatagrams: Int

    init(call: DemoCall, ivfPaths: [String: String]) {
        let options = call.options
        seconds = options.seconds
        layerSizes = call.plan.layers.map { "\($0.width)x\($0.height)" }
        viewers = call.viewers.map { viewer in
            let stats = viewer.subscriber.statistics.video
            let node = call.node.counters(for: viewer.id) ?? ForwardedSubscriberCounters()
            let layerSize = call.plan.layers[min(viewer.viewportLayer, call.plan.layers.count - 1)]
            return DemoViewerReport(
                id: viewer.id, viewport: viewer.viewport, viewportLayer: viewer.viewportLayer,
                viewportLayerSize: "\(layerSize.width)x\(layerSize.height)", throttled: viewer.link != nil,
                framesDecoded: viewer.framesDecoded, decodedSizes: viewer.decodedSizes,
                decoderErrors: Int(stats.decoderErrors), freezes: stats.freezeCount,
                longestFreezeMilliseconds: stats.longestFreezeMilliseconds, packetsLost: stats.packetsLost,
                nackRequests: stats.nackRequests, packetsRecovered: stats.packetsRecovered,
                retransmittedByNode: node.retransmitted + node.rebuilt, droppedByLink: viewer.link?.dropped ?? 0,
                bytesReceived: stats.bytesReceived,
                finalLayer: (try? call.node.forwarder.stats(for: viewer.id).current) ?? nil,
                finalStats: try? call.node.stats(for: viewer.id),
                switches: viewer.switches,
                layerMilliseconds: viewer.layerMicroseconds.sorted { $0.key < $1.key }.map { ($0.key, $0.value / 1000) },
                ivfPath: ivfPaths[viewer.id])
        }
        if let throttled = call.viewers.first(where: { $0.link != nil }) {
            throttle = (throttled.id, options.throttleKbps, options.throttleFromSeconds, options.throttleToSeconds)
        }
        publisherFrames = call.publisher.videoFramesEncoded
        publisherKeyFrames = call.publisher.keyFramesRequested
        publisherSending = call.publisher.sendingLayers
        publisherEvents = call.publisherEvents
        nodeKeyFrameRequests = call.node.counters.keyFrameRequestsSent
        nodeTruncatedDatagrams = call.nodeSocket.truncatedDatagrams
    }

    static func reasonName(_ reason: LayerChangeReason) -> String {
        switch reason {
        case .bandwidthDown: return "bandwidthDown"
        case .bandwidthUp: return "bandwidthUp"
        case .client: return "client"
        case .publisher: return "publisher"
        }
    }

    /// The Markdown summary table.
    var summaryTable: String {
        var lines = [
            "| subscriber | viewport | wanted layer | final layer | frames decoded | avg fps | avg kbps | decoder errors "
                + "| freezes (longest ms) | lost / NACKed / recovered | switches (reason, latency ms) | time per spatial layer (s) |",
            "|---|---|---|---|---:|---:|---:|---:|---:|---:|---|---|",
        ]
        for viewer in viewers {
            let switches = viewer.switches.filter { $0.event.from != nil }.map { item in
                "\(item.event.from?.description ?? "-")→\(item.event.to?.description ?? "-") "
                    + "\(Self.reasonName(item.event.reason)) \(item.event.latencyMilliseconds)"
            }
            let spatial = viewer.spatialMilliseconds(layerCount: layerSizes.count).enumerated()
                .filter { $0.element > 0 }
                .map { "\(layerSizes[$0.offset]) \(String(format: "%.1f", Double($0.element) / 1000))" }
            lines.append("| \(viewer.id)\(viewer.throttled ? " (throttled)" : "") "
                + "| \(viewer.viewport.width)x\(viewer.viewport.height) | \(viewer.viewportLayerSize) "
                + "| \(viewer.finalLayer?.description ?? "-") | \(viewer.framesDecoded) "
                + "| \(String(format: "%.1f", Double(viewer.framesDecoded) / max(seconds, 0.001))) "
                + "| \(Int(Double(viewer.bytesReceived) * 8 / 1000 / max(seconds, 0.001))) | \(viewer.decoderErrors) "
                + "| \(viewer.freezes) (\(viewer.longestFreezeMilliseconds)) "
                + "| \(viewer.packetsLost) / \(viewer.nackRequests) / \(viewer.packetsRecovered) "
                + "| \(switches.isEmpty ? "none" : switches.joined(separator: "; ")) | \(spatial.joined(separator: ", ")) |")
        }
        return lines.joined(separator: "\n")
    }

    /// The `--json` document.
    var json: JSONValue {
        var document: [(String, JSONValue)] = [
            ("seconds", .double(seconds)),
            ("layers", .array(layerSizes.map { .string($0) })),
        ]
        if let throttle {
            document.append(("throttle", .object([
                ("subscriber", .string(throttle.subscriber)), ("kbps", .int(throttle.kbps)),
                ("fromSeconds", .double(throttle.fromSeconds)), ("toSeconds", .double(throttle.toSeconds)),
            ])))
        }
        document.append(("subscribers", .array(viewers.map { viewer in
            .object([
                ("id", .string(viewer.id)),
                ("viewport", .string("\(viewer.viewport.width)x\(viewer.viewport.height)")),
                ("viewportLayer", .int(viewer.viewportLayer)),
                ("throttled", .bool(viewer.throttled)),
                ("framesDecoded", .int(viewer.framesDecoded)),
                ("decodedSizes", .object(viewer.decodedSizes.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })),
                ("decoderErrors", .int(viewer.decoderErrors)),
                ("freezes", .int(viewer.freezes)),
                ("longestFreezeMs", .int(Int(viewer.longestFreezeMilliseconds))),
                ("packetsLost", .int(Int(viewer.packetsLost))),
                ("nackRequests", .int(Int(viewer.nackRequests))),
                ("packetsRecovered", .int(Int(viewer.packetsRecovered))),
                ("retransmittedByNode", .int(viewer.retransmittedByNode)),
                ("droppedByThrottle", .int(viewer.droppedByLink)),
                ("finalLayer", viewer.finalLayer.map { .string($0.description) } ?? .null),
                ("rttMs", viewer.finalStats?.roundTripMilliseconds.map { .double(($0 * 10).rounded() / 10) } ?? .null),
                ("jitterMs", viewer.finalStats?.jitterMilliseconds.map { .double(($0 * 10).rounded() / 10) } ?? .null),
                ("switches", .array(viewer.switches.map { item in
                    .object([
                        ("atMs", .int(Int(item.atMilliseconds))),
                        ("from", item.event.from.map { .string($0.description) } ?? .null),
                        ("to", item.event.to.map { .string($0.description) } ?? .null),
                        ("reason", .string(Self.reasonName(item.event.reason))),
                        ("latencyMs", .int(Int(item.event.latencyMilliseconds))),
                    ])
                })),
                ("timeOnLayerMs", .object(viewer.layerMilliseconds.map { ($0.layer, .int(Int($0.milliseconds))) })),
                ("timeOnSpatialLayerMs", .object(viewer.spatialMilliseconds(layerCount: layerSizes.count).enumerated().map {
                    (layerSizes[$0.offset], .int(Int($0.element)))
                })),
                ("ivf", viewer.ivfPath.map { .string($0) } ?? .null),
            ])
        })))
        document.append(("publisher", .object([
            ("framesEncoded", .int(publisherFrames)),
            ("keyFramesRequested", .int(publisherKeyFrames)),
            ("sendingLayers", .array(publisherSending.map { .int($0) })),
            ("dynaCastEvents", .array(publisherEvents.map { event in
                .object([
                    ("atMs", .int(Int(event.atMilliseconds))), ("wanted", .array(event.wanted.map { .int($0) })),
                    ("sending", .array(event.sending.map { .int($0) })), ("paused", .array(event.paused.map { .int($0) })),
                    ("resumed", .array(event.resumed.map { .int($0) })),
                ])
            })),
        ])))
        document.append(("node", .object([("keyFrameRequestsToPublisher", .int(nodeKeyFrameRequests)),
                                          ("truncatedDatagrams", .int(nodeTruncatedDatagrams))])))
        return .object(document)
    }
}
