/// Text a peer or server sent (an SDP line, an SFU's error reason), made fit to show a person.
/// Such text may be of any length and may carry terminal control sequences (ESC `[31m`, OSC
/// titles, bells) or Unicode direction overrides; shown raw, a hostile peer could flood a log or
/// drive the reader's terminal. `shown` keeps at most `limit` Unicode scalars (an ellipsis marks
/// the cut), turns line breaks and tabs into spaces and drops every other control (C0, DEL, C1)
/// and format character (Unicode category Cf, e.g. U+202E). It reads at most `4 * limit` scalars,
/// so its work is bounded by `limit`, not by the length of the text.
public enum PeerText {
    /// How many scalars of peer text an error message quotes by default.
    public static let defaultLimit = 200

    /// `text` shortened to `limit` scalars (plus "…" when cut) without control or format characters.
    public static func shown(_ text: some StringProtocol, limit: Int = defaultLimit) -> String {
        var kept = String.UnicodeScalarView()
        var count = 0, read = 0
        for scalar in text.unicodeScalars {
            read += 1
            guard count < limit, read <= 4 * limit else {
                kept.append("…")
                break
            }
            switch scalar.value {
            case 0x09, 0x0A, 0x0D, 0x2028, 0x2029:
                kept.append(" ")
            case 0x00..<0x20, 0x7F...0x9F:
                continue
            default:
                if scalar.properties.generalCategory == .format { continue }
                kept.append(scalar)
            }
            count += 1
        }
        return String(kept)
    }
}
