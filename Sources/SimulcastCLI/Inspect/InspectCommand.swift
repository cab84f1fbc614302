import CommandLineSupport
import Foundation
import MediaCodecs
import RTPWire

/// `simulcast inspect`: a debugging view of packets.
/// `--hex HEX` prints one RTP or RTCP packet (RFC 5761 §4 demultiplexing) as JSON, or
/// `{"error": NAME, "detail": ...}` and exit status 1; `FILE.pcap` prints a per-SSRC summary.
enum InspectCommand {
    static let usage = """
    usage: simulcast inspect --hex HEX [--ext ID=NAME,...] [--vp8-pt PT,...] [--opus-pt PT,...]
           simulcast inspect FILE.pcap [--key BASE64 [--srtp-suite NAME]] [same options]
      --ext         header extension ids (default 1=audio-level,2=abs-send-time,3=transport-cc,4=mid,
                    10=rid,11=repaired-rid); names: audio-level abs-send-time transport-cc mid rid repaired-rid
      --vp8-pt      payload types parsed as VP8 (RFC 7741; default 96)
      --opus-pt     payload types parsed as Opus (RFC 7587; default 111)
      --key BASE64  the capture is SRTP/SRTCP (what `simulcast send` records unless told to send plain
                    RTP): open it with this key||salt (the key `send` printed or was given)
      --srtp-suite NAME  the key's suite (default AES_CM_128_HMAC_SHA1_80; AES_CM_128_HMAC_SHA1_32,
                    AEAD_AES_128_GCM, AEAD_AES_256_GCM)
    Without --key, a stream whose VP8 payloads look encrypted says "payload": "encrypted" and leaves
    out what only the payload tells (key frames, PictureIDs, temporal ids); SRTCP is counted by the
    type of its clear first packet under "srtcp". A warning on stderr says so.
    """

    /// Runs the command; returns the exit status.
    static func run(_ arguments: ArraySlice<String>) throws -> Int32 {
        let options = try CommandLineArguments(arguments, valueOptions: ["hex", "ext", "vp8-pt", "opus-pt", "key", "srtp-suite"],
                                               maxPositionals: 1)
        let inspect = try InspectOptions(options)
        let decryption = try CaptureDecryption.from(options)
        if let hex = options.string("hex") {
            guard decryption == nil else { throw CommandError("--key opens a pcap capture; --hex takes a plain packet") }
            let (json, ok) = describe(hex: hex, options: inspect)
            print(json.serialized())
            return ok ? 0 : 1
        }
        guard let path = options.positionals.first else { throw CommandError("give --hex HEX or a pcap file\n" + usage) }
        let bytes: [UInt8]
        do { bytes = try InputFile.readAll(path) } catch {
            throw CommandError("cannot read \(error.path) as a pcap capture: \(error.reason)")
        }
        let (json, ok) = summarize(pcap: bytes, options: inspect, decryption: decryption)
        print(json.serialized())
        if case let .string(warning)? = json.field("warning") { writeToStandardError("simulcast inspect: \(warning)\n") }
        return ok ? 0 : 1
    }

    /// What `summarize` says when a capture's payloads are encrypted and no key was given.
    static let encryptedWarning = "the payload is encrypted (SRTP): streams marked \"payload\": \"encrypted\" report only "
        + "what the RTP header tells (packets, sequence gaps, reordering, frames by timestamp, RIDs), not key frames, "
        + "PictureIDs or temporal ids; give --key BASE64 (and --srtp-suite NAME if not AES_CM_128_HMAC_SHA1_80) to open it"

    static func describe(hex: String, options: InspectOptions) -> (JSONValue, Bool) {
        let bytes: [UInt8]
        do { bytes = try HexInput.parse(hex) } catch {
            return (.object([("error", "invalidHex"), ("detail", .string(error.description))]), false)
        }
        do {
            switch try RTPOrRTCP.classify(bytes) {
            case .rtp: return (PacketDescription.rtp(try RTPPacket(parsing: bytes), options: options), true)
            case .rtcp: return (PacketDescription.rtcp(try RTCPCompoundPacket(parsing: bytes)), true)
            }
        } catch {
            return (.object([("error", .string(error.name)), ("detail", .string(error.description))]), false)
        }
    }

