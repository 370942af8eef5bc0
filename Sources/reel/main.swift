import Foundation
import ReelCLI
import ReelDBus
import ReelSettings

func fail(_ message: String, status: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("reel: \(message)\n".utf8))
    exit(status)
}

// Swift replaces bytes that are not UTF-8 in CommandLine.arguments; names
// are sent over D-Bus as UTF-8, so such a name is refused, shown escaped.
for i in 1..<Int(CommandLine.argc) {
    guard let raw = CommandLine.unsafeArgv[i], String(validatingCString: raw) == nil else { continue }
    let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self), count: strlen(raw))
    let escaped = bytes.map { $0 >= 0x20 && $0 < 0x7F ? String(UnicodeScalar($0)) : String(format: "\\x%02X", $0) }.joined()
    fail("file name is not valid UTF-8: \(escaped)")
}

let parsed: (GlobalOptions, CLICommand)
do { parsed = try Arguments.parse(Array(CommandLine.arguments.dropFirst())) } catch {
    fail("\(error)\nTry 'reel --help'.", status: 2)
}
let (options, command) = parsed
switch command {
case .help(let topic): print(topic.isEmpty ? Help.usage : Help.text(for: topic) ?? Help.usage, terminator: ""); exit(0)
case .version: print("reel \(reelVersion)"); exit(0)
case .configCheck(let file): exit(ConfigCheck.run(file: file))
case .completion(let shell): print(Completion.script(for: shell), terminator: ""); exit(0)
case .complete(let words):
    // Never fails loudly: a shell's Tab must not print errors into the line being typed.
    Completion.complete(words, busName: options.busName).forEach { print($0) }
    exit(0)
default: break
}

let connection: Connection
do { connection = try Connection() } catch {
    fail("cannot connect to the D-Bus session bus (\((error as? BusError)?.message ?? "\(error)"))")
}
let client = Client(connection: connection, busName: options.busName) { text, newline in
    print(text, terminator: newline ? "\n" : "")
    if newline { fflush(nil) }
}
do {
    if case .start = command, !(try client.daemonIsRunning()) {
        do { try client.startDaemon() } catch let error as BusError {
            fail("cannot start reeld: \(error.message) (is reel installed with its D-Bus service file?)")
        }
    }
    guard try client.daemonIsRunning() else {
        fail("no reel daemon is running (nothing owns \(options.busName)); start it with reeld")
    }
    try client.run(command)
} catch let error as BusError {
    fail(error.message)
} catch {
    fail("\(error)")
}
