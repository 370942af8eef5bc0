#include "mediascan.h"
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/log.h>
#include <libavutil/mem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct reel_media {
    AVFormatContext *context;
    /// The deadline the interrupt callback checks (it must outlive the context).
    int64_t deadline_ms;
    /// Each tag layer's stream, -1 for the container's.
    int layer_streams[64];
    struct reel_media_facts facts;
};

static int64_t now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int interrupted(void *opaque) {
    return now_ms() > *(const int64_t *)opaque;
}

void reel_media_init(int64_t max_alloc) {
    av_log_set_level(AV_LOG_QUIET);
    if (max_alloc > 0) av_max_alloc((size_t)max_alloc);
}

static int is_picture(const AVStream *stream) {
    return (stream->disposition & AV_DISPOSITION_ATTACHED_PIC) != 0;
}

static int64_t to_us(int64_t value, AVRational base) {
    return av_rescale_q(value, base, AV_TIME_BASE_Q);
}

/// The longest stream that is not a picture, in µs; -1 when none says.
static int64_t streams_duration(const AVFormatContext *ic) {
    int64_t longest = -1;
    for (unsigned i = 0; i < ic->nb_streams; i++) {
        const AVStream *st = ic->streams[i];
        if (is_picture(st) || st->duration == AV_NOPTS_VALUE || st->duration <= 0) continue;
        int64_t us = to_us(st->duration, st->time_base);
        if (us > longest) longest = us;
    }
    return longest;
}

/// The earliest stream start that is not a picture's, in µs; 0 when none says.
static int64_t streams_start(const AVFormatContext *ic) {
    if (ic->start_time != AV_NOPTS_VALUE) return ic->start_time;
    int64_t earliest = INT64_MAX;
    for (unsigned i = 0; i < ic->nb_streams; i++) {
        const AVStream *st = ic->streams[i];
        if (is_picture(st) || st->start_time == AV_NOPTS_VALUE) continue;
        int64_t us = to_us(st->start_time, st->time_base);
        if (us < earliest) earliest = us;
    }
    return earliest == INT64_MAX ? 0 : earliest;
}

static const AVStream *first_audio(const AVFormatContext *ic) {
    for (unsigned i = 0; i < ic->nb_streams; i++) {
        if (ic->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_AUDIO) return ic->streams[i];
    }
    return NULL;
}

static void describe(reel_media *m) {
    const AVFormatContext *ic = m->context;
    struct reel_media_facts *f = &m->facts;
    for (unsigned i = 0; i < ic->nb_streams; i++) {
        const AVStream *st = ic->streams[i];
        if (is_picture(st)) {
            f->picture = 1;
            continue;
        }
        if (st->codecpar->codec_type == AVMEDIA_TYPE_AUDIO) f->audio = 1;
        if (st->codecpar->codec_type == AVMEDIA_TYPE_VIDEO) f->video = 1;
        if (f->layers < 63) m->layer_streams[f->layers++] = (int)i;
    }
    m->layer_streams[f->layers++] = -1;
    f->duration_us = ic->duration != AV_NOPTS_VALUE && ic->duration > 0 ? ic->duration : streams_duration(ic);
    f->start_us = streams_start(ic);
    f->chapters = (int)ic->nb_chapters;
    f->probe_score = ic->probe_score;
    f->bit_rate = ic->bit_rate > 0 ? ic->bit_rate : 0;
    f->bits = -1;
    const AVStream *audio = first_audio(ic);
    if (!audio) return;
    const AVCodecParameters *p = audio->codecpar;
    f->sample_rate = p->sample_rate;
    f->channels = p->ch_layout.nb_channels;
    if (p->bit_rate > 0) f->bit_rate = p->bit_rate;
    // Before anything is decoded a compressed stream has no sample format: a lossless one says
    // its bits (WavPack's decoder lists float first, whatever the file holds); else its
    // decoder's first format is what it decodes to.
    int format = p->format;
    const AVCodecDescriptor *codec = avcodec_descriptor_get(p->codec_id);
    int lossless = codec && (codec->props & AV_CODEC_PROP_LOSSLESS);
    int stated = p->bits_per_raw_sample > 0 ? p->bits_per_raw_sample : lossless ? p->bits_per_coded_sample : 0;
    if (format < 0 && stated > 0) {
        f->bits = stated;
        return;
    }
    if (format < 0) {
        const AVCodec *decoder = avcodec_find_decoder(p->codec_id);
        if (decoder && decoder->sample_fmts) format = decoder->sample_fmts[0];
    }
    if (format >= 0 && av_sample_fmt_is_planar(format)) format = av_get_packed_sample_fmt(format);
    if (format == AV_SAMPLE_FMT_FLT || format == AV_SAMPLE_FMT_DBL) {
        f->bits = 0;
    } else if (p->bits_per_raw_sample > 0) {
        f->bits = p->bits_per_raw_sample;
    } else if (format >= 0) {
        f->bits = av_get_bytes_per_sample(format) * 8;
    }
}

