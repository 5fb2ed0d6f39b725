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

/* ---- Shared stacks ------------------------------------------------------- */

/* Many coroutines on two run stacks, each suspended with 4.8 KB of locals, resumed in
 * another order than they were made: each finds its own locals. */
static void test_shared_interleaved(void) {
    enum { M = 50 };
    static marker m[M];
    for (int i = 0; i < M; i++) {
        m[i] = (marker){NULL, i, 0};
        m[i].self = rj_coro_create_shared(marker_entry, &m[i]);
        CHECK(m[i].self && rj_coro_is_shared(m[i].self), "shared coroutine %d: %s", i, rj_last_error());
        rj_coro_resume(m[i].self);
    }
    CHECK(rj_stats_shared_coroutines() == M, "%zu shared coroutines alive", rj_stats_shared_coroutines());
    size_t saved = 0;
    for (int i = 0; i < M; i++) saved += rj_coro_saved_bytes(m[i].self);
    CHECK(saved >= (M - 2) * 4800, "the suspended ones keep their frames in their blocks (%zu bytes)", saved);
    for (int i = M - 1; i >= 0; i -= 2) {
        CHECK(rj_coro_resume(m[i].self) == 1 && m[i].sum == marker_expected(i), "coroutine %d summed %ld", i, m[i].sum);
    }
    for (int i = 0; i < M; i += 2) {
        rj_coro_resume(m[i].self);
        CHECK(m[i].sum == marker_expected(i), "coroutine %d summed %ld", i, m[i].sum);
    }
    for (int i = 0; i < M; i++) rj_coro_destroy(m[i].self);
    CHECK(rj_stats_shared_coroutines() == 0 && rj_stats_shared_saved_bytes() == 0,
          "all freed: %zu alive, %zu bytes", rj_stats_shared_coroutines(), rj_stats_shared_saved_bytes());
}

/* A chain of shared coroutines, each resuming the next until the last yields a value that
 * each adds to and writes into its resumer's local through rj_coro_locate, as the Swift
 * layer's hand-off does: on two run stacks, most links of the chain resume a coroutine of
 * their own run stack (through the copier). */
typedef struct chain_link {
    rj_coro *self;
    struct chain_link *next;
    long *outbox;           /* a local of the resumer's frame */
    rj_coro *outbox_owner;  /* whose frame */
    long rounds;
    volatile long frame_mark;
} chain_link;

static void chain_entry(void *arg) {
    chain_link *l = arg;
    volatile long mine[64];
    for (int i = 0; i < 64; i++) mine[i] = (long)(uintptr_t)l + i;
    for (long round = 0; round < l->rounds; round++) {
        long value = 1;
        if (l->next) {
            long got = 0;
            l->next->outbox = &got;
            l->next->outbox_owner = l->self;
            rj_coro_resume(l->next->self);
            value = got + 1;
        }
        *(long *)rj_coro_locate(l->outbox_owner, l->outbox) = value;
        long intact = 1;
        for (int i = 0; i < 64; i++) intact &= mine[i] == (long)(uintptr_t)l + i;
        l->frame_mark = intact;
        rj_coro_suspend(l->self);
    }
}

