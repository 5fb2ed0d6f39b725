/*
 * Tests of the C core on its own, without Swift: built natively and, in CI,
 * cross-compiled for arm64 and run under qemu-user, which is how the arm64
 * switch is exercised on x86_64 machines. Run by Tests/CRJContextCTests/run.sh.
 *
 * Prints one line per check and closes with "N passed, N failed".
 */
#include "CRJContext.h"

#include <fenv.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int passed, failed;

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

static void count_entry(void *arg) {
    counter *c = arg;
    for (long i = 0; i < c->limit; i++) {
        c->value = i;
        rj_coro_suspend(c->self);
    }
    c->value = -1;
}

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

/* ---- Stacks: pool, many alive, errors --------------------------------- */

static void test_pool_and_counts(void) {
    rj_stack_pool_drain();
    size_t mapped = rj_stats_mapped_stacks();
    for (int i = 0; i < 100; i++) {
        counter c = {NULL, 0, 1};
        c.self = rj_coro_create(0, rj_default_backend(), count_entry, &c);
        while (!rj_coro_resume(c.self)) {}
        rj_coro_destroy(c.self);
    }
    CHECK(rj_stats_mapped_stacks() <= mapped + 1, "one pooled stack serves 100 coroutines");
    CHECK(rj_stats_live_stacks() == 0, "no live stacks left (%zu)", rj_stats_live_stacks());

    enum { N = 2000 };
    static counter many[N];
    for (int i = 0; i < N; i++) {
        many[i].limit = 2;
        many[i].self = rj_coro_create(16 * 1024, rj_default_backend(), count_entry, &many[i]);
        CHECK(many[i].self != NULL, "coroutine %d: %s", i, rj_last_error());
        rj_coro_resume(many[i].self);
    }
    CHECK(rj_stats_live_stacks() == N, "%d live stacks", N);
    for (int i = 0; i < N; i++) {
        while (!rj_coro_resume(many[i].self)) {}
        rj_coro_destroy(many[i].self);
    }
    CHECK(rj_stats_live_stacks() == 0, "all stacks given back");

    rj_coro *none = rj_coro_create(1024, rj_default_backend(), count_entry, NULL);
    CHECK(none == NULL && strstr(rj_last_error(), "below the minimum"), "tiny stack refused: %s",
          rj_last_error());
    none = rj_coro_create((size_t)1 << 50, rj_default_backend(), count_entry, NULL);
    CHECK(none == NULL && strstr(rj_last_error(), "RJIterator: stackSize 1125899906842624 is larger than any address space"),
          "huge stack refused: %s", rj_last_error());
    size_t before = rj_default_stack_size();
    CHECK(rj_set_default_stack_size(1024) == -1 && rj_default_stack_size() == before &&
              strstr(rj_last_error(), "RJRuntime.defaultStackSize 1024 is below the minimum"),
          "a tiny default is refused by the same rule and the old one kept: %s", rj_last_error());
}

/* ---- Slabs: default-size stacks, 64 to a mapping ----------------------- */

typedef struct {
    rj_coro *self;
    long seed;
    long sum;
} marker;

/* Fills a local array from its seed, suspends, then sums it: a stack whose pages were given
 * back, or written to, while it was suspended gives another sum. */
static void marker_entry(void *arg) {
    marker *m = arg;
    volatile long local[600];
    for (int i = 0; i < 600; i++) local[i] = m->seed * 1000 + i;
    rj_coro_suspend(m->self);
    long sum = 0;
    for (int i = 0; i < 600; i++) sum += local[i];
    m->sum = sum;
}

static long marker_expected(long seed) { return seed * 1000 * 600 + 599 * 600 / 2; }

static void test_slabs(void) {
    size_t limit = rj_stack_pool_limit();
    rj_set_stack_pool_limit(0); /* every release goes straight back to its slab */
    rj_stack_pool_drain();
    CHECK(rj_stats_mapped_slabs() == 0, "no slab left after a drain (%zu)", rj_stats_mapped_slabs());
    enum { M = 300 };
    static marker m[M];
    for (int i = 0; i < M; i++) {
        m[i] = (marker){NULL, i, 0};
        m[i].self = rj_coro_create(0, rj_default_backend(), marker_entry, &m[i]);
        CHECK(m[i].self != NULL, "coroutine %d: %s", i, rj_last_error());
        rj_coro_resume(m[i].self);
    }
    CHECK(rj_stats_mapped_slabs() == (M + 63) / 64, "%d stacks in %zu slabs", M, rj_stats_mapped_slabs());
    /* Every other one ends: 150 slots given back, in batches that give their pages back
     * while their neighbours hold suspended frames. */
    for (int i = 1; i < M; i += 2) {
        rj_coro_resume(m[i].self);
        rj_coro_destroy(m[i].self);
        CHECK(m[i].sum == marker_expected(i), "coroutine %d summed %ld", i, m[i].sum);
    }
    for (int i = 0; i < M; i += 2) {
        rj_coro_resume(m[i].self);
        CHECK(m[i].sum == marker_expected(i), "coroutine %d kept its stack beside freed slots: %ld", i,
              m[i].sum);
    }
    /* The slots given back are carved again (those still in the last batch once it is full):
     * no new slab. */
    size_t slabs = rj_stats_mapped_slabs();
    for (int i = 1; i < M; i += 2) {
        m[i] = (marker){NULL, i, 0};
        m[i].self = rj_coro_create(0, rj_default_backend(), marker_entry, &m[i]);
        rj_coro_resume(m[i].self);
    }
    CHECK(rj_stats_mapped_slabs() <= slabs + 1, "slots reused: %zu slabs, then %zu", slabs, rj_stats_mapped_slabs());
    for (int i = 0; i < M; i++) {
        if (i % 2) rj_coro_resume(m[i].self);
        rj_coro_destroy(m[i].self);
    }
    CHECK(rj_stats_live_stacks() == 0, "no live stacks (%zu)", rj_stats_live_stacks());
    rj_stack_pool_drain();
    CHECK(rj_stats_mapped_slabs() == 0, "every slab unmapped after the drain (%zu)", rj_stats_mapped_slabs());
    rj_set_stack_pool_limit(limit);
}

