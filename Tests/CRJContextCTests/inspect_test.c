/*
 * The dump's frame walk (rj_inspect.c): the return addresses of a suspended coroutine,
 * read from the frame records on its stack, and their names (rj_symbolize). On every
 * backend and on a shared run stack, and again after the coroutine has moved to another
 * thread. Under pointer authentication (run.sh arm64-protected) the return addresses in
 * the frame records are signed: the walk must hand out plain addresses, or no name is found.
 */
#include "ctest.h"

typedef struct {
    rj_coro *self;
    int rounds; /* suspensions done, read by the test between resumes */
} walker;

/* External and never inlined, each doing something after its call: every one keeps a frame
 * of its own (no inlining, no tail call) under a name the symbol table has. */
__attribute__((noinline)) void rj_walk_inner(walker *w);
__attribute__((noinline)) void rj_walk_outer(walker *w);

void rj_walk_inner(walker *w) {
    rj_coro_suspend(w->self);
    w->rounds++;
}

void rj_walk_outer(walker *w) {
    for (int i = 0; i < 2; i++) rj_walk_inner(w);
    w->rounds += 10;
}

static void walk_entry(void *arg) { rj_walk_outer(arg); }

/* The names of c's frames, innermost first, as one line ("a < b < c"). */
static size_t walk_names(rj_coro *c, char *line, size_t len) {
    uintptr_t pcs[32];
    size_t n = rj_coro_backtrace(c, pcs, 32);
    line[0] = 0;
    size_t used = 0;
    for (size_t i = 0; i < n && used + 1 < len; i++) {
        char name[128], image[128];
        uintptr_t offset;
        /* A return address is the instruction after the call: look up the call (as the
         * Swift dump does); the first address is where the switch resumes. */
        uintptr_t lookup = i == 0 ? pcs[i] : pcs[i] - 1;
        if (!rj_symbolize(lookup, name, sizeof name, &offset, image, sizeof image))
            snprintf(name, sizeof name, "?%#lx", (unsigned long)pcs[i]);
        used += (size_t)snprintf(line + used, len - used, "%s%s", i ? " < " : "", name);
    }
    return n;
}

/* 1 if `line` names the body's frames in order: inner, outer, then the coroutine's start. */
static int walk_in_order(const char *line) {
    const char *inner = strstr(line, "rj_walk_inner");
    const char *outer = inner ? strstr(inner, "rj_walk_outer") : NULL;
    const char *start = outer ? strstr(outer, "rj_coro_main") : NULL;
    return start != NULL;
}

typedef struct {
    walker *w;
    int status; /* 1: resumed and suspended again */
} walk_move;

static void *walk_resume_on_thread(void *arg) {
    walk_move *m = arg;
    m->status = rj_coro_resume(m->w->self) == 0;
    return NULL;
}

static void test_walk(rj_backend backend, int shared) {
    walker w = {NULL, 0};
    w.self = shared ? rj_coro_create_shared(walk_entry, &w) : rj_coro_create(0, backend, walk_entry, &w);
    CHECK(w.self != NULL, "create: %s", rj_last_error());
    if (!w.self) return;
    const char *what = shared ? "shared" : rj_backend_name(backend);
    char line[2048];
    uintptr_t pcs[4];
    rj_coro_resume(w.self);
    size_t n = walk_names(w.self, line, sizeof line);
    CHECK(n >= 4 && walk_in_order(line), "%s: the walk names the body's frames (%zu): %s", what, n, line);

    /* The next resume from another thread: the body goes on there, its signed return
     * addresses checked with that thread's keys, and suspends again. */
    walk_move m = {&w, 0};
    pthread_t t;
    pthread_create(&t, NULL, walk_resume_on_thread, &m);
    pthread_join(t, NULL);
    CHECK(m.status == 1 && w.rounds == 1, "%s: resumed on another thread (%d, %d)", what, m.status, w.rounds);
    n = walk_names(w.self, line, sizeof line);
    CHECK(n >= 4 && walk_in_order(line), "%s: the walk after the move (%zu): %s", what, n, line);
    CHECK(rj_coro_last_thread(w.self) != rj_current_thread_id(), "%s: the last resume was elsewhere", what);

    CHECK(rj_coro_resume(w.self) == 1 && w.rounds == 12, "%s: back on this thread to the end (%d)", what,
          w.rounds);
    CHECK(rj_coro_backtrace(w.self, pcs, 4) == 0, "%s: no frames once finished", what);
    rj_coro_destroy(w.self);
}

void inspect_tests(void) {
    rj_backend backends[3] = {RJ_BACKEND_FAST, RJ_BACKEND_FAST_OUT_OF_LINE, RJ_BACKEND_UCONTEXT};
    for (int b = 0; b < 3; b++) {
        if (backends[b] != RJ_BACKEND_UCONTEXT && !rj_fast_backend_available()) continue;
        test_walk(backends[b], 0);
    }
    if (rj_fast_backend_available()) test_walk(RJ_BACKEND_FAST, 1);
}