static void shared_chain(size_t run_stacks) {
    CHECK(rj_set_shared_run_stack_count(run_stacks) == 0, "%zu run stacks: %s", run_stacks, rj_last_error());
    enum { D = 24, ROUNDS = 5 };
    static chain_link links[D];
    for (int i = D - 1; i >= 0; i--) {
        links[i] = (chain_link){NULL, i + 1 < D ? &links[i + 1] : NULL, NULL, NULL, ROUNDS, 0};
        links[i].self = rj_coro_create_shared(chain_entry, &links[i]);
    }
    int ok = 1;
    size_t trips = rj_stats_shared_copier_trips();
    for (int round = 0; round < ROUNDS; round++) {
        long got = 0;
        links[0].outbox = &got;
        links[0].outbox_owner = NULL;
        rj_coro_resume(links[0].self);
        ok &= got == D;
        for (int i = 0; i < D; i++) ok &= links[i].frame_mark == 1;
    }
    CHECK(ok, "a chain of %d shared coroutines on %zu run stacks hands each value up intact", D, run_stacks);
    trips = rj_stats_shared_copier_trips() - trips;
    if (run_stacks == 1) {
        CHECK(trips == (size_t)ROUNDS * (D - 1) * 2, "one run stack: every link's resume and return go through the "
              "copier (%zu trips)", trips);
    } else {
        CHECK(trips < (size_t)ROUNDS * (D - 1) * 2, "%zu run stacks: most copies are made in place (%zu trips)",
              run_stacks, trips);
    }
    for (int i = 0; i < D; i++) {
        rj_coro_resume(links[i].self); /* runs off its end: finished */
        CHECK(rj_coro_is_finished(links[i].self), "link %d finished", i);
    }
    for (int i = 0; i < D; i++) rj_coro_destroy(links[i].self);
}

static void test_shared_chain(void) {
    shared_chain(1);
    shared_chain(3);
    CHECK(rj_set_shared_run_stack_count(2) == 0, "back to two run stacks: %s", rj_last_error());
}

/* Shared coroutines resumed from 8 threads at once, each resume under the coroutine's own
 * lock (the Swift layer's state word plays that part): exact counts, frames intact. */
typedef struct {
    rj_coro *self;
    pthread_mutex_t lock;
    long count;
    volatile long checksum_ok;
} tally;

static void tally_entry(void *arg) {
    tally *t = arg;
    volatile long mine[32];
    for (int i = 0; i < 32; i++) mine[i] = i * 7;
    for (;;) {
        t->count++;
        long ok = 1;
        for (int i = 0; i < 32; i++) ok &= mine[i] == i * 7;
        if (!ok) t->checksum_ok = 0;
        rj_coro_suspend(t->self);
    }
}

enum { TALLIES = 40, THREADS = 8, RESUMES = 4000 };
static tally tallies[TALLIES];

static void *tally_thread(void *arg) {
    unsigned seed = (unsigned)(uintptr_t)arg;
    for (int i = 0; i < RESUMES; i++) {
        seed = seed * 1103515245u + 12345u;
        tally *t = &tallies[(seed >> 8) % TALLIES];
        pthread_mutex_lock(&t->lock);
        rj_coro_resume(t->self);
        pthread_mutex_unlock(&t->lock);
    }
    return NULL;
}

static void test_shared_threads(void) {
    for (int i = 0; i < TALLIES; i++) {
        tallies[i].self = rj_coro_create_shared(tally_entry, &tallies[i]);
        pthread_mutex_init(&tallies[i].lock, NULL);
        tallies[i].count = 0;
        tallies[i].checksum_ok = 1;
    }
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++) pthread_create(&threads[i], NULL, tally_thread, (void *)(uintptr_t)(i + 1));
    for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
    long total = 0;
    int intact = 1;
    for (int i = 0; i < TALLIES; i++) {
        total += tallies[i].count;
        intact &= tallies[i].checksum_ok == 1;
        rj_coro_destroy(tallies[i].self);
        pthread_mutex_destroy(&tallies[i].lock);
    }
    CHECK(total == (long)THREADS * RESUMES, "%ld resumes from %d threads, %ld counted", (long)THREADS * RESUMES,
          THREADS, total);
    CHECK(intact, "every frame intact after moving between threads and run stacks");
}

static void shared_overflow_child(rj_backend backend) {
    (void)backend;
    rj_coro *c = rj_coro_create_shared(overflow_entry, NULL);
    rj_coro_resume(c);
}

static void test_shared_overflow(void) {
    char buf[512];
    int status = in_child(shared_overflow_child, RJ_BACKEND_FAST, buf, sizeof buf);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "shared: overflow aborts");
    CHECK(strstr(buf, "RJIterator: generator stack overflow") != NULL, "shared: overflow message: %s", buf);
}

