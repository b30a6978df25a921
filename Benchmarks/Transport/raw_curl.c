/* The native reference for the transport benchmark: libcurl driven straight from C, no Swift, no threads.
 * Sequential GETs reuse one easy handle (one keep-alive connection); the concurrent case keeps 8 transfers in
 * flight on one multi handle. Bodies are copied into memory, as every client under test does.
 *
 *   raw_curl BASE_URL [--requests N] [--inflight N] [--large N] [--reps N] [--warmup N]
 *
 * Prints the same RESULT line as transport-bench. A status other than 200 or a body of the wrong length stops
 * the run with exit code 1. Built by Benchmarks/transport.sh with `cc -O2 raw_curl.c -lcurl`.
 */
#include <curl/curl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SMALL_LENGTH 1024L
#define LARGE_LENGTH 1048576L
#define MAX_INFLIGHT 64

struct body {
    char *data;
    size_t length, capacity;
};

static size_t on_data(char *bytes, size_t size, size_t count, void *context) {
    struct body *body = context;
    size_t n = size * count;
    if (body->length + n > body->capacity) {
        size_t capacity = body->capacity ? body->capacity : 16384;
        while (capacity < body->length + n) capacity *= 2;
        char *data = realloc(body->data, capacity);
        if (!data) return 0; /* makes libcurl fail the transfer */
        body->data = data;
        body->capacity = capacity;
    }
    memcpy(body->data + body->length, bytes, n);
    body->length += n;
    return n;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void fail(const char *fmt, ...) {
    va_list arguments;
    va_start(arguments, fmt);
    fprintf(stderr, "raw_curl: error: ");
    vfprintf(stderr, fmt, arguments);
    fprintf(stderr, "\n");
    va_end(arguments);
    exit(1);
}

static void check(CURL *easy, CURLcode code, const struct body *body, const char *url, long expected) {
    long status = 0;
    if (code != CURLE_OK) fail("GET %s failed: %s", url, curl_easy_strerror(code));
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    if (status != 200 || (long)body->length != expected)
        fail("GET %s answered %ld with %ld bytes; expected 200 with %ld bytes", url, status, (long)body->length, expected);
}

static void configure(CURL *easy, const char *url, struct body *body) {
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, body);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
}

/* Seconds taken by `count` GETs of `url`, one after another on one reused easy handle. */
static double sequential(CURL *easy, const char *url, long expected, long count) {
    struct body body = {0};
    configure(easy, url, &body);
    double start = now();
    for (long i = 0; i < count; i++) {
        body.length = 0;
        check(easy, curl_easy_perform(easy), &body, url, expected);
    }
    double elapsed = now() - start;
    free(body.data);
    return elapsed;
}

/* Seconds taken by `count` GETs of `url` with `inflight` transfers under way at all times (until the last ones). */
static double concurrent(CURLM *multi, CURL **easies, long inflight, const char *url, long expected, long count) {
    struct body bodies[MAX_INFLIGHT] = {{0}};
    long started = 0, finished = 0;
    double start = now();
    for (long i = 0; i < inflight && started < count; i++, started++) {
        configure(easies[i], url, &bodies[i]);
        curl_easy_setopt(easies[i], CURLOPT_PRIVATE, &bodies[i]);
        curl_multi_add_handle(multi, easies[i]);
    }
    while (finished < count) {
        int running = 0, queued = 0, readded = 0;
        CURLMcode code = curl_multi_perform(multi, &running);
        if (code != CURLM_OK) fail("curl_multi_perform: %s", curl_multi_strerror(code));
        CURLMsg *message;
        while ((message = curl_multi_info_read(multi, &queued))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            struct body *body;
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&body);
            check(easy, message->data.result, body, url, expected);
            finished++;
            curl_multi_remove_handle(multi, easy);
            if (started < count) {
                body->length = 0;
                curl_multi_add_handle(multi, easy);
                started++;
                readded = 1;
            }
        }
        if (!readded && finished < count) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    double elapsed = now() - start;
    for (long i = 0; i < inflight; i++) free(bodies[i].data);
    return elapsed;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, long n) {
    qsort(values, (size_t)n, sizeof *values, compare);
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

static double best(const double *values, long n) {
    double m = values[0];
    for (long i = 1; i < n; i++) if (values[i] > m) m = values[i];
    return m;
}

int main(int argc, char **argv) {
    const char *base = NULL;
    long requests = 5000, inflight = 8, large = 200, reps = 3, warmup = 500;
    for (int i = 1; i < argc; i++) {
        long *target = NULL;
        if (!strcmp(argv[i], "--requests")) target = &requests;
        else if (!strcmp(argv[i], "--inflight")) target = &inflight;
        else if (!strcmp(argv[i], "--large")) target = &large;
        else if (!strcmp(argv[i], "--reps")) target = &reps;
        else if (!strcmp(argv[i], "--warmup")) target = &warmup;
        else if (!base) { base = argv[i]; continue; }
        if (!target || i + 1 >= argc || (*target = atol(argv[++i])) <= 0) base = NULL, i = argc;
    }
    if (!base || inflight > MAX_INFLIGHT || reps > 100) {
        fprintf(stderr, "usage: raw_curl BASE_URL [--requests N] [--inflight N<=%d] [--large N] [--reps N<=100] "
                        "[--warmup N]\n", MAX_INFLIGHT);
        return 2;
    }
    char small_url[1024], large_url[1024];
    snprintf(small_url, sizeof small_url, "%s/1k.bin", base);
    snprintf(large_url, sizeof large_url, "%s/1m.bin", base);

    curl_global_init(CURL_GLOBAL_DEFAULT);
    CURL *easy = curl_easy_init();
    CURLM *multi = curl_multi_init();
    CURL *easies[MAX_INFLIGHT];
    for (long i = 0; i < inflight; i++) easies[i] = curl_easy_init();

    fprintf(stderr, "raw libcurl: warm-up (%ld sequential, %ld with %ld in flight, 10 x 1 MB)\n", warmup, warmup,
            inflight);
    sequential(easy, small_url, SMALL_LENGTH, warmup);
    concurrent(multi, easies, inflight, small_url, SMALL_LENGTH, warmup);
    sequential(easy, large_url, LARGE_LENGTH, 10);

    double seq[100], conc[100], big[100];
    for (long rep = 0; rep < reps; rep++) {
        seq[rep] = (double)requests / sequential(easy, small_url, SMALL_LENGTH, requests);
        conc[rep] = (double)requests / concurrent(multi, easies, inflight, small_url, SMALL_LENGTH, requests);
        big[rep] = (double)large * LARGE_LENGTH / 1048576.0 / sequential(easy, large_url, LARGE_LENGTH, large);
        fprintf(stderr, "raw libcurl: rep %ld: sequential %.1f req/s, %ld in flight %.1f req/s, 1 MB %.1f MB/s\n",
                rep + 1, seq[rep], inflight, conc[rep], big[rep]);
    }
    double seq_best = best(seq, reps), conc_best = best(conc, reps), big_best = best(big, reps);
    printf("RESULT client=raw name=libcurl_%s seq=%.1f conc=%.1f large=%.1f seq_best=%.1f conc_best=%.1f "
           "large_best=%.1f\n",
           curl_version_info(CURLVERSION_NOW)->version, median(seq, reps), median(conc, reps), median(big, reps),
           seq_best, conc_best, big_best);

    for (long i = 0; i < inflight; i++) curl_easy_cleanup(easies[i]);
    curl_multi_cleanup(multi);
    curl_easy_cleanup(easy);
    curl_global_cleanup();
    return 0;
}
