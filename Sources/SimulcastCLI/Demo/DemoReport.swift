import CommandLineSupport
import Foundation
import MediaEngine

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
    /// The stats at the end (docs/receiving.md): round trip and jitter.
    var finalStats: RemoteVideoStats?
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
    var nodeTCP: TCPConnectionSummary

    /// Reads the call's outcome from the API (stats of every received video, the logs its
    /// events filled) before the engine closes.
    init(call: DemoCall, ivfPaths: [String: String]) async throws {
        let options = call.options
        seconds = options.seconds
        let sizes = call.layerSizes
        layerSizes = sizes.map { "\($0.width)x\($0.height)" }
        var viewers: [DemoViewerReport] = []
        for viewer in call.viewers {
            let stats = try await viewer.remote.stats()
            let retransmitted = try await call.room.retransmissions(subscriber: viewer.id, publisher: "publisher")
            let log = viewer.log.withLock { $0 }
            let layerSize = sizes[min(viewer.viewportLayer, sizes.count - 1)]
            let finalLayer = stats.currentSpatialLayer.map { LayerTarget(spatial: $0, temporal: stats.currentTemporalLayer ?? 0) }
            viewers.append(DemoViewerReport(
                id: viewer.id, viewport: viewer.viewport, viewportLayer: viewer.viewportLayer,
                viewportLayerSize: "\(layerSize.width)x\(layerSize.height)", throttled: viewer.throttled,
                framesDecoded: stats.framesDecoded, decodedSizes: log.decodedSizes,
                decoderErrors: stats.decoderErrors, freezes: stats.freezeCount,
                longestFreezeMilliseconds: Int64(stats.longestFreezeMilliseconds), packetsLost: Int64(stats.packetsLost),
                nackRequests: Int64(stats.nackCount), packetsRecovered: Int64(stats.packetsRecovered),
                retransmittedByNode: retransmitted,
                droppedByLink: viewer.throttled ? try await call.room.droppedByDownlinkLimit(of: viewer.id) : 0,
                bytesReceived: Int64(stats.bytesReceived), finalLayer: finalLayer, finalStats: stats,
                switches: log.switches,
                layerMilliseconds: Self.timeOnLayers(log.switches, callMilliseconds: Int64(options.seconds * 1000)),
                ivfPath: ivfPaths[viewer.id]))
        }
        self.viewers = viewers
        if let throttled = call.viewers.first(where: \.throttled) {
            throttle = (throttled.id, options.throttleKbps, options.throttleFromSeconds, options.throttleToSeconds)
        }
        let camera = try await call.camera.stats()
        publisherFrames = camera.framesEncoded
        publisherKeyFrames = camera.keyFramesRequested
        publisherSending = camera.sendingLayers
        publisherEvents = call.publisherEvents.withLock { $0 }
        nodeKeyFrameRequests = try await call.room.keyFrameRequestsToPublisher("publisher")
        nodeTCP = try await call.room.tcpConnections(publisher: "publisher")
    }

    /// Milliseconds on each forwarded layer ("S2T2"; "none" before the first one), from the
    /// switches and their times.
    static func timeOnLayers(_ switches: [DemoSwitch], callMilliseconds: Int64) -> [(layer: String, milliseconds: Int64)] {
        var totals: [String: Int64] = [:]
        var current = "none", since: Int64 = 0
        for item in switches {
            let at = min(max(item.atMilliseconds, since), callMilliseconds)
            totals[current, default: 0] += at - since
            (current, since) = (item.event.to?.description ?? "none", at)
        }
        totals[current, default: 0] += max(0, callMilliseconds - since)
        return totals.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
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
                ("framesUndecryptable", .int(viewer.finalStats?.framesUndecryptable ?? 0)),
                ("freezes", .int(viewer.freezes)),
                ("longestFreezeMs", .int(Int(viewer.longestFreezeMilliseconds))),
                ("packetsLost", .int(Int(viewer.packetsLost))),
                ("nackRequests", .int(Int(viewer.nackRequests))),
                ("packetsRecovered", .int(Int(viewer.packetsRecovered))),
                ("retransmittedByNode", .int(viewer.retransmittedByNode)),
                ("droppedByThrottle", .int(viewer.droppedByLink)),
                ("finalLayer", viewer.finalLayer.map { .string($0.description) } ?? .null),
                ("rttMs", viewer.finalStats?.roundTripMilliseconds.map { .double(($0 * 10).rounded() / 10) } ?? .null),
                ("jitterMs", viewer.finalStats.map { .double(($0.jitterMilliseconds * 10).rounded() / 10) } ?? .null),
                ("transportProtocol", viewer.finalStats?.transportProtocol.map { .string($0.rawValue) } ?? .null),
                ("protocolSwitchMs", viewer.finalStats?.protocolSwitchMilliseconds.map { .int(Int($0)) } ?? .null),
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
        document.append(("node", .object([
            ("keyFrameRequestsToPublisher", .int(nodeKeyFrameRequests)),
            ("tcp", .object([
                ("accepted", .int(nodeTCP.accepted)), ("proven", .int(nodeTCP.proven)),
                ("closedUnproven", .int(nodeTCP.closedUnproven)), ("droppedUnproven", .int(nodeTCP.droppedUnproven)),
                ("acceptFailuresForResources", .int(nodeTCP.acceptFailuresForResources)),
                ("sendsRefused", .int(nodeTCP.sendsRefused)),
            ])),
        ])))
        return .object(document)
    }
}
