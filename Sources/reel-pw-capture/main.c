// reel-pw-capture: records a PipeWire sink's monitor as mono s16 PCM at 48 kHz, each buffer
// preceded by the graph's own time for it, so that the tests place every sample by the clock the
// graph ran on rather than by when the recorder happened to read it (pw-record's output carries
// no time). Used by the test harness only.
//
// Output, repeated: a header of 8 little-endian int64 (magic, now_ns, ticks, rate_num, rate_denom,
// delay, buffered, bytes), then `bytes` bytes of samples. `now_ns` is CLOCK_MONOTONIC, as reel's
// own clock; delay and buffered are in rate_num/rate_denom seconds (pw_time's fields), and
// buffered also counts the samples of buffers taken in the same cycle after this one.
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pipewire/pipewire.h>
#include <spa/param/audio/format-utils.h>

#define MAGIC 0x5245454c50574331LL   /* "REELPWC1" */

// The graph's thread must never wait on our pipe (a blocked cycle would be heard by everything in
// the graph): it copies each buffer into this ring, and a thread of ours writes it out.
#define RING_BYTES (16u << 20)

struct capture {
    struct pw_main_loop *loop;
    struct pw_stream *stream;
    char *ring;
    _Atomic uint64_t written;   // bytes the graph's thread put in, ever
    _Atomic uint64_t read;      // bytes the writer took out, ever
    _Atomic int done;
    _Atomic uint64_t dropped;
};

static void ring_put(struct capture *c, const void *bytes, size_t count) {
    uint64_t w = atomic_load_explicit(&c->written, memory_order_relaxed);
    for (size_t i = 0; i < count; i++) c->ring[(w + i) % RING_BYTES] = ((const char *)bytes)[i];
    atomic_store_explicit(&c->written, w + count, memory_order_release);
}

static int write_all(const void *bytes, size_t count) {
    const char *p = bytes;
    while (count > 0) {
        ssize_t n = write(STDOUT_FILENO, p, count);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n;
        count -= (size_t)n;
    }
    return 0;
}

static void on_process(void *userdata) {
    struct capture *c = userdata;
    // Every buffer waiting is taken: a backlog left in the stream would make each buffer read
    // later than its cycle, by a whole number of cycles that differs from run to run. The last one
    // is this cycle's; each before it played that many samples earlier.
    struct pw_buffer *buffers[32];
    uint32_t count = 0;
    while (count < 32 && (buffers[count] = pw_stream_dequeue_buffer(c->stream)) != NULL) count++;
    if (count == 0) return;
    struct pw_time t;
    memset(&t, 0, sizeof t);
    pw_stream_get_time_n(c->stream, &t, sizeof t);
    int64_t sizes[32];
    for (uint32_t i = 0; i < count; i++) {
        struct spa_data *d = &buffers[i]->buffer->datas[0];
        sizes[i] = (d->data != NULL && d->chunk != NULL) ? SPA_MIN(d->chunk->size, d->maxsize - SPA_MIN(d->chunk->offset, d->maxsize)) : 0;
    }
    int64_t after = 0;   // samples (2 bytes each) in the buffers after the one being written
    for (uint32_t j = 1; j < count; j++) after += sizes[j] / 2;
    for (uint32_t i = 0; i < count; i++) {
        struct spa_data *d = &buffers[i]->buffer->datas[0];
        if (sizes[i] > 0) {
            uint32_t offset = SPA_MIN(d->chunk->offset, d->maxsize);
            // pw_time's rate is 1/48000 here (the stream's rate): samples and ticks are one unit.
            int64_t header[8] = { MAGIC, t.now, (int64_t)t.ticks, t.rate.num, t.rate.denom, t.delay,
                                  (int64_t)t.buffered + after, sizes[i] };
            uint64_t used = atomic_load_explicit(&c->written, memory_order_relaxed)
                - atomic_load_explicit(&c->read, memory_order_acquire);
            if (used + sizeof header + (uint64_t)sizes[i] <= RING_BYTES) {
                ring_put(c, header, sizeof header);
                ring_put(c, (char *)d->data + offset, (size_t)sizes[i]);
            } else {
                atomic_fetch_add(&c->dropped, 1);   // told at the end: the recording is then incomplete
            }
        }
        if (i + 1 < count) after -= sizes[i + 1] / 2;
        pw_stream_queue_buffer(c->stream, buffers[i]);
    }
}

