#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call.
static inline CURLcode reel_curl_set_long(CURL *curl, CURLoption option, long value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode reel_curl_set_string(CURL *curl, CURLoption option, const char *value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode reel_curl_set_pointer(CURL *curl, CURLoption option, void *value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode reel_curl_set_list(CURL *curl, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(curl, option, value);
}
typedef size_t (*reel_curl_data_fn)(char *data, size_t size, size_t count, void *context);
static inline CURLcode reel_curl_set_data_fn(CURL *curl, CURLoption option, reel_curl_data_fn fn) {
    return curl_easy_setopt(curl, option, fn);
}
static inline long reel_curl_response_code(CURL *curl) {
    long code = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
    return code;
}

#include <sys/socket.h>
// A fixed receive buffer: what the server has sent but we have not read is
// lost when a transfer is cut short (a seek elsewhere), and the kernel's
// autotuning lets that grow to megabytes. 256 KiB still carries 40 Mbit/s at 50 ms.
static int reel_curl_fixed_rcvbuf(void *context, curl_socket_t fd, curlsocktype purpose) {
    (void)context; (void)purpose;
    int size = 256 * 1024;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    return CURL_SOCKOPT_OK;
}
static inline CURLcode reel_curl_fix_receive_buffer(CURL *curl) {
    return curl_easy_setopt(curl, CURLOPT_SOCKOPTFUNCTION, reel_curl_fixed_rcvbuf);
}
