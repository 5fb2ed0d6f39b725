/*
 * The harness the C core's tests share (the _test.c files of this folder, run
 * by main.c): the check counters and CHECK, the coroutine bodies several files use,
 * and in_child, which runs a test that must abort in a forked process.
 *
 * Each test file has its entry points declared here; main.c calls them in a
 * fixed order, the one the checks were written for (the stack pool, the slabs and
 * the shared run stacks carry state from one test to the next).
 */
#ifndef CTEST_H
#define CTEST_H

#include "CRJContext.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Defined in main.c. */
extern int passed, failed;

#define CHECK(cond, ...)                                     \
    do {                                                     \
        if (cond) {                                          \
            passed++;                                        \
        } else {                                             \
            failed++;                                        \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);      \
            printf(__VA_ARGS__);                             \
            printf("\n");                                    \
        }                                                    \
    } while (0)

/* ---- A counting coroutine -------------------------------------------- */

typedef struct {
    rj_coro *self;
    long value;
    long limit;
} counter;

static inline void count_entry(void *arg) {
    counter *c = arg;
    for (long i = 0; i < c->limit; i++) {
        c->value = i;
        rj_coro_suspend(c->self);
    }
    c->value = -1;
}

static inline void noop_entry(void *arg) { (void)arg; }

/* ---- A coroutine that keeps 4.8 KB of locals across a suspension ------ */

typedef struct {
    rj_coro *self;
    long seed;
    long sum;
} marker;

/* Fills a local array from its seed, suspends, then sums it: a stack whose pages were given
 * back, or written to, while it was suspended gives another sum. */
static inline void marker_entry(void *arg) {
    marker *m = arg;
    volatile long local[600];
    for (int i = 0; i < 600; i++) local[i] = m->seed * 1000 + i;
    rj_coro_suspend(m->self);
    long sum = 0;
    for (int i = 0; i < 600; i++) sum += local[i];
    m->sum = sum;
}

static inline long marker_expected(long seed) { return seed * 1000 * 600 + 599 * 600 / 2; }

/* ---- Tests that must abort ----------------------------------------------- */

/* Runs child() in a forked process; returns its wait status, and its stderr in buf.
 * Defined in main.c. */
int in_child(void (*child)(rj_backend), rj_backend backend, char *buf, size_t size);

/* A body that recurses until it overflows its stack. Defined in overflow_test.c. */
void overflow_entry(void *arg);

/* ---- Entry points, in the order main() calls them ---------------------- */

void switch_tests(rj_backend backend);   /* switch_test.c: per backend */
void overflow_tests(rj_backend backend); /* overflow_test.c: per backend */
void nesting_tests(void);                /* switch_test.c */
void stack_tests(void);                  /* stack_test.c */
void shared_tests(void);                 /* shared_test.c */
void id_tests(void);                     /* switch_test.c */
void registry_tests(void);               /* registry_test.c */
void inspect_tests(void);                /* inspect_test.c */
void protection_tests(void);             /* protection_test.c */

#endif
