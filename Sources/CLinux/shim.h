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
