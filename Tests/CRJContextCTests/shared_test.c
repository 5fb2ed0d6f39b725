/*
 * Shared stacks: counting, many interleaved, a chain handing values up, resumes
 * from several threads, overflow, and the deadlock of crossing resumes.
 */
#include "ctest.h"

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

/* 1: the chain switches as the Swift layer does, through rj_coro_resume_inline and
 * rj_coro_suspend_inline (the shared-stack halves around an inline switch, falling back to
 * rj_coro_resume and rj_coro_suspend where the copier moves frames); 0: through those two. */
static int chain_inline;
static int chain_resume(rj_coro *c) { return chain_inline ? rj_coro_resume_inline(c) : rj_coro_resume(c); }
static void chain_suspend(rj_coro *c) {
    if (chain_inline) rj_coro_suspend_inline(c);
    else rj_coro_suspend(c);
}

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
            chain_resume(l->next->self);
            value = got + 1;
        }
        *(long *)rj_coro_locate(l->outbox_owner, l->outbox) = value;
        long intact = 1;
        for (int i = 0; i < 64; i++) intact &= mine[i] == (long)(uintptr_t)l + i;
        l->frame_mark = intact;
        chain_suspend(l->self);
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
        chain_resume(links[0].self);
        ok &= got == D;
        for (int i = 0; i < D; i++) ok &= links[i].frame_mark == 1;
    }
    CHECK(ok, "a chain of %d shared coroutines on %zu run stacks hands each value up intact (%s)", D, run_stacks,
          chain_inline ? "inline halves" : "rj_coro_resume");
    trips = rj_stats_shared_copier_trips() - trips;
    if (run_stacks == 1) {
        CHECK(trips == (size_t)ROUNDS * (D - 1) * 2, "one run stack: every link's resume and return go through the "
              "copier (%zu trips)", trips);
    } else {
        CHECK(trips < (size_t)ROUNDS * (D - 1) * 2, "%zu run stacks: most copies are made in place (%zu trips)",
              run_stacks, trips);
    }
    for (int i = 0; i < D; i++) {
        chain_resume(links[i].self); /* runs off its end: finished */
        CHECK(rj_coro_is_finished(links[i].self), "link %d finished", i);
    }
    for (int i = 0; i < D; i++) rj_coro_destroy(links[i].self);
}

static void test_shared_chain(void) {
    for (chain_inline = 0; chain_inline < 2; chain_inline++) {
        shared_chain(1);
        shared_chain(3);
    }
    chain_inline = 0;
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
    CHECK(strstr(buf, "RJIterator: stack overflow in the Generator (stack size") != NULL &&
              strstr(buf, "a shared run stack); make it with stackMode: .dedicated") != NULL,
          "shared: overflow message: %s", buf);
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
    CHECK(rj_coro_switches_inline(c.self) == (rj_switches_inline_by_default() ? 2 : 0),
          "a shared coroutine switches inline with the shared halves where the build has the inline switch (%d)",
          rj_coro_switches_inline(c.self));
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

void shared_tests(void) { test_shared(); }
