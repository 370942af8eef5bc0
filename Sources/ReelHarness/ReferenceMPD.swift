import Foundation

/// MPD 0.23 itself (Debian's `mpd`), as the anchor reel's MPD protocol is measured and compared
/// against: a private configuration in `dir`, the music folder given, a null output, a Unix socket.
public enum ReferenceMPD {
    public static let executable = "/usr/bin/mpd"
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    /// Starts it; returns the process and the socket it will serve (once it has read its config).
    /// `autoUpdate`: MPD's own inotify watch of the music folder.
    public static func start(music: URL, dir: URL, autoUpdate: Bool = false) throws -> (process: ChildProcess, socket: String) {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let socket = dir.appendingPathComponent("socket").path
        let config = dir.appendingPathComponent("mpd.conf")
        try """
            music_directory "\(music.path)"
            db_file "\(dir.path)/database"
            state_file "\(dir.path)/state"
            bind_to_address "\(socket)"
            log_file "\(dir.path)/log"
            auto_update "\(autoUpdate ? "yes" : "no")"
            audio_output {
                type "null"
                name "null"
            }
            """.write(to: config, atomically: true, encoding: .utf8)
        let process = try ChildProcess(URL(fileURLWithPath: executable), ["--no-daemon", config.path], busAddress: nil, home: dir)
        return (process, socket)
    }
}