    /// The per-SSRC summary of a pcap capture; with `decryption`, SRTP and SRTCP are opened first.
    static func summarize(pcap bytes: [UInt8], options: InspectOptions,
                          decryption: CaptureDecryption? = nil) -> (JSONValue, Bool) {
        var reader: PcapReader
        do { reader = try PcapReader(bytes) } catch {
            let detail: String
            if case let .invalidValue("pcap magic", value) = error {
                detail = "not a pcap capture: it starts with 0x" + String(UInt32(truncatingIfNeeded: value), radix: 16)
                    + ", not a pcap magic number (a1b2c3d4 or a1b23c4d, either byte order)"
            } else {
                detail = "not a pcap capture: \(error)"
            }
            return (.object([("error", .string(error.name)), ("detail", .string(detail))]), false)
        }
        var streams: [UInt32: StreamSummary] = [:]
        var order: [UInt32] = []
        var rtcpTypes: [String: Int] = [:]
        var srtcpTypes: [String: Int] = [:]
        var udpPackets = 0, notRTP = 0, badFrames = 0, unopened = 0
        while true {
            let record: PcapRecord?
            do { record = try reader.next() } catch {
                badFrames += 1
                continue
            }
            guard let record else { break }
            udpPackets += 1
            guard let kind = try? RTPOrRTCP.classify(record.payload) else {
                notRTP += 1
                continue
            }
            switch kind {
            case .rtp:
                guard let datagram = decryption.map({ $0.openRTP(record.payload) }) ?? Array(record.payload) else {
                    unopened += 1
                    continue
                }
                guard let packet = try? RTPPacket(parsing: datagram) else {
                    notRTP += 1
                    continue
                }
                let ssrc = packet.header.ssrc
                if streams[ssrc] == nil {
                    streams[ssrc] = StreamSummary(ssrc: ssrc)
                    streams[ssrc]?.decrypted = decryption != nil
                    order.append(ssrc)
                }
                streams[ssrc]?.add(packet, options: options)
            case .rtcp:
                guard let datagram = decryption.map({ $0.openRTCP(record.payload) }) ?? Array(record.payload) else {
                    unopened += 1
                    continue
                }
                if let compound = try? RTCPCompoundPacket(parsing: datagram) {
                    for packet in compound.packets { rtcpTypes[rtcpName(packet), default: 0] += 1 }
                } else if decryption == nil, let type = EncryptedRTCP.firstPacketType(datagram) {
                    srtcpTypes[type, default: 0] += 1
                } else {
                    notRTP += 1
                }
            }
        }
        var fields: [(String, JSONValue)] = [
            ("udpPackets", .int(udpPackets)), ("notRTPOrRTCP", .int(notRTP)), ("malformedFrames", .int(badFrames)),
            ("streams", .array(order.compactMap { streams[$0]?.json })),
            ("rtcp", .object(rtcpTypes.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })),
        ]
        if let decryption {
            fields.append(("srtp", decryption.json))
            fields.append(("notOpened", .int(unopened)))
            if decryption.opened == 0 && unopened > 0 {
                fields.append(("warning", .string("no datagram opened with this key: a wrong key, or another suite (--srtp-suite)")))
            }
        } else {
            fields.append(("srtcp", .object(srtcpTypes.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })))
            if streams.values.contains(where: \.payloadLooksEncrypted) || !srtcpTypes.isEmpty {
                fields.append(("warning", .string(encryptedWarning)))
            }
        }
        return (.object(fields), true)
    }

    private static func rtcpName(_ packet: RTCPPacket) -> String {
        switch packet {
        case .senderReport: return "SR"
        case .receiverReport: return "RR"
        case .sourceDescription: return "SDES"
        case .goodbye: return "BYE"
        case .applicationDefined: return "APP"
        case .genericNACK: return "NACK"
        case .transportWideFeedback: return "TWCC"
        case .pictureLossIndication: return "PLI"
        case .fullIntraRequest: return "FIR"
        case .receiverEstimatedMaxBitrate: return "REMB"
        case .unknown: return "unknown"
        }
    }
}
