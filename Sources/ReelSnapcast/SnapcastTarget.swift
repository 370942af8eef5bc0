import ReelSystem

/// Where reel's sound goes for Snapcast: snapserver's pipe source (the path
/// its `source = pipe://…` names) or its TCP source (`source = tcp://…`).
public enum SnapcastTarget: Equatable, Sendable, CustomStringConvertible {
    case pipe(String)
    case tcp(ListenAddress)

    /// snapserver's own default source: `pipe:///tmp/snapfifo`.
    public static let defaultPipe = "/tmp/snapfifo"
    /// snapserver's TCP source listens here unless told otherwise.
    public static let defaultTCPPort: UInt16 = 4953

    /// Reads what follows `snapcast` in `--output`: nothing, `:/PATH` or `:tcp://HOST:PORT`.
    public static func parse(_ text: String) -> Result<SnapcastTarget, OutputProblem> {
        guard text.hasPrefix("snapcast") else {
            return .failure(OutputProblem("unknown output \(text) (known: snapcast, snapcast:/PATH, snapcast:tcp://HOST:PORT)"))
        }
        let rest = text.dropFirst("snapcast".count)
        if rest.isEmpty { return .success(.pipe(defaultPipe)) }
        guard rest.hasPrefix(":"), rest.count > 1 else { return .failure(OutputProblem("\(text): expected snapcast:/PATH or snapcast:tcp://HOST:PORT")) }
        let where_ = rest.dropFirst()
        if where_.hasPrefix("tcp://") {
            guard where_.count > "tcp://".count,
                  let address = ListenAddress.parse(String(where_.dropFirst("tcp://".count)), defaultPort: defaultTCPPort),
                  address.port > 0 else {
                return .failure(OutputProblem("\(text): not a HOST:PORT after tcp://"))
            }
            return .success(.tcp(address))
        }
        let path = where_.hasPrefix("pipe://") ? where_.dropFirst("pipe://".count) : where_
        guard path.hasPrefix("/"), !path.contains("\0") else {
            return .failure(OutputProblem("\(text): the pipe's path must be absolute, as snapserver's source names it"))
        }
        return .success(.pipe(String(path)))
    }

    public var description: String {
        switch self {
        case .pipe(let path): "snapcast:\(path)"
        case .tcp(let address): "snapcast:tcp://\(address)"
        }
    }
}

/// Why the output cannot be used, in words for the log and `reel status`.
public struct OutputProblem: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
