// libavformat, for the C target that wraps it (CMediaScan), which only the scanner
// process (reel-scan) links: a demuxer that crashes or hangs takes that process down,
// never reeld.
#include <libavformat/avformat.h>
