/*
 * Errors: the message of the last failure on this thread, and the two ways a
 * message reaches stderr (a report the program survives, a fatal one).
 */
#include "rj_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static _Thread_local char rj_error_buf[512];

void rj_set_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rj_error_buf, sizeof rj_error_buf, fmt, ap);
    va_end(ap);
}

const char *rj_last_error(void) { return rj_error_buf; }

/* One write(2) for the message and its newline, so that lines from several
 * threads do not interleave. */
static void rj_write_line(const char *msg) {
    size_t n = strlen(msg);
    char small[512];
    char *line = n + 1 <= sizeof small ? small : malloc(n + 1);
    if (!line) {
        fputs(msg, stderr);
        fputc('\n', stderr);
        return;
    }
    memcpy(line, msg, n);
    line[n] = '\n';
    size_t done = 0;
    while (done < n + 1) {
        ssize_t w = write(STDERR_FILENO, line + done, n + 1 - done);
        if (w <= 0) break;
        done += (size_t)w;
    }
    if (line != small) free(line);
}

void rj_report(const char *msg) {
    fflush(stderr);
    rj_write_line(msg);
}

void rj_fatal(const char *msg) {
    rj_report(msg);
    abort();
}
