/* The reference for `Benchmarks/run.sh transfers`: the same OneDrive ranges as the OneDrive module sends, driven
 * from C with one libcurl easy handle and no checks beyond the status, so the ratio shows what the module's own
 * work costs (session handling, the state machine, the quickXorHash check of the whole file).
 *
 *   raw_transfer upload BASE TOKEN FILE NAME CHUNK     POST createUploadSession, then a PUT per range
 *   raw_transfer download BASE TOKEN NAME FILE CHUNK   a ranged GET of root:/NAME:/content per range (302 followed)
 *   raw_transfer latency BASE TOKEN COUNT              COUNT GETs of drive/root one after another, on one
 *                                                      kept-alive connection, then on a new connection each
 *
 * Prints `bytes=N seconds=S`, or for latency `kept_median_ms=… kept_p99_ms=… fresh_median_ms=… fresh_p99_ms=…`.
 * Exits non-zero, with a message, on any unexpected status. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct { char *data; size_t size; } Buffer;

static size_t collect(char *chunk, size_t one, size_t count, void *context) {
    Buffer *buffer = context;
    size_t size = one * count;
    char *grown = realloc(buffer->data, buffer->size + size + 1);
    if (!grown) return 0;
    memcpy(grown + buffer->size, chunk, size);
    buffer->data = grown;
    buffer->size += size;
    buffer->data[buffer->size] = 0;
    return size;
}

static size_t to_file(char *chunk, size_t one, size_t count, void *file) { return fwrite(chunk, one, count, file); }

static double now(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return time.tv_sec + time.tv_nsec / 1e9;
}

static void fail(const char *what, long status, const Buffer *body) {
    fprintf(stderr, "raw_transfer: %s answered %ld: %s\n", what, status, body && body->data ? body->data : "");
    exit(1);
}

/* The string value of "key" in a flat JSON answer; enough for the mock's uploadUrl. */
static char *string_member(const char *json, const char *key) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    const char *start = json ? strstr(json, pattern) : NULL;
    if (!start) return NULL;
    start += strlen(pattern);
    const char *end = strchr(start, '"');
    return end ? strndup(start, end - start) : NULL;
}