static const struct pw_stream_events events = {
    PW_VERSION_STREAM_EVENTS,
    .process = on_process,
};

static void *writer(void *userdata) {
    struct capture *c = userdata;
    char chunk[65536];
    for (;;) {
        uint64_t r = atomic_load_explicit(&c->read, memory_order_relaxed);
        uint64_t w = atomic_load_explicit(&c->written, memory_order_acquire);
        if (w == r) {
            if (atomic_load(&c->done)) return NULL;
            usleep(2000);
            continue;
        }
        size_t n = (size_t)SPA_MIN(w - r, (uint64_t)sizeof chunk);
        for (size_t i = 0; i < n; i++) chunk[i] = c->ring[(r + i) % RING_BYTES];
        if (write_all(chunk, n) < 0) {
            atomic_store(&c->done, 1);
            pw_main_loop_quit(c->loop);
            return NULL;
        }
        atomic_store_explicit(&c->read, r + n, memory_order_release);
    }
}

static void on_signal(void *userdata, int signal_number) {
    (void)signal_number;
    pw_main_loop_quit(((struct capture *)userdata)->loop);
}

int main(int argc, char *argv[]) {
    if (argc != 3) {
        fprintf(stderr, "usage: reel-pw-capture SINK-NODE-NAME LATENCY-SAMPLES\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    pw_init(&argc, &argv);
    static struct capture c;
    c.ring = malloc(RING_BYTES);
    if (c.ring == NULL) {
        fprintf(stderr, "reel-pw-capture: out of memory\n");
        return 1;
    }
    c.loop = pw_main_loop_new(NULL);
    if (c.loop == NULL) {
        fprintf(stderr, "reel-pw-capture: cannot make a main loop\n");
        return 1;
    }
    pw_loop_add_signal(pw_main_loop_get_loop(c.loop), SIGINT, on_signal, &c);
    pw_loop_add_signal(pw_main_loop_get_loop(c.loop), SIGTERM, on_signal, &c);
    char latency[64];
    snprintf(latency, sizeof latency, "%s/48000", argv[2]);
    struct pw_properties *props = pw_properties_new(
        PW_KEY_MEDIA_TYPE, "Audio", PW_KEY_MEDIA_CATEGORY, "Capture", PW_KEY_MEDIA_ROLE, "Production",
        PW_KEY_TARGET_OBJECT, argv[1], PW_KEY_STREAM_CAPTURE_SINK, "true", PW_KEY_NODE_LATENCY, latency,
        PW_KEY_NODE_NAME, "reel-pw-capture", NULL);
    c.stream = pw_stream_new_simple(pw_main_loop_get_loop(c.loop), "reel-pw-capture", props, &events, &c);
    if (c.stream == NULL) {
        fprintf(stderr, "reel-pw-capture: cannot make a stream\n");
        return 1;
    }
    uint8_t buffer[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(buffer, sizeof buffer);
    const struct spa_pod *params[1];
    struct spa_audio_info_raw info = { .format = SPA_AUDIO_FORMAT_S16_LE, .rate = 48000, .channels = 1 };
    info.position[0] = SPA_AUDIO_CHANNEL_MONO;
    params[0] = spa_format_audio_raw_build(&builder, SPA_PARAM_EnumFormat, &info);
    if (pw_stream_connect(c.stream, PW_DIRECTION_INPUT, PW_ID_ANY,
                          PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS | PW_STREAM_FLAG_RT_PROCESS,
                          params, 1) < 0) {
        fprintf(stderr, "reel-pw-capture: cannot connect to %s\n", argv[1]);
        return 1;
    }
    pthread_t thread;
    pthread_create(&thread, NULL, writer, &c);
    pw_main_loop_run(c.loop);
    pw_stream_destroy(c.stream);
    atomic_store(&c.done, 1);
    pthread_join(thread, NULL);
    if (c.dropped > 0) fprintf(stderr, "reel-pw-capture: %llu buffers dropped\n", (unsigned long long)c.dropped);
    pw_main_loop_destroy(c.loop);
    pw_deinit();
    return 0;
}
