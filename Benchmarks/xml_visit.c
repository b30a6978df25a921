// The reference for generation speed: libxml2's streaming reader visiting every node of a file, nothing else.
// Prints the median of N runs in milliseconds.
#include <libxml/xmlreader.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: xml_visit FILE RUNS\n"); return 2; }
    int runs = atoi(argv[2]);
    double *times = calloc(runs, sizeof(double));
    long nodes = 0;
    for (int i = 0; i < runs; i++) {
        double start = now_ms();
        xmlTextReaderPtr reader = xmlReaderForFile(argv[1], NULL, XML_PARSE_NONET);
        if (!reader) { fprintf(stderr, "cannot open %s\n", argv[1]); return 1; }
        nodes = 0;
        while (xmlTextReaderRead(reader) == 1) nodes++;
        xmlFreeTextReader(reader);
        times[i] = now_ms() - start;
    }
    qsort(times, runs, sizeof(double), compare);
    printf("%.1f %ld\n", times[runs / 2], nodes);
    return 0;
}
