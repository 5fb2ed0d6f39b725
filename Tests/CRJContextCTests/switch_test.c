/*
 * The switch itself: resume, suspend and finish on each backend, nesting across
 * backends, callee-saved registers kept across a switch, and ids never reused.
 */
#include "ctest.h"

#include <fenv.h>

/* ---- Resume, suspend, finish ------------------------------------------- */

static void test_resume_suspend_finish(rj_backend backend) {
    counter c = {NULL, 0, 5};
    c.self = rj_coro_create(0, backend, count_entry, &c);
    CHECK(c.self != NULL, "create: %s", rj_last_error());
    if (!c.self) return;
    rj_backend expected = backend == RJ_BACKEND_FAST_OUT_OF_LINE ? RJ_BACKEND_FAST : backend;
    CHECK(rj_coro_backend(c.self) == (rj_fast_backend_available() ? expected : RJ_BACKEND_UCONTEXT),
          "backend recorded");
    CHECK(rj_coro_switches_inline(c.self) == (backend == RJ_BACKEND_FAST && rj_switches_inline_by_default()),
          "switches inline only with the fast backend's default (%s)", rj_backend_name(backend));
    long seen = 0;
    while (!rj_coro_resume(c.self)) {
        CHECK(c.value == seen, "value %ld, expected %ld", c.value, seen);
        CHECK(rj_coro_current() == NULL, "no current coroutine between resumes");
        seen++;
    }
    CHECK(seen == 5 && c.value == -1, "five suspensions then the end (%ld)", seen);
    CHECK(rj_coro_is_finished(c.self), "finished");
    rj_coro_destroy(c.self);
}

/* ---- Nesting: a coroutine resumes another ----------------------------- */

typedef struct {
    rj_coro *self;
    counter *inner;
    long sum;
    int current_ok;
} outer_ctx;

static void outer_entry(void *arg) {
    outer_ctx *o = arg;
    while (!rj_coro_resume(o->inner->self)) {
        if (rj_coro_current() != o->self) o->current_ok = 0;
        o->sum += o->inner->value;
        rj_coro_suspend(o->self);
    }
}

static void test_nesting(rj_backend outer_backend, rj_backend inner_backend) {
    counter inner = {NULL, 0, 4};
    outer_ctx outer = {NULL, &inner, 0, 1};
    inner.self = rj_coro_create(0, inner_backend, count_entry, &inner);
    outer.self = rj_coro_create(0, outer_backend, outer_entry, &outer);
    int steps = 0;
    while (!rj_coro_resume(outer.self)) steps++;
    CHECK(steps == 4 && outer.sum == 0 + 1 + 2 + 3, "nested: %d steps, sum %ld", steps, outer.sum);
    CHECK(outer.current_ok, "rj_coro_current is the outer coroutine after the inner suspends");
    rj_coro_destroy(inner.self);
    rj_coro_destroy(outer.self);
}

/* ---- Callee-saved registers survive a switch -------------------------- */

typedef struct {
    rj_coro *self;
} clobber_ctx;

static void clobber_entry(void *arg) {
    clobber_ctx *c = arg;
    for (int i = 0; i < 3; i++) {
#if defined(__x86_64__)
        __asm__ volatile("movq $0x1111, %%rbx\n\tmovq $0x2222, %%r12\n\tmovq $0x3333, %%r13\n\t"
                         "movq $0x4444, %%r14\n\tmovq $0x5555, %%r15"
                         ::: "rbx", "r12", "r13", "r14", "r15");
        /* The FPU control state belongs to the thread: a body restores what it changes
         * before it yields (the rule the inline switch relies on). */
        fesetround(FE_TOWARDZERO);
        fesetround(FE_TONEAREST);
#elif defined(__aarch64__)
        __asm__ volatile("mov x19, #0x11\n\tmov x20, #0x22\n\tmov x21, #0x33\n\tmov x22, #0x44\n\t"
                         "mov x23, #0x55\n\tmov x24, #0x66\n\tmov x25, #0x77\n\tmov x26, #0x88\n\t"
                         "mov x27, #0x99\n\tmov x28, #0xaa\n\tfmov d8, #1.0\n\tfmov d9, #2.0\n\t"
                         "fmov d10, #3.0\n\tfmov d11, #4.0\n\tfmov d12, #5.0\n\tfmov d13, #6.0\n\t"
                         "fmov d14, #7.0\n\tfmov d15, #8.0"
                         ::: "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28",
                           "d8", "d9", "d10", "d11", "d12", "d13", "d14", "d15");
#endif
        rj_coro_suspend(c->self);
    }
}

