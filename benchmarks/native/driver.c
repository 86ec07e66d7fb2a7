/* The benchmark's C driver: nzrsky's C++ fork of Google's robots.txt parser (the shared
 * library the fast-robotstxt package installs, robotstxt/librobots.so) called through its C
 * API with no binding between, and the memchr line scan over the same bodies.
 *
 *     driver MODE CASES [PASSES]
 *
 * CASES is the file bench_native.write_cases makes (see there): bodies and their queries.
 * MODE is one of
 *   first    per file, a matcher, the file's first query (parse + first query), the matcher freed
 *   cold     per file, a matcher, every query of the file (each call re-parses the body)
 *   scan     per file, line_scan (memchr) over the body
 *   answers  per file and query, "0" or "1" on a line of its own (no timing)
 * A timing mode makes one untimed pass, then PASSES timed passes (default 1), and prints
 * the CPU seconds of each pass (clock_gettime(CLOCK_PROCESS_CPUTIME_ID)) on a line.
 *
 * The package installs no header for its C API: the three functions used are declared
 * below as its Python binding (robotstxt/robots.py) declares them to ctypes.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "line_scan.h"

typedef struct robots_matcher robots_matcher;
robots_matcher *robots_matcher_create(void);
void robots_matcher_free(robots_matcher *matcher);
bool robots_allowed_by_robots(robots_matcher *matcher, const char *body, size_t body_len,
                              const char *agent, size_t agent_len, const char *url,
                              size_t url_len);

typedef struct {
    const char *agent, *url;
    size_t agent_len, url_len;
} query;

typedef struct {
    const char *body;
    size_t len;
    size_t nq;
    query *q;
} file_case;

static volatile size_t sink;  /* what each pass found, so that no pass is optimised away */

static void die(const char *what) {
    fprintf(stderr, "driver: %s\n", what);
    exit(2);
}

static char *read_all(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0)
        die("cannot read the cases file");
    buf = malloc((size_t)n + 1);
    if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n)
        die("cannot read the cases file");
    fclose(f);
    buf[n] = 0;
    *size = (size_t)n;
    return buf;
}

/* "<a> <b>\n" at *at; advances past the line */
static void two_numbers(char **at, const char *end, size_t *a, size_t *b) {
    char *p = *at;
    if (p >= end)
        die("cases file cut short");
    *a = strtoul(p, &p, 10);
    if (*p != ' ')
        die("cases file: bad header line");
    *b = strtoul(p + 1, &p, 10);
    if (*p != '\n')
        die("cases file: bad header line");
    *at = p + 1;
}

static file_case *load(const char *path, size_t *nfiles) {
    size_t size, n, version, i, k;
    char *buf = read_all(path, &size), *p = buf, *end = buf + size;
    file_case *files;
    /* "robotrules-cases <version> <files>\n" */
    if (sscanf(buf, "robotrules-cases %zu %zu", &version, &n) != 2 || version != 1 ||
        (p = memchr(buf, '\n', size)) == NULL)
        die("not a cases file (version 1)");
    p++;
    files = calloc(n ? n : 1, sizeof(file_case));
    if (files == NULL)
        die("out of memory");
    for (i = 0; i < n; i++) {
        file_case *fc = &files[i];
        two_numbers(&p, end, &fc->len, &fc->nq);
        if ((size_t)(end - p) < fc->len + 1)
            die("cases file cut short");
        fc->body = p;
        p += fc->len + 1;
        fc->q = calloc(fc->nq ? fc->nq : 1, sizeof(query));
        if (fc->q == NULL)
            die("out of memory");
        for (k = 0; k < fc->nq; k++) {
            query *q = &fc->q[k];
            two_numbers(&p, end, &q->agent_len, &q->url_len);
            if ((size_t)(end - p) < q->agent_len + q->url_len + 1)
                die("cases file cut short");
            q->agent = p;
            q->url = p + q->agent_len;
            p += q->agent_len + q->url_len + 1;
        }
    }
    *nfiles = n;
    return files;
}

static size_t ask(const file_case *fc, size_t nq, FILE *out) {
    robots_matcher *m = robots_matcher_create();
    size_t allowed = 0, k;
    if (m == NULL)
        die("robots_matcher_create failed");
    for (k = 0; k < nq; k++) {
        bool yes = robots_allowed_by_robots(m, fc->body, fc->len, fc->q[k].agent,
                                            fc->q[k].agent_len, fc->q[k].url, fc->q[k].url_len);
        allowed += yes;
        if (out != NULL)
            fputs(yes ? "1\n" : "0\n", out);
    }
    robots_matcher_free(m);
    return allowed;
}

static void pass(const file_case *files, size_t n, char mode) {
    size_t i, total = 0;
    for (i = 0; i < n; i++) {
        const file_case *fc = &files[i];
        if (mode == 's')
            total += line_scan(fc->body, fc->len);
        else if (fc->nq)
            total += ask(fc, mode == 'f' ? 1 : fc->nq, NULL);
    }
    sink = total;
}

static double cpu_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    size_t n, i;
    long passes;
    char mode;
    file_case *files;
    if (argc < 3 || argc > 4)
        die("usage: driver first|cold|scan|answers CASES [PASSES]");
    if (strcmp(argv[1], "first") == 0 || strcmp(argv[1], "cold") == 0 ||
        strcmp(argv[1], "scan") == 0 || strcmp(argv[1], "answers") == 0)
        mode = argv[1][0];
    else
        die("MODE is first, cold, scan or answers");
    passes = argc == 4 ? strtol(argv[3], NULL, 10) : 1;
    if (passes < 1)
        die("PASSES is a positive number");
    files = load(argv[2], &n);
    if (mode == 'a') {
        for (i = 0; i < n; i++)
            ask(&files[i], files[i].nq, stdout);
        return 0;
    }
    pass(files, n, mode);  /* untimed: the pages and caches a pass needs */
    for (; passes > 0; passes--) {
        double t0 = cpu_now();
        pass(files, n, mode);
        printf("%.9f\n", cpu_now() - t0);
    }
    return 0;
}
