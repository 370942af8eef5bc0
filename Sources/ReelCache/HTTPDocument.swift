import Foundation
import ReelCore

/// A small document fetched whole (a feed), bypassing the cache: feeds change.
public enum HTTPDocument {
    public static func get(_ url: String, timeout: Int, limit: Int = 32 << 20) throws -> Data {
        var body = Data()
        var tooLarge = false
        let outcome = HTTPTransfer().run(HTTPTransfer.Request(url: url, from: 0, to: nil, ifRange: nil, timeout: timeout),
                                         steer: { .go }, onResponse: { _ in true }, onData: { bytes in
            guard body.count + bytes.count <= limit else { tooLarge = true; return false }
            body.append(contentsOf: bytes)
            return true
        })
        let host = URL(string: url)?.host ?? "the server"
        switch outcome {
        case .completed: return body
        case .stopped: throw CacheError.http(tooLarge ? "\(url) is larger than \(ByteCount.text(Int64(limit)))" : "stopped")
        case .status(let code): throw CacheError.http("HTTP \(code) from \(host)")
        case .timedOut: throw CacheError.http("timed out connecting to \(host): no answer in \(timeout) s")
        case .failed(let message): throw CacheError.http("cannot reach \(host): \(message)")
        }
    }
}