/* ---- Ids: never reused, even where the memory is ------------------------ */

static void noop_entry(void *arg) { (void)arg; }

#include <pthread.h>
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

/* ---- Overflow: message and abort, in a child -------------------------- */

static volatile long sink;
static volatile long depth_limit = 1L << 40; /* never reached: the guard is hit first */
__attribute__((noinline)) static long deep(long n) {
    volatile char pad[256];
    pad[0] = (char)n;
    sink = pad[0];
    if (n > depth_limit) return 0;
    return deep(n + 1) + pad[0];
}

static void overflow_entry(void *arg) {
    (void)arg;
    sink = deep(0);
}

/* Runs child() in a forked process; returns its wait status, and its stderr in buf. */
static int in_child(void (*child)(rj_backend), rj_backend backend, char *buf, size_t size) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        child(backend);
        _exit(0);
    }
    close(fds[1]);
    memset(buf, 0, size);
    size_t n = 0;
    ssize_t r;
    while (n < size - 1 && (r = read(fds[0], buf + n, size - 1 - n)) > 0) n += (size_t)r;
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

static void overflow_child(rj_backend backend) {
    rj_coro *c = rj_coro_create(32 * 1024, backend, overflow_entry, NULL);
    rj_coro_resume(c);
}

static void test_overflow(rj_backend backend) {
    char buf[512];
    int status = in_child(overflow_child, backend, buf, sizeof buf);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "overflow aborts (%s)", rj_backend_name(backend));
    CHECK(strstr(buf, "RJIterator: generator stack overflow (stack size 32 KiB); create the generator "
                      "with a larger stackSize") != NULL,
          "overflow message (%s): %s", rj_backend_name(backend), buf);
}

/* A 40 KiB frame in a 16 KiB stack writes its far end first: past a guard
 * smaller than 40 KiB, inside the 64 KiB default one. */
__attribute__((noinline)) static long big_frame(void) {
    volatile char pad[40 * 1024];
    __asm__ volatile("" : : "r"(pad) : "memory"); /* escapes: laid out whole, as written */
    pad[0] = 1;
    pad[sizeof pad - 1] = 2;
    return pad[0] + pad[sizeof pad - 1];
}
static void big_frame_entry(void *arg) {
    (void)arg;
    sink = big_frame();
}
static void big_frame_child(rj_backend backend) {
    rj_coro *c = rj_coro_create(16 * 1024, backend, big_frame_entry, NULL);
    rj_coro_resume(c);
}

static void test_big_frame(rj_backend backend) {
    char buf[512];
    int status = in_child(big_frame_child, backend, buf, sizeof buf);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "big frame aborts (%s): status %#x", rj_backend_name(backend), status);
    CHECK(strstr(buf, "RJIterator: generator stack overflow (stack size 16 KiB)") != NULL,
          "big frame gives the overflow message (%s): %s", rj_backend_name(backend), buf);
}

static void resume_finished_child(rj_backend backend) {
    rj_coro *c = rj_coro_create(0, backend, noop_entry, NULL);
    rj_coro_resume(c);
    rj_coro_resume(c); /* finished: refused with a message */
}

static void test_resume_finished_is_refused(rj_backend backend) {
    char buf[512];
    int status = in_child(resume_finished_child, backend, buf, sizeof buf);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "resuming a finished coroutine aborts (%s)",
          rj_backend_name(backend));
    CHECK(strstr(buf, "RJIterator: internal error: rj_coro_resume on a coroutine whose body has ended") != NULL,
          "and says why (%s): %s", rj_backend_name(backend), buf);
}

int main(void) {
    printf("CRJContext C tests, fast backend: %s, page %ld\n",
           rj_fast_backend_available() ? rj_backend_name(RJ_BACKEND_FAST) : "not built",
           sysconf(_SC_PAGESIZE));
    /* The fast backend twice: through the inline switch, and through the out-of-line
     * rj_switch that sanitized builds use. */
    rj_backend backends[3] = {RJ_BACKEND_FAST, RJ_BACKEND_FAST_OUT_OF_LINE, RJ_BACKEND_UCONTEXT};
    for (int b = 0; b < 3; b++) {
        if (backends[b] != RJ_BACKEND_UCONTEXT && !rj_fast_backend_available()) continue;
        test_resume_suspend_finish(backends[b]);
        test_callee_saved(backends[b]);
        /* Under qemu-user the arm64 run forces the mprotect guard (run.sh arm64): qemu
         * does not hand a fault on a MADV_GUARD_INSTALL guard to the guest's handler. */
        test_overflow(backends[b]);
        test_big_frame(backends[b]);
        test_resume_finished_is_refused(backends[b]);
    }
    test_nesting(RJ_BACKEND_FAST, RJ_BACKEND_UCONTEXT);
    test_nesting(RJ_BACKEND_UCONTEXT, RJ_BACKEND_FAST);
    test_nesting(RJ_BACKEND_FAST, RJ_BACKEND_FAST_OUT_OF_LINE);
    test_nesting(RJ_BACKEND_FAST_OUT_OF_LINE, RJ_BACKEND_FAST);
    test_pool_and_counts();
    test_slabs();
    test_ids_are_never_reused();
    printf("guard: %s\n", rj_guard_uses_madvise() ? "MADV_GUARD_INSTALL" : "mprotect");
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