/* Two threads, each running a shared coroutine that resumes one bound to the run stack the
 * other thread runs on: they would wait for each other forever; the wait sees the cycle and
 * stops the program with a message. */
typedef struct {
    rj_coro *self;
    rj_coro *inner;
    pthread_barrier_t *meet;
} crossing;

static void crossing_inner_entry(void *arg) {
    rj_coro **self = arg;
    for (;;) rj_coro_suspend(*self);
}

static void crossing_entry(void *arg) {
    crossing *x = arg;
    rj_coro_suspend(x->self); /* bound to its run stack by the first resume, on the main thread */
    pthread_barrier_wait(x->meet);
    rj_coro_resume(x->inner);
}

static void *crossing_thread(void *arg) {
    crossing *x = arg;
    rj_coro_resume(x->self);
    return NULL;
}

static void crossing_child(rj_backend backend) {
    (void)backend;
    alarm(20); /* a hang ends in SIGALRM, which the check tells from the abort */
    rj_set_shared_run_stack_count(2);
    static pthread_barrier_t meet;
    pthread_barrier_init(&meet, NULL, 2);
    static rj_coro *inner1, *inner2;
    static crossing x1, x2;
    inner1 = rj_coro_create_shared(crossing_inner_entry, &inner1);
    inner2 = rj_coro_create_shared(crossing_inner_entry, &inner2);
    x1 = (crossing){rj_coro_create_shared(crossing_entry, &x1), inner1, &meet};
    x2 = (crossing){rj_coro_create_shared(crossing_entry, &x2), inner2, &meet};
    /* Bound in this order, the run stacks alternate: x1 and inner2 on one, x2 and inner1 on
     * the other. */
    rj_coro_resume(x1.self);
    rj_coro_resume(x2.self);
    rj_coro_resume(inner2);
    rj_coro_resume(inner1);
    pthread_t t1, t2;
    pthread_create(&t1, NULL, crossing_thread, &x1);
    pthread_create(&t2, NULL, crossing_thread, &x2);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    fprintf(stderr, "no deadlock\n");
}

static void test_shared_deadlock(void) {
    char buf[1024];
    int status = in_child(crossing_child, RJ_BACKEND_FAST, buf, sizeof buf);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "crossing resumes abort (status %d)", status);
    CHECK(strstr(buf, "RJIterator: deadlock between shared-stack generators on two threads") != NULL &&
              strstr(buf, "stackMode: .dedicated") != NULL,
          "the deadlock message names the fix: %s", buf);
}

static void test_shared(void) {
    if (!rj_fast_backend_available()) {
        CHECK(rj_coro_create_shared(count_entry, NULL) == NULL && strstr(rj_last_error(), "fast context backend"),
              "shared stacks refused without the fast backend: %s", rj_last_error());
        return;
    }
    CHECK(rj_set_shared_run_stack_count(2) == 0, "two run stacks: %s", rj_last_error());
    counter c = {NULL, 0, 3};
    c.self = rj_coro_create_shared(count_entry, &c);
    long seen = 0;
    while (!rj_coro_resume(c.self)) seen += c.value;
    CHECK(seen == 0 + 1 + 2 && c.value == -1, "a shared coroutine counts (%ld)", seen);
    CHECK(rj_coro_saved_bytes(c.self) < 1024, "a shallow one keeps %zu bytes", rj_coro_saved_bytes(c.self));
    rj_coro_destroy(c.self);
    rj_coro *alive = rj_coro_create_shared(count_entry, &c);
    CHECK(rj_set_shared_run_stack_count(4) == -1 && strstr(rj_last_error(), "while no shared-stack generator exists"),
          "the count is fixed while one exists: %s", rj_last_error());
    rj_coro_destroy(alive);
    test_shared_interleaved();
    test_shared_chain();
    test_shared_threads();
    test_shared_overflow();
    test_shared_deadlock();
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
    test_shared();
    test_ids_are_never_reused();
    printf("guard: %s\n", rj_guard_uses_madvise() ? "MADV_GUARD_INSTALL" : "mprotect");
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
