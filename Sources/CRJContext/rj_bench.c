/*
 * The benchmark floor: round trips of the bare switch of each backend, with
 * none of rj_coro_resume's bookkeeping (Swift state, tools, current
 * coroutine), to show what a generator's round trip costs on top.
 */
#include "rj_internal.h"

#include <time.h>

typedef struct {
    rj_coro *self;
    volatile int stop;
} rj_bench_ctx;

#if RJ_HAVE_FAST
static void rj_bench_fast_entry(void *arg) {
    rj_bench_ctx *ctx = arg;
    while (!ctx->stop) rj_switch(&ctx->self->sp, ctx->self->caller_sp);
}
#endif

static void rj_bench_uc_entry(void *arg) {
    rj_bench_ctx *ctx = arg;
    while (!ctx->stop) swapcontext(&ctx->self->uc, &ctx->self->caller_uc);
}

static double rj_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double rj_bench_raw_round_trip(rj_backend backend, uint64_t iterations) {
    /* Unannotated switches would confuse a sanitizer: no floor in such a build. */
    if (RJ_ASAN || RJ_TSAN) return -1;
    if (backend == RJ_BACKEND_FAST && !RJ_HAVE_FAST) return -1;
    rj_bench_ctx ctx = {NULL, 0};
#if RJ_HAVE_FAST
    rj_coro_entry entry = backend == RJ_BACKEND_FAST ? rj_bench_fast_entry : rj_bench_uc_entry;
#else
    rj_coro_entry entry = rj_bench_uc_entry;
#endif
    rj_coro *c = rj_coro_create(0, backend, entry, &ctx);
    if (!c) return -1;
    ctx.self = c;
    double start = rj_now_ns();
    for (uint64_t i = 0; i < iterations; i++) {
#if RJ_HAVE_FAST
        if (backend == RJ_BACKEND_FAST) rj_switch(&c->caller_sp, c->sp);
        else
#endif
            swapcontext(&c->caller_uc, &c->uc);
    }
    double elapsed = rj_now_ns() - start;
    ctx.stop = 1;
    rj_coro_resume(c); /* let the entry return */
    rj_coro_destroy(c);
    return elapsed / (double)iterations;
}