__attribute__((noinline)) static int resume_checking_registers(rj_coro *co) {
    int ok = 1;
#if defined(__x86_64__)
    register long rbx __asm__("rbx") = 0xa1;
    register long r12 __asm__("r12") = 0xa2;
    register long r13 __asm__("r13") = 0xa3;
    register long r14 __asm__("r14") = 0xa4;
    register long r15 __asm__("r15") = 0xa5;
    __asm__ volatile("" : "+r"(rbx), "+r"(r12), "+r"(r13), "+r"(r14), "+r"(r15));
    rj_coro_resume(co);
    __asm__ volatile("" : "+r"(rbx), "+r"(r12), "+r"(r13), "+r"(r14), "+r"(r15));
    ok = rbx == 0xa1 && r12 == 0xa2 && r13 == 0xa3 && r14 == 0xa4 && r15 == 0xa5;
    ok = ok && fegetround() == FE_TONEAREST;
#elif defined(__aarch64__)
    register long x19 __asm__("x19") = 0xb1;
    register long x24 __asm__("x24") = 0xb6;
    register long x28 __asm__("x28") = 0xba;
    register double d8 __asm__("d8") = 10.5;
    register double d15 __asm__("d15") = 17.5;
    __asm__ volatile("" : "+r"(x19), "+r"(x24), "+r"(x28), "+w"(d8), "+w"(d15));
    rj_coro_resume(co);
    __asm__ volatile("" : "+r"(x19), "+r"(x24), "+r"(x28), "+w"(d8), "+w"(d15));
    ok = x19 == 0xb1 && x24 == 0xb6 && x28 == 0xba && d8 == 10.5 && d15 == 17.5;
#else
    rj_coro_resume(co);
#endif
    return ok;
}

static void test_callee_saved(rj_backend backend) {
    clobber_ctx c = {NULL};
    c.self = rj_coro_create(0, backend, clobber_entry, &c);
    for (int i = 0; i < 3; i++)
        CHECK(resume_checking_registers(c.self), "callee-saved registers preserved (%s, step %d)",
              rj_backend_name(backend), i);
    while (!rj_coro_resume(c.self)) {}
    rj_coro_destroy(c.self);
}

/* ---- Ids: never reused, even where the memory is ------------------------ */

static void *ids_on_thread(void *arg) {
    uint64_t *out = arg;
    rj_coro *c = rj_coro_create(0, RJ_BACKEND_FAST, noop_entry, NULL);
    *out = c ? rj_coro_id(c) : 0;
    if (c) rj_coro_destroy(c);
    return NULL;
}

static void test_ids_are_never_reused(void) {
    uint64_t previous = 0;
    int same_memory = 0, increasing = 1, nonzero = 1;
    void *first = NULL;
    for (int i = 0; i < 3000; i++) {
        rj_coro *c = rj_coro_create(0, RJ_BACKEND_FAST, noop_entry, NULL);
        if (!c) break;
        if (i == 0) first = c;
        else if ((void *)c == first) same_memory++;
        uint64_t id = rj_coro_id(c);
        if (id == 0) nonzero = 0;
        if (i > 0 && id <= previous) increasing = 0;
        previous = id;
        rj_coro_destroy(c);
    }
    CHECK(same_memory > 0, "the pool hands the same header back (so addresses repeat)");
    CHECK(nonzero && increasing, "ids on one thread are non-zero and strictly increasing across 3000 coroutines");
    uint64_t other = 0;
    pthread_t t;
    pthread_create(&t, NULL, ids_on_thread, &other);
    pthread_join(t, NULL);
    rj_coro *c = rj_coro_create(0, RJ_BACKEND_FAST, noop_entry, NULL);
    CHECK(other != 0 && other != rj_coro_id(c) && other != previous, "another thread's ids are its own");
    rj_coro_destroy(c);
}

void switch_tests(rj_backend backend) {
    test_resume_suspend_finish(backend);
    test_callee_saved(backend);
}

void nesting_tests(void) {
    test_nesting(RJ_BACKEND_FAST, RJ_BACKEND_UCONTEXT);
    test_nesting(RJ_BACKEND_UCONTEXT, RJ_BACKEND_FAST);
    test_nesting(RJ_BACKEND_FAST, RJ_BACKEND_FAST_OUT_OF_LINE);
    test_nesting(RJ_BACKEND_FAST_OUT_OF_LINE, RJ_BACKEND_FAST);
}

void id_tests(void) { test_ids_are_never_reused(); }
