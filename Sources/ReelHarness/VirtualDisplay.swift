import Foundation

/// A private X server (Xvfb) for tests of the video window. It stops when released.
public final class VirtualDisplay: @unchecked Sendable {
    // @unchecked: immutable once started; stopped from the test thread.
    public let display: String
    private let server: SpawnedProcess

    /// `size`: the screen, as Xvfb's `-screen 0` takes it (WIDTHxHEIGHTxDEPTH).
    public init(size: String = "640x480x24") throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb") else { throw HarnessError("Xvfb is not installed") }
        let out = Pipe()
        // -displayfd: Xvfb picks a free display and writes its number once it accepts clients.
        // -noreset: by default Xvfb resets when its last client leaves, and the reset drops any
        // client that connected meanwhile (xserver#1102): a screenshot ending as Cantata
        // connected failed a CI run. Four loops of xdpyinfo lose 14-20 of 600 without it, 0 with.
        server = try SpawnedProcess("/usr/bin/Xvfb", ["-displayfd", "1", "-noreset", "-screen", "0", size, "-nolisten", "tcp"],
                                    environment: ProcessInfo.processInfo.environment,
                                    stdout: out.fileHandleForWriting.fileDescriptor)
        try out.fileHandleForWriting.close()
        var text = Data()
        while !text.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text.append(chunk)
        }
        guard let number = Int(String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            server.stop()
            throw HarnessError("Xvfb did not start")
        }
        display = ":\(number)"
    }

    /// The names of the top-level windows that contain `text`.
    public func windows(containing text: String) -> [String] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/xwininfo")
        p.arguments = ["-root", "-tree"]
        p.environment = ["DISPLAY": display]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return [] }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init).filter { $0.contains(text) }
    }

    /// Asks every window whose name contains `text` to close, as a window
    /// manager's close button does (WM_DELETE_WINDOW).
    public func close(windowsNamed text: String) throws {
        let script = """
            import sys
            from Xlib import display, X, protocol
            d = display.Display(sys.argv[1])
            protocols, delete = d.intern_atom('WM_PROTOCOLS'), d.intern_atom('WM_DELETE_WINDOW')
            def walk(w):
                for c in w.query_tree().children:
                    name = c.get_wm_name()
                    if name and sys.argv[2] in str(name):
                        c.send_event(protocol.event.ClientMessage(window=c, client_type=protocols,
                                                                  data=(32, [delete, X.CurrentTime, 0, 0, 0])))
                    walk(c)
            walk(d.screen().root)
            d.flush()
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", script, display, text]
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw HarnessError("could not close the window (is python3-xlib installed?)") }
    }
}
