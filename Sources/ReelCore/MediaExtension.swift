/// The file name extensions of the media reel plays: one table for every place that asks. An
/// import takes these files from a folder, the cache names a stored file by them (another
/// extension gives no file a name a shell or a desktop would run), MPD's `decoders` lists them,
/// and a video resumes whatever its length. Lower case; compare with a lowercased extension.
public enum MediaExtension {
    public static let audio: Set<String> = [
        "mp3", "mp2", "m4a", "m4b", "aac", "ogg", "oga", "opus", "flac", "wav", "wave", "aif", "aiff", "wma", "ape", "wv",
        "mka",
    ]
    public static let video: Set<String> = [
        "mp4", "m4v", "mkv", "webm", "mov", "avi", "ogv", "mpg", "mpeg", "wmv", "flv", "ts", "3gp",
    ]
    public static let all = audio.union(video)
}
