import Foundation

/// A program run to its end, with what it wrote to stdout and stderr kept apart.
public struct Captured {
    public let status: Int32
    public let out: String
    public let err: String

    /// Runs `executable` with this process's environment plus `environment`, stdin empty.
    public static func run(_ executable: String, _ args: [String], environment: [String: String] = [:]) throws -> Captured {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        // stderr is read on the side, so that a program that fills it cannot stall on a full pipe.
        let errors = ErrorsRead()
        let reader = Thread { errors.data = err.fileHandleForReading.readDataToEndOfFile(); errors.done.signal() }
        reader.start()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        errors.done.wait()
        p.waitUntilExit()
        return Captured(status: p.terminationStatus, out: String(decoding: data, as: UTF8.self),
                        err: String(decoding: errors.data, as: UTF8.self))
    }
}

/// @unchecked Sendable: `data` is written by the reader thread before `done` is signalled, read after.
private final class ErrorsRead: @unchecked Sendable {
    var data = Data()
    let done = DispatchSemaphore(value: 0)
}
