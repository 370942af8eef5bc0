#ifndef REEL_MEDIASCAN_H
#define REEL_MEDIASCAN_H

#include <stdint.h>

// What libavformat finds in a media file, behind types of C's own: the
// duration, the audio format, the tags by layer, the chapters, whether a
// picture is embedded. Used by the scanner process (reel-scan) only.

struct reel_media_facts {
    /// The length in µs; -1 when the file does not say.
    int64_t duration_us;
    /// The file's first timestamp in µs (an MP3's encoder delay): mpv times chapters from it.
    int64_t start_us;
    int audio;
    /// A video stream that is not an embedded picture.
    int video;
    /// An embedded picture (a cover).
    int picture;
    /// Of the first audio stream; 0 when not known.
    int sample_rate;
    int channels;
    /// Bits per decoded sample; 0 for floating point; -1 when not known.
    int bits;
    /// Bits per second, as the container or the first frame says (0: not known).
    int64_t bit_rate;
    int chapters;
    /// Tag layers: each stream's that is not a picture, then the container's (a later layer wins).
    int layers;
    /// How sure libavformat was of the format (100: certain; 50: by the name's extension alone).
    int probe_score;
};

typedef struct reel_media reel_media;

/// Once per process: quiet logging, and no single allocation above `max_alloc` bytes.
void reel_media_init(int64_t max_alloc);

/// Opens and reads `path` (local files only), giving up after `timeout_ms` of
/// reading; NULL, with a reason in `error`, when libavformat cannot read it.
reel_media *reel_media_open(const char *path, int timeout_ms, char *error, int error_size);

void reel_media_get_facts(const reel_media *media, struct reel_media_facts *facts);

/// The tag of `layer` after `*cursor` (NULL for the first): 1 and its key and
/// value, or 0 when there are no more.
int reel_media_tag(const reel_media *media, int layer, const void **cursor, const char **key, const char **value);

/// Chapter `i`'s start in µs of the file's time (not less the first timestamp) and its title, or NULL.
void reel_media_chapter(const reel_media *media, int i, int64_t *start_us, const char **title);

void reel_media_close(reel_media *media);

#endif
