#include <mpv/client.h>
#include <mpv/stream_cb.h>
