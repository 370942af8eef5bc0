import ReelCache
import ReelMPV

// The backend reads remote media through the cache; the daemon is where the two meet.
extension Cache: StreamSource {
    public func openStreamReader(_ url: String, onTitle: @escaping @Sendable (String?, String?) -> Void)
        throws -> any StreamReader {
        try openReader(url, onTitle: onTitle)
    }
}

extension CacheReader: StreamReader {}
