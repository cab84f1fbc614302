/// The engine's version, as shown by tools and in stats.
public enum EngineVersion {
    public static let current = "0.3.0"
}
