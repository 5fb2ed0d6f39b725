/*
 * The registry of live generator objects and the dump's hold (rj_registry.c),
 * what RJRuntime.dump() reads: what a dump lists and counts, removals, many
 * chunks, adds from several threads, a removal or a second dump waiting for a
 * dump's end, and rj_dump_hold.
 *
 * The registry only stores the pointers it is given: the objects here are
 * 8-aligned words that stand for generator objects.
 */
#include "ctest.h"

#include <sched.h>

/* Objects registered before these tests (none in the C tests, but the checks do not
 * rely on it). */
static size_t base;

/* ---- Listing ------------------------------------------------------------- */

/* What one rj_registry_list in a dump found, against objs[0..n), of which live[i] says
 * whether objs + i is registered now. */
typedef struct {
    size_t total;   /* what rj_registry_list returned */
    size_t missing; /* registered, not listed */
    size_t extra;   /* listed though not registered, or listed twice */
    size_t others;  /* listed, outside objs */
} listing;

/* Lists in a dump of its own; no add may run meanwhile. */
static listing list_against(const uint64_t *objs, size_t n, const unsigned char *live) {
    listing l = {0, 0, 0, 0};
    size_t cap = rj_registry_count() + 64;
    void **out = malloc(cap * sizeof *out);
    for (;;) {
        rj_registry_begin_dump();
        l.total = rj_registry_list(out, cap);
        rj_registry_end_dump();
        if (l.total <= cap) break;
        cap = l.total + 64;
        out = realloc(out, cap * sizeof *out);
    }
    unsigned char *seen = calloc(n ? n : 1, 1);
    for (size_t k = 0; k < l.total; k++) {
        uintptr_t p = (uintptr_t)out[k];
        if (p >= (uintptr_t)objs && p < (uintptr_t)(objs + n)) {
            size_t i = (size_t)((const uint64_t *)p - objs);
            if (!live[i] || seen[i]) l.extra++;
            seen[i] = 1;
        } else {
            l.others++;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (live[i] && !seen[i]) l.missing++;
    free(seen);
    free(out);
    return l;
}

/* Whether the list holds exactly the live ones of objs and the objects of before. */
static int exact(listing l, size_t live_count) {
    return l.total == base + live_count && l.missing == 0 && l.extra == 0 && l.others == base;
}

/* Whether object is listed; the caller runs a dump. */
static int listed(const void *object) {
    size_t cap = rj_registry_count() + 64;
    void **out = malloc(cap * sizeof *out);
    size_t n = rj_registry_list(out, cap);
    int found = 0;
    for (size_t k = 0; k < n && k < cap; k++) found |= out[k] == object;
    free(out);
    return found;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Whether the handles of the live ones are all valid and all different. */
static int distinct_handles(const uint32_t *handles, size_t n, const unsigned char *live) {
    uint32_t *h = malloc((n ? n : 1) * sizeof *h);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (live[i]) h[m++] = handles[i];
    qsort(h, m, sizeof *h, cmp_u32);
    int ok = 1;
    for (size_t i = 0; i < m; i++) ok &= h[i] != UINT32_MAX && (i == 0 || h[i] != h[i - 1]);
    free(h);
    return ok;
}

/* ---- Add, list, count, remove -------------------------------------------- */

static uint64_t few[3];
static unsigned char few_live[3];

static void remove_max_child(rj_backend backend) {
    (void)backend;
    rj_registry_remove(UINT32_MAX);
    listing l = list_against(few, 3, few_live);
    if (exact(l, 2) && rj_registry_count() == base + 2) fprintf(stderr, "ignored\n");
}

static void test_registry_few(void) {
    uint32_t h[3];
    for (int i = 0; i < 3; i++) {
        h[i] = rj_registry_add(&few[i]);
        few_live[i] = 1;
    }
    CHECK(distinct_handles(h, 3, few_live), "three adds, three handles: %u %u %u", h[0], h[1], h[2]);
    CHECK(rj_registry_count() == base + 3, "three objects counted (%zu)", rj_registry_count() - base);
    listing l = list_against(few, 3, few_live);
    CHECK(exact(l, 3), "each of three listed once in a dump: %zu listed, %zu missing, %zu extra", l.total,
          l.missing, l.extra);

    /* A short buffer: as many as fit are copied, and the number there are returned. */
    void *out[3] = {NULL, NULL, NULL};
    rj_registry_begin_dump();
    size_t n = rj_registry_list(out, 2);
    rj_registry_end_dump();
    CHECK(n == base + 3 && out[0] && out[1] && !out[2], "a list into 2 places copies 2 and says %zu", n);

    rj_registry_remove(h[1]);
    few_live[1] = 0;
    l = list_against(few, 3, few_live);
    CHECK(exact(l, 2) && rj_registry_count() == base + 2,
          "a removed object is not listed, the others are: %zu listed, %zu missing, %zu extra", l.total, l.missing,
          l.extra);

    /* Were it not ignored, UINT32_MAX would index far past the chunk table: try it in a child. */
    char buf[256];
    int status = in_child(remove_max_child, RJ_BACKEND_FAST, buf, sizeof buf);
    int ignored = WIFEXITED(status) && WEXITSTATUS(status) == 0 && strstr(buf, "ignored") != NULL;
    CHECK(ignored, "rj_registry_remove(UINT32_MAX) is ignored (status %#x): %s", status, buf);
    if (ignored) {
        rj_registry_remove(UINT32_MAX);
        l = list_against(few, 3, few_live);
        CHECK(exact(l, 2), "and the list is as it was: %zu listed", l.total);
    }

    h[1] = rj_registry_add(&few[1]);
    few_live[1] = 1;
    l = list_against(few, 3, few_live);
    CHECK(exact(l, 3) && distinct_handles(h, 3, few_live), "added again, listed again: %zu listed", l.total);
    for (int i = 0; i < 3; i++) {
        rj_registry_remove(h[i]);
        few_live[i] = 0;
    }
    l = list_against(few, 3, few_live);
    CHECK(exact(l, 0) && rj_registry_count() == base, "all removed: %zu listed", l.total);
}

/* ---- Many: past one chunk of 4,096 slots, or past the first table of 64 chunks ---- */

static void registry_churn(size_t n) {
    uint64_t *objs = calloc(n, sizeof *objs);
    uint32_t *h = calloc(n, sizeof *h);
    unsigned char *live = calloc(n, 1);
    for (size_t i = 0; i < n; i++) {
        h[i] = rj_registry_add(&objs[i]);
        live[i] = 1;
    }
    CHECK(distinct_handles(h, n, live), "%zu adds, %zu different handles", n, n);
    listing l = list_against(objs, n, live);
    CHECK(exact(l, n) && rj_registry_count() == base + n, "%zu added, each listed once: %zu listed, %zu missing, "
          "%zu extra", n, l.total, l.missing, l.extra);

    for (size_t i = 1; i < n; i += 2) {
        rj_registry_remove(h[i]);
        live[i] = 0;
    }
    l = list_against(objs, n, live);
    CHECK(exact(l, n - n / 2), "%zu of %zu removed, the rest listed: %zu listed, %zu missing, %zu extra", n / 2, n,
          l.total, l.missing, l.extra);

    /* Added again, into the slots the removals freed. */
    for (size_t i = 1; i < n; i += 2) {
        h[i] = rj_registry_add(&objs[i]);
        live[i] = 1;
    }
    l = list_against(objs, n, live);
    CHECK(exact(l, n) && distinct_handles(h, n, live), "%zu added again, all %zu listed: %zu listed, %zu missing, "
          "%zu extra", n / 2, n, l.total, l.missing, l.extra);

    for (size_t i = 0; i < n; i++) {
        rj_registry_remove(h[i]);
        live[i] = 0;
    }
    l = list_against(objs, n, live);
    CHECK(exact(l, 0) && rj_registry_count() == base, "all %zu removed: %zu listed", n, l.total);
    free(live);
    free(h);
    free(objs);
}

/* ---- Adds from several threads --------------------------------------------- */

enum { ADDERS = 4, PER_ADDER = 5000 };

typedef struct {
    uint64_t *objs;
    uint32_t *handles;
    size_t first, end, step;
    pthread_barrier_t *start;
} adder;

static void *adder_thread(void *arg) {
    adder *a = arg;
    pthread_barrier_wait(a->start);
    for (size_t i = a->first; i < a->end; i += a->step) a->handles[i] = rj_registry_add(&a->objs[i]);
    return NULL;
}

/* Each thread adds objs[first, first + PER_ADDER) by step, all at once; they end before this
 * returns, leaving their chunks to the next threads that need one. */
static void add_on_threads(uint64_t *objs, uint32_t *handles, size_t step) {
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, ADDERS);
    pthread_t threads[ADDERS];
    adder adders[ADDERS];
    for (int t = 0; t < ADDERS; t++) {
        adders[t] = (adder){objs, handles, (size_t)t * PER_ADDER, (size_t)(t + 1) * PER_ADDER, step, &start};
        pthread_create(&threads[t], NULL, adder_thread, &adders[t]);
    }
    for (int t = 0; t < ADDERS; t++) pthread_join(threads[t], NULL);
    pthread_barrier_destroy(&start);
}

static void test_registry_threads(void) {
    enum { N = ADDERS * PER_ADDER };
    static uint64_t objs[N];
    static uint32_t h[N];
    static unsigned char live[N];
    add_on_threads(objs, h, 1);
    for (int i = 0; i < N; i++) live[i] = 1;
    CHECK(distinct_handles(h, N, live), "%d threads' adds, all different handles", ADDERS);
    listing l = list_against(objs, N, live);
    CHECK(exact(l, N), "%d adds on %d threads at once, each listed once: %zu listed, %zu missing, %zu extra", N,
          ADDERS, l.total, l.missing, l.extra);

    /* Removed on this thread, from the chunks of threads that have ended. */
    for (int i = 0; i < N; i += 2) {
        rj_registry_remove(h[i]);
        live[i] = 0;
    }
    l = list_against(objs, N, live);
    CHECK(exact(l, N / 2), "half removed on another thread than added them: %zu listed, %zu missing, %zu extra",
          l.total, l.missing, l.extra);

    /* New threads, which take the ended ones' chunks (half free) and add into their free
     * slots; the handles do not say whose chunk a slot is in, so only the list is checked. */
    add_on_threads(objs, h, 2);
    for (int i = 0; i < N; i += 2) live[i] = 1;
    l = list_against(objs, N, live);
    CHECK(exact(l, N) && distinct_handles(h, N, live),
          "added again on new threads, after the first ones ended: %zu listed, %zu missing, %zu extra", l.total,
          l.missing, l.extra);

    for (int i = 0; i < N; i++) {
        rj_registry_remove(h[i]);
        live[i] = 0;
    }
    l = list_against(objs, N, live);
    CHECK(exact(l, 0) && rj_registry_count() == base, "all removed: %zu listed", l.total);
}

/* ---- During a dump: removals and other dumps wait, adds go on ----------------- */

typedef struct {
    uint32_t handle;
    int started;
    int done;
    uint64_t done_ns;
} waiter;

static void *remover_thread(void *arg) {
    waiter *w = arg;
    __atomic_store_n(&w->started, 1, __ATOMIC_SEQ_CST);
    rj_registry_remove(w->handle);
    w->done_ns = rj_monotonic_ns();
    __atomic_store_n(&w->done, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

static void *dumper_thread(void *arg) {
    waiter *w = arg;
    __atomic_store_n(&w->started, 1, __ATOMIC_SEQ_CST);
    rj_registry_begin_dump();
    w->done_ns = rj_monotonic_ns();
    __atomic_store_n(&w->done, 1, __ATOMIC_SEQ_CST);
    rj_registry_end_dump();
    return NULL;
}

static uint64_t during_dump_object;

static void *late_adder_thread(void *arg) {
    waiter *w = arg;
    w->handle = rj_registry_add(&during_dump_object);
    __atomic_store_n(&w->done, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

/* Waits up to about 2 s for *flag; whether it was set. */
static int wait_for(int *flag) {
    for (int i = 0; i < 2000; i++) {
        if (__atomic_load_n(flag, __ATOMIC_SEQ_CST)) return 1;
        usleep(1000);
    }
    return __atomic_load_n(flag, __ATOMIC_SEQ_CST);
}

/* Starts a thread that takes w and waits for it to start; waits a further 50 ms inside
 * a dump of this thread, then ends the dump. Whether w was done before the end, and the
 * time of the end. */
static int done_before_end_of_dump(void *(*body)(void *), waiter *w, pthread_t *t, uint64_t *ended) {
    rj_registry_begin_dump();
    pthread_create(t, NULL, body, w);
    while (!__atomic_load_n(&w->started, __ATOMIC_SEQ_CST)) sched_yield();
    usleep(50 * 1000);
    int early = __atomic_load_n(&w->done, __ATOMIC_SEQ_CST);
    *ended = rj_monotonic_ns();
    rj_registry_end_dump();
    return early;
}

static void test_registry_during_dump(void) {
    static uint64_t object;
    pthread_t t;
    uint64_t ended;

    waiter r = {rj_registry_add(&object), 0, 0, 0};
    int early = done_before_end_of_dump(remover_thread, &r, &t, &ended);
    CHECK(!early, "a removal on another thread waits while a dump runs");
    pthread_join(t, NULL);
    CHECK(r.done && r.done_ns >= ended, "and returns once the dump is over (%.1f ms after its end)",
          ((double)r.done_ns - (double)ended) / 1e6);
    CHECK(rj_registry_count() == base, "the object it waited to remove is gone (%zu)", rj_registry_count() - base);

    waiter d = {0, 0, 0, 0};
    early = done_before_end_of_dump(dumper_thread, &d, &t, &ended);
    CHECK(!early, "a second dump waits while one runs");
    pthread_join(t, NULL);
    CHECK(d.done && d.done_ns >= ended, "and begins once it is over (%.1f ms after its end)",
          ((double)d.done_ns - (double)ended) / 1e6);

    /* An add does not wait: it is there for the dump that runs. */
    waiter a = {UINT32_MAX, 1, 0, 0};
    rj_registry_begin_dump();
    pthread_create(&t, NULL, late_adder_thread, &a);
    int added = wait_for(&a.done);
    int seen = added && listed(&during_dump_object);
    rj_registry_end_dump();
    pthread_join(t, NULL);
    CHECK(added, "an add on another thread goes on during a dump");
    CHECK(seen, "and the dump lists what it added");
    rj_registry_remove(a.handle);
    CHECK(rj_registry_count() == base, "removed after the dump (%zu)", rj_registry_count() - base);
}

/* ---- The dump's hold ---------------------------------------------------------- */

static uint64_t held_a, held_b;

static void *holds_on_thread(void *arg) {
    (void)arg;
    return (void *)(uintptr_t)rj_dump_holds_now(&held_a);
}

static void test_dump_hold(void) {
    CHECK(!rj_dump_holds_now(&held_a) && !rj_dump_holds_now(&held_b) && !rj_dump_holds(&held_a),
          "nothing held before a hold");
    rj_dump_hold(&held_a);
    CHECK(rj_dump_holds_now(&held_a), "the held object is held now");
    CHECK(!rj_dump_holds_now(&held_b), "another object is not");
    CHECK(rj_dump_holds(&held_a) && !rj_dump_holds(&held_b), "rj_dump_holds says the same");
    pthread_t t;
    void *seen = NULL;
    pthread_create(&t, NULL, holds_on_thread, NULL);
    pthread_join(t, &seen);
    CHECK(seen != NULL, "another thread sees the hold");
    rj_dump_let_go();
    CHECK(!rj_dump_holds_now(&held_a) && !rj_dump_holds(&held_a), "let go: held no more");
    pthread_create(&t, NULL, holds_on_thread, NULL);
    pthread_join(t, &seen);
    CHECK(seen == NULL, "another thread sees the let-go");
    rj_dump_hold(&held_b);
    CHECK(rj_dump_holds_now(&held_b) && !rj_dump_holds_now(&held_a), "the next hold is of the next object only");
    rj_dump_let_go();
    CHECK(!rj_dump_holds_now(&held_b), "let go again: held no more");
}

void registry_tests(void) {
    base = rj_registry_count();
    test_registry_few();
    registry_churn(10000);  /* three chunks */
    registry_churn(270000); /* 66 chunks or more: the chunk table outgrows its first 64 */
    test_registry_threads();
    test_registry_during_dump();
    test_dump_hold();
}