/// Whether the header alone leaves something out that reading the first packets finds.
static int needs_stream_info(const reel_media *m) {
    const struct reel_media_facts *f = &m->facts;
    // Chapters are timed from the first timestamp, which only the packets give exactly.
    return f->duration_us <= 0 || f->chapters > 0 || (!f->audio && !f->video)
        || (f->audio && (f->sample_rate <= 0 || f->channels <= 0));
}

static void fail(char *error, int size, const char *what, int code) {
    char reason[128];
    if (code == AVERROR_EXIT) {
        snprintf(reason, sizeof reason, "took too long to read");
    } else if (av_strerror(code, reason, sizeof reason) < 0) {
        snprintf(reason, sizeof reason, "error %d", code);
    }
    snprintf(error, (size_t)size, "%s%s", what, reason);
}

reel_media *reel_media_open(const char *path, int timeout_ms, char *error, int error_size) {
    reel_media *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(error, (size_t)error_size, "out of memory");
        return NULL;
    }
    m->deadline_ms = now_ms() + timeout_ms;
    AVFormatContext *ic = avformat_alloc_context();
    if (!ic) {
        free(m);
        snprintf(error, (size_t)error_size, "out of memory");
        return NULL;
    }
    ic->interrupt_callback.callback = interrupted;
    ic->interrupt_callback.opaque = &m->deadline_ms;
    // The file protocol only: a name is never read as another protocol ("concat:…", "http:…").
    size_t length = strlen(path);
    char *url = malloc(length + 6);
    if (!url) {
        avformat_free_context(ic);
        free(m);
        snprintf(error, (size_t)error_size, "out of memory");
        return NULL;
    }
    memcpy(url, "file:", 5);
    memcpy(url + 5, path, length + 1);
    AVDictionary *options = NULL;
    av_dict_set(&options, "protocol_whitelist", "file", 0);
    int rc = avformat_open_input(&ic, url, NULL, &options);
    av_dict_free(&options);
    free(url);
    if (rc < 0) {
        free(m);   // avformat_open_input freed the context
        fail(error, error_size, "", rc);
        return NULL;
    }
    m->context = ic;
    describe(m);
    if (needs_stream_info(m)) {
        rc = avformat_find_stream_info(ic, NULL);
        // Other failures leave what the header said (ffprobe goes on too).
        if (rc == AVERROR_EXIT) {
            reel_media_close(m);
            fail(error, error_size, "", rc);
            return NULL;
        }
        memset(&m->facts, 0, sizeof m->facts);
        describe(m);
    }
    return m;
}

void reel_media_get_facts(const reel_media *media, struct reel_media_facts *facts) {
    *facts = media->facts;
}

int reel_media_tag(const reel_media *media, int layer, const void **cursor, const char **key, const char **value) {
    if (layer < 0 || layer >= media->facts.layers) return 0;
    int stream = media->layer_streams[layer];
    const AVDictionary *tags = stream < 0 ? media->context->metadata : media->context->streams[stream]->metadata;
    const AVDictionaryEntry *entry = av_dict_get(tags, "", (const AVDictionaryEntry *)*cursor, AV_DICT_IGNORE_SUFFIX);
    if (!entry) return 0;
    *cursor = entry;
    *key = entry->key;
    *value = entry->value;
    return 1;
}

void reel_media_chapter(const reel_media *media, int i, int64_t *start_us, const char **title) {
    const AVChapter *chapter = media->context->chapters[i];
    *start_us = to_us(chapter->start, chapter->time_base);
    const AVDictionaryEntry *entry = av_dict_get(chapter->metadata, "title", NULL, 0);
    *title = entry ? entry->value : NULL;
}

void reel_media_close(reel_media *media) {
    if (!media) return;
    avformat_close_input(&media->context);
    free(media);
}
