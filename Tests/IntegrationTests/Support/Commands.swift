import Foundation
import ReelHarness

extension DaemonTestCase {
    /// Runs a command-line client against the test bus; returns (status, output).
    @discardableResult
    func runTool(_ executable: URL, _ args: [String], timeout: Double = 10) throws -> (Int32, String) {
        let child = try ChildProcess(executable, args, busAddress: bus.address, home: home)
        guard let status = child.waitForExit(timeout: timeout) else {
            child.stop()
            throw TestFailure("\(executable.lastPathComponent) \(args) did not finish")
        }
        return (status, child.text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @discardableResult
    func playerctl(_ args: String...) throws -> String {
        let (status, out) = try runTool(URL(fileURLWithPath: "/usr/bin/playerctl"), ["-p", "reel"] + args)
        guard status == 0 else { throw TestFailure("playerctl \(args) failed (\(status)): \(out)") }
        return out
    }

    /// Waits for text to appear in a running process's output, while listening on the bus.
    func waitForOutput(_ child: ChildProcess, _ text: String, timeout: Double = 10) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if child.text.contains(text) { return child.text }
            listen(for: 0.02)
        }
        return nil
    }

    /// The port a child announces on a line with "port N", once that line is
    /// whole: a line still being written may end in the middle of the number.
    func waitForPort(_ child: ChildProcess, timeout: Double = 10) throws -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            for line in child.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
                let words = line.split(separator: " ")
                if let i = words.firstIndex(of: "port"), i + 1 < words.count, let port = Int(words[i + 1]) { return port }
            }
            listen(for: 0.02)
        }
        throw TestFailure("no port announced: \(child.text)")
    }

    @discardableResult
    func reel(_ args: String...) throws -> (Int32, String) {
        try runTool(Binaries.reel, args)
    }

    /// Waits until `url` is downloaded (`reel cache path` names a file there); returns its path.
    func waitForDownload(_ url: String, timeout: Double = 15) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let (status, out) = try reel("cache", "path", url)
            if status == 0, FileManager.default.fileExists(atPath: out) { return out }
            listen(for: 0.1)
        }
        throw TestFailure("\(url) was not downloaded")
    }

    /// Waits up to 5 s for `reel cache ls` to list `name`; returns the last listing.
    func waitForCacheListing(_ name: String) throws -> String {
        let deadline = Date().addingTimeInterval(5)
        var listed = ""
        repeat { listed = try reel("cache", "ls").1 } while !listed.contains(name) && Date() < deadline
        return listed
    }

    /// Waits until reeld's output says `text` (a log line).
    func waitForLog(_ text: String, timeout: Double = 15) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !(daemon?.text.contains(text) ?? false), Date() < deadline { listen(for: 0.05) }
        guard daemon?.text.contains(text) == true else { throw TestFailure("reeld never said \(text): \(daemon?.text ?? "")") }
    }
}

extension DaemonTestCase {
    /// `reel` with a longer time to finish.
    @discardableResult
    func reel(timeout: Double, _ args: String...) throws -> (Int32, String) {
        try runTool(Binaries.reel, args, timeout: timeout)
    }

    /// Starts `reel` and lets it run beside others; `wait()` collects it.
    func reelAsync(_ args: String...) throws -> RunningTool {
        RunningTool(child: try ChildProcess(Binaries.reel, args, busAddress: bus.address, home: home))
    }
}

struct RunningTool {
    let child: ChildProcess
    func wait(timeout: Double = 60) throws -> (Int32, String) {
        guard let status = child.waitForExit(timeout: timeout) else {
            child.stop()
            throw TestFailure("reel did not finish")
        }
        return (status, child.text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
