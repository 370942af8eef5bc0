/// Takes the place of SDL's `SDL_LockAudio` for libmpv, its only caller:
/// it does nothing.
///
/// Why: mpv's SDL output (behind a sink) closes with `SDL_LockAudio()` and
/// then `SDL_QuitSubSystem`, which waits for SDL's audio thread to end. SDL
/// 2.26's audio thread takes that same lock once every period, whether
/// paused or not, so if it reaches the lock in between, each waits for the
/// other forever: mpv hung in `stop`, at the end of the queue or at exit
/// (`ReelMPVTests.SinkTests` hung so once, in some 75 runs, before this).
/// `SDL_QuitSubSystem` already stops the callback under the lock, then waits
/// for the thread: the lock taken before is not needed.
///
/// The executable's definition comes first in the dynamic linker's search
/// for the name libmpv looks up (libmpv is linked, so the linker exports it).
@_cdecl("SDL_LockAudio")
public func reelSDLLockAudio() {}
