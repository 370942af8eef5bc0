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
// Opens a file for writes that bypass the page cache (O_DIRECT, also _GNU_SOURCE only).
static inline int reel_open_direct(const char *path) {
    return open(path, O_WRONLY | O_DIRECT | O_CLOEXEC);
}
#include <pthread.h>
// Names the calling thread (15 bytes at most), as ps and top show it.
static inline void reel_name_thread(const char *name) {
    pthread_setname_np(pthread_self(), name);
}
#include <sys/ioctl.h>
#include <linux/sockios.h>
// Bytes waiting in a pipe (either end) or unread in a socket.
static inline int reel_bytes_queued(int fd) {
    int n = 0;
    return ioctl(fd, FIONREAD, &n) == 0 ? n : -1;
}
// Bytes a TCP socket has not had acknowledged yet.
static inline int reel_bytes_unsent(int fd) {
    int n = 0;
    return ioctl(fd, SIOCOUTQ, &n) == 0 ? n : -1;
}
// A pipe's capacity; the kernel rounds it up to a page (and refuses to shrink below what it holds).
static inline int reel_set_pipe_size(int fd, int size) {
    return fcntl(fd, F_SETPIPE_SZ, size);
}
#include <malloc.h>
// Large blocks (at least `bytes`) get mappings of their own, returned when freed, always:
// glibc otherwise raises the threshold after the first such block is freed.
static inline void reel_map_large_blocks(int bytes) {
    mallopt(M_MMAP_THRESHOLD, bytes);
}
#include <sys/prctl.h>
// How late the kernel may end the calling thread's timed waits, in ns (50,000 by default).
static inline int reel_set_timer_slack(unsigned long nanoseconds) {
    return prctl(PR_SET_TIMERSLACK, nanoseconds, 0, 0, 0);
}
#include <signal.h>
// The calling process gets SIGKILL when the thread that started it ends (a helper that hangs
// in a library call must not outlive the daemon, which may have been killed).
static inline int reel_die_with_parent(void) {
    return prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
}
#include <sys/inotify.h>
#include <unistd.h>
// A pipe whose ends no program started later inherits (pipe2 is _GNU_SOURCE only).
static inline int reel_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}
