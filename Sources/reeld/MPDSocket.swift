import Glibc

/// Where the MPD protocol's Unix socket lives: `$XDG_RUNTIME_DIR/reel/mpd.socket`
/// (the folder made 0700); nil without a runtime directory.
enum MPDSocket {
    static func path(environment: [String: String], instance: Bool) -> String? {
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return nil }
        let folder = runtime + "/reel"
        mkdir(folder, 0o700)
        return folder + (instance ? "/mpd.instance\(getpid()).socket" : "/mpd.socket")
    }
}
