/* The line-scan baseline of the benchmark's "limit": the number of lines in a body, found
 * with memchr (the C library's vectorised byte search), one pass over every byte and no
 * object made. Shared by the C driver (driver.c) and robotrules' Cython driver
 * (rr_driver.pyx), so both time the same loop. */
#ifndef ROBOTRULES_BENCH_LINE_SCAN_H
#define ROBOTRULES_BENCH_LINE_SCAN_H

#include <stddef.h>
#include <string.h>

static inline size_t line_scan(const char *p, size_t n) {
    const char *end = p + n;
    size_t lines = 0;
    const char *nl;
    while (p < end && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        lines++;
        p = nl + 1;
    }
    return lines + (p < end);
}

#endif
