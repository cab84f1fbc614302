import Foundation

/// A number with a fixed count of decimals for the tools' tables, "n/a" when it is not finite
/// (a layer that decoded nothing has no PSNR). Shared by `simulcast encode` and `simulcast advise`.
func decimalText(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return "n/a" }
    return String(format: "%.\(decimals)f", value)
}