static long perform(CURL *curl) {
    long status = 0;
    CURLcode code = curl_easy_perform(curl);
    if (code != CURLE_OK) { fprintf(stderr, "raw_transfer: %s\n", curl_easy_strerror(code)); exit(1); }
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    return status;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* `count` sequential GETs of the drive's root; each one's time in milliseconds, sorted, into `times`. */
static void time_gets(CURL *curl, const char *url, long count, double *times) {
    Buffer body = {0};
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
    for (long index = 0; index < count; index++) {
        body.size = 0;
        double start = now();
        long status = perform(curl);
        times[index] = (now() - start) * 1000;
        if (status != 200) fail("GET drive/root", status, &body);
    }
    free(body.data);
    qsort(times, count, sizeof *times, by_value);
}

/* How long the mock takes to answer small requests one after another: the figure a test suite that uses it pays. */
static int latency(const char *base, const char *token, long count) {
    char url[4096], header[4096];
    snprintf(url, sizeof url, "%s/drive/root", base);
    snprintf(header, sizeof header, "Authorization: Bearer %s", token);
    struct curl_slist *headers = curl_slist_append(NULL, header);
    double *kept = calloc(count, sizeof *kept), *fresh = calloc(count, sizeof *fresh);
    CURL *curl = curl_easy_init();
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    time_gets(curl, url, count / 10 + 1, kept); /* warm-up */
    time_gets(curl, url, count, kept);
    curl_easy_setopt(curl, CURLOPT_FRESH_CONNECT, 1L);
    curl_easy_setopt(curl, CURLOPT_FORBID_REUSE, 1L);
    time_gets(curl, url, count, fresh);
    printf("kept_median_ms=%.3f kept_p99_ms=%.3f fresh_median_ms=%.3f fresh_p99_ms=%.3f\n", kept[count / 2],
           kept[count * 99 / 100], fresh[count / 2], fresh[count * 99 / 100]);
    curl_easy_cleanup(curl);
    curl_slist_free_all(headers);
    free(kept);
    free(fresh);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[1], "latency") == 0 && atol(argv[4]) > 0) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        return latency(argv[2], argv[3], atol(argv[4]));
    }
    if (argc != 7) {
        fprintf(stderr, "usage: raw_transfer upload BASE TOKEN FILE NAME CHUNK | download BASE TOKEN NAME FILE CHUNK | "
                        "latency BASE TOKEN COUNT\n");
        return 2;
    }
    const char *base = argv[2];
    long long chunk = atoll(argv[6]);
    char url[4096], header[4096], range[128];
    snprintf(header, sizeof header, "Authorization: Bearer %s", argv[3]);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    CURL *curl = curl_easy_init();
    long long total = 0;
    double start = now();

    if (strcmp(argv[1], "upload") == 0) {
        FILE *file = fopen(argv[4], "rb");
        if (!file) { perror(argv[4]); return 1; }
        fseek(file, 0, SEEK_END);
        total = ftell(file);
        fseek(file, 0, SEEK_SET);
        /* The session: POST with credentials to the API. */
        Buffer answer = {0};
        struct curl_slist *api = curl_slist_append(NULL, header);
        api = curl_slist_append(api, "Content-Type: application/json");
        snprintf(url, sizeof url, "%s/me/drive/root:/%s:/createUploadSession", base, argv[5]);
        curl_easy_setopt(curl, CURLOPT_URL, url);
        curl_easy_setopt(curl, CURLOPT_HTTPHEADER, api);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, "{\"item\":{\"@microsoft.graph.conflictBehavior\":\"replace\"}}");
        curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
        curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer);
        long status = perform(curl);
        char *upload_url = string_member(answer.data, "uploadUrl");
        if (status != 200 || !upload_url) fail("createUploadSession", status, &answer);
        /* The ranges: PUT without credentials to the storage host, one chunk in memory. */
        char *bytes = malloc(chunk);
        struct curl_slist *storage = NULL;
        for (long long offset = 0; offset < total; offset += chunk) {
            size_t length = fread(bytes, 1, chunk, file);
            curl_slist_free_all(storage);
            snprintf(range, sizeof range, "Content-Range: bytes %lld-%lld/%lld", offset, offset + (long long)length - 1,
                     total);
            storage = curl_slist_append(NULL, range);
            /* No `Expect: 100-continue` (libcurl's default for large bodies): the client does not send one either. */
            storage = curl_slist_append(storage, "Expect:");
            answer.size = 0;
            curl_easy_setopt(curl, CURLOPT_URL, upload_url);
            curl_easy_setopt(curl, CURLOPT_HTTPHEADER, storage);
            curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "PUT");
            curl_easy_setopt(curl, CURLOPT_POSTFIELDS, bytes);
            curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)length);
            status = perform(curl);
            if (status != 202 && status != 200 && status != 201) fail("a range", status, &answer);
        }
        fclose(file);
    } else {
        /* The size, then a ranged GET per chunk; each answers 302 to the storage host, followed without the
         * Authorization header (libcurl drops it on another host). */
        Buffer answer = {0};
        struct curl_slist *api = curl_slist_append(NULL, header);
        snprintf(url, sizeof url, "%s/me/drive/root:/%s:", base, argv[4]);
        curl_easy_setopt(curl, CURLOPT_URL, url);
        curl_easy_setopt(curl, CURLOPT_HTTPHEADER, api);
        curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
        curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer);
        long status = perform(curl);
        const char *size = answer.data ? strstr(answer.data, "\"size\":") : NULL;
        if (status != 200 || !size) fail("the item", status, &answer);
        total = atoll(size + 7);
        FILE *file = fopen(argv[5], "wb");
        if (!file) { perror(argv[5]); return 1; }
        snprintf(url, sizeof url, "%s/me/drive/root:/%s:/content", base, argv[4]);
        curl_easy_setopt(curl, CURLOPT_URL, url);
        curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
        curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, to_file);
        curl_easy_setopt(curl, CURLOPT_WRITEDATA, file);
        for (long long offset = 0; offset < total; offset += chunk) {
            long long last = offset + chunk < total ? offset + chunk - 1 : total - 1;
            snprintf(range, sizeof range, "%lld-%lld", offset, last);
            curl_easy_setopt(curl, CURLOPT_RANGE, range);
            status = perform(curl);
            if (status != 206) fail("a range", status, NULL);
        }
        fclose(file);
    }
    printf("bytes=%lld seconds=%f\n", total, now() - start);
    curl_easy_cleanup(curl);
    curl_global_cleanup();
    return 0;
}
