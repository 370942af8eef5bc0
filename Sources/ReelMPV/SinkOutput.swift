import FoundationEssentials
import Glibc
import ReelCore
import ReelSystem

/// mpv's audio output into a sink (snapserver's pipe) instead of a sound
/// server: the settings that point mpv at the sink's FIFO, and what the sink
/// reports from its thread, delivered on the run loop's.
final class SinkOutput {
    let sink: any AudioSink
    private let news: Mailbox<News>
    enum News: Sendable { case lost(String), back }

    init(_ sink: any AudioSink, waking wakeup: WakeupPipe) {
        self.sink = sink
        let news = Mailbox<News>(waking: wakeup)
        self.news = news
        sink.onChange = { problem in news.post(problem.map(News.lost) ?? .back) }
    }

    /// What the sink reported since last asked, in order.
    func takeNews() -> [News] { news.take() }

    /// mpv's settings for a sink: SDL's disk driver writes into the sink's FIFO.
    /// Unlike mpv's own `pcm` output, it runs on a thread of its own outside
    /// mpv's locks (`pcm` writes from inside them: while a full FIFO blocks it,
    /// every call into mpv waits, up to 2.6 s measured). It never sleeps
    /// between its periods of 512 samples (10.7 ms): a full FIFO holds it
    /// back, so that the sink's reader sets the pace (with SDL's own 10 ms
    /// waits, snapserver found the pipe short every other chunk).
    var settings: [(String, String)] {
        // Read by SDL when mpv opens its audio output; set before anything else runs.
        setenv("SDL_AUDIODRIVER", "disk", 1)
        setenv("SDL_DISKAUDIOFILE", sink.fifoPath, 1)
        setenv("SDL_DISKAUDIODELAY", "0", 1)
        Self.quietSDLAudioLog()
        let pcm = AudioFormat.sink
        return [("ao", "sdl"), ("sdl-buflen", "0.01"), ("audio-format", pcm.bits.map { "s\($0)" } ?? "float"),
                ("audio-samplerate", "\(pcm.sampleRate)"), ("audio-channels", "\(pcm.channels)")]
    }

    /// SDL's disk driver logs "CRITICAL: You are using the SDL disk i/o audio
    /// driver!" every time mpv opens it, which is what reel means to do. SDL
    /// is loaded with libmpv; its audio category is silenced through it.
    private static func quietSDLAudioLog() {
        typealias SetPriority = @convention(c) (Int32, Int32) -> Void
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "SDL_LogSetPriority") else { return }
        let audioCategory: Int32 = 4, abovePriorities: Int32 = 7   // SDL_LOG_CATEGORY_AUDIO, SDL_NUM_LOG_PRIORITIES
        unsafeBitCast(symbol, to: SetPriority.self)(audioCategory, abovePriorities)
    }
}
