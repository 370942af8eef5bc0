// Linux interfaces that Swift's Glibc module leaves out.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/timerfd.h>
#include <fcntl.h>
// sync_file_range needs _GNU_SOURCE, which Swift's Glibc module is built without.
static inline int reel_start_writeback(int fd, long long offset, long long count) {
    return sync_file_range(fd, offset, count, SYNC_FILE_RANGE_WRITE);
}
#include <pthread.h>
// Names the calling thread (15 bytes at most), as ps and top show it.
static inline void reel_name_thread(const char *name) {
    pthread_setname_np(pthread_self(), name);
}
