/*
 * Shared-stack coroutines: libaco's copy-stack idea, for coroutines that must
 * cost little while suspended (docs/context-switching.md, "Shared stacks").
 *
 * A shared coroutine has no stack of its own. At its first resume it is given
 * one of a few run stacks, for life: its frames hold absolute addresses, so
 * they always run at the same place. A run stack's occupant is the coroutine
 * whose frames are on it; every other coroutine bound to it keeps its frames
 * in a heap block the size of what they use, and they are copied back before
 * it runs. A copy is made
 *   - in place, on the current stack, when the code that switches does not
 *     run on the run stack concerned;
 *   - through this thread's copier (a coroutine on a small stack of its own)
 *     when it does: a body on run stack R resuming another coroutine of R,
 *     and that one's return to it.
 *
 * Threads. A run stack is held by the thread whose resume chain has
 * coroutines on it (`depth` counts them); only that thread touches the run
 * stack and its occupant. Another thread that needs it waits until the chain
 * has left it. Waiting while holding another run stack could deadlock (two
 * threads, each waiting for a run stack the other holds): the wait follows
 * holder, the run stack it waits for, its holder..., and stops the program
 * with a message if that leads back to the waiting thread.
 *
 * Values. A body writes into its resumer's frames (the Swift layer's hand-off
 * slots). When the two share a run stack the resumer's frames are away while
 * the body runs, and rj_coro_locate says where those bytes are meanwhile.
 */
#include "rj_internal.h"
#include "rj_thread.h"
#include "rj_tools.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The switch every shared coroutine and the copier use. Both sides of a switch must use the
 * same one (a frame saved by one cannot be restored by the other), so it is chosen per build:
 * the inline switch where generators have it (the Swift layer then switches a shared
 * coroutine inline too, between rj_shared_will_resume and rj_shared_did_return, and
 * rj_shared_will_suspend), the out-of-line one in sanitized builds, whose fiber calls sit
 * beside it. A coroutine's switches_inline says which format its saved frame has (rj_frame.c,
 * rj_inspect.c): 2 for a shared one that switches inline. */
#if RJ_SHARED_INLINE
#  define rj_shared_switch(from, to) rj_switch_inline((from), (to))
#else
#  define rj_shared_switch(from, to) rj_switch((from), (to))
#endif

#define RJ_MAX_RUN_STACKS 256u
#define RJ_COPIER_STACK (64u * 1024u)

typedef struct rj_thread_rec rj_thread_rec;

struct rj_run_stack {
    rj_coro *memory;       /* a stack of its own, used as memory */
    char *lo, *hi;         /* frames go in [lo, hi) */
    rj_coro *occupant;     /* whose frames are on it; touched by the holder only */
    rj_thread_rec *holder; /* atomic: the thread whose chain is on it, or NULL */
    unsigned depth;        /* the holder's coroutines on it, running or resuming another */
    int dump_waiting;      /* atomic: a dump waits to read frames here; takers let it go first */
#if RJ_VALGRIND
    unsigned valgrind_id;
#endif
};

struct rj_thread_rec {
    struct rj_run_stack *waiting_for; /* atomic: the run stack this thread waits for */
    unsigned held;                    /* run stacks it holds */
    unsigned next_pick;               /* where its next choice of a run stack starts */
    rj_coro *copier;
    /* The copier's job: save `save`'s frames (from *save_sp up, unless NULL), restore
     * `restore`'s, continue the context saved at *target. */
    rj_coro *save;
    void **save_sp;
    rj_coro *restore;
    void **target;
#if RJ_TSAN
    void *target_fiber;
#endif
    rj_thread_rec *next_free;
};

static void rj_spin_lock(int *word) {
    unsigned spins = 0;
    while (__atomic_exchange_n(word, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(word, __ATOMIC_RELAXED)) {
            if (++spins > 64) { sched_yield(); spins = 0; }
        }
    }
}
static void rj_spin_unlock(int *word) { __atomic_store_n(word, 0, __ATOMIC_RELEASE); }

/* ---- Configuration and statistics ---------------------------------------- */

static unsigned rj_cfg_run_stacks = 16;
int rj_cfg_stack_mode = -1; /* -1 until the environment is read (below) or a mode is set */
int rj_shared_in_use;
static struct rj_run_stack rj_runs[RJ_MAX_RUN_STACKS];
static unsigned rj_runs_made;      /* atomic: how many of rj_runs are ready */
static int rj_runs_lock;
static size_t rj_shared_count;     /* atomic: shared coroutines alive */
static size_t rj_saved_bytes;      /* atomic: bytes their saved blocks hold */
static size_t rj_copier_trips;     /* atomic: switches that went through a copier */

/* RJ_STACK_MODE=shared in the environment makes shared the default from the start: how CI
 * runs the whole suite in both modes. Read at the first question, unless a mode was set before
 * it: every generator's creation asks, so the answer after that is one load (no
 * pthread_once). Threads asking at once all read the same environment; the first store wins. */
rj_stack_mode rj_read_default_stack_mode(void) {
    const char *env = getenv("RJ_STACK_MODE");
    int mode = env && strcmp(env, "shared") == 0 && RJ_HAVE_FAST ? RJ_STACK_SHARED : RJ_STACK_DEDICATED;
    int unknown = -1;
    __atomic_compare_exchange_n(&rj_cfg_stack_mode, &unknown, mode, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    return (rj_stack_mode)__atomic_load_n(&rj_cfg_stack_mode, __ATOMIC_RELAXED);
}
void rj_set_default_stack_mode(rj_stack_mode mode) {
    if (mode != RJ_STACK_DEDICATED && mode != RJ_STACK_SHARED) return;
    __atomic_store_n(&rj_cfg_stack_mode, (int)mode, __ATOMIC_RELAXED);
}
int rj_shared_stacks_available(void) { return RJ_HAVE_FAST; }

size_t rj_shared_run_stack_count(void) { return __atomic_load_n(&rj_cfg_run_stacks, __ATOMIC_RELAXED); }

int rj_set_shared_run_stack_count(size_t count) {
    if (count < 1 || count > RJ_MAX_RUN_STACKS) {
        rj_set_error("RJIterator: sharedRunStackCount must be between 1 and %u, got %zu", RJ_MAX_RUN_STACKS, count);
        return -1;
    }
    rj_spin_lock(&rj_runs_lock);
    if (__atomic_load_n(&rj_shared_count, __ATOMIC_ACQUIRE) != 0) {
        rj_spin_unlock(&rj_runs_lock);
        rj_set_error("RJIterator: sharedRunStackCount can only change while no shared-stack generator "
                     "exists; set it at the start of the program");
        return -1;
    }
    /* No shared coroutine: no frames on the run stacks, nobody holds them. */
    unsigned made = __atomic_load_n(&rj_runs_made, __ATOMIC_RELAXED);
    for (unsigned i = 0; i < made; i++) {
#if RJ_VALGRIND
        VALGRIND_STACK_DEREGISTER(rj_runs[i].valgrind_id);
#endif
        rj_stack_release(rj_runs[i].memory);
        memset(&rj_runs[i], 0, sizeof rj_runs[i]);
    }
    __atomic_store_n(&rj_runs_made, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&rj_cfg_run_stacks, (unsigned)count, __ATOMIC_RELAXED);
    rj_spin_unlock(&rj_runs_lock);
    return 0;
}

size_t rj_stats_shared_coroutines(void) { return __atomic_load_n(&rj_shared_count, __ATOMIC_RELAXED); }
size_t rj_stats_shared_saved_bytes(void) { return __atomic_load_n(&rj_saved_bytes, __ATOMIC_RELAXED); }
size_t rj_stats_shared_copier_trips(void) { return __atomic_load_n(&rj_copier_trips, __ATOMIC_RELAXED); }

/* ---- Threads -------------------------------------------------------------
 * A record per thread, never freed (another thread may read its waiting_for
 * while following a chain of waits): a thread that ends gives it to the next
 * thread that starts, and its copier's stack back. */

static pthread_key_t rj_rec_key;
static pthread_once_t rj_rec_once = PTHREAD_ONCE_INIT;
static rj_thread_rec *rj_free_recs;
static int rj_free_recs_lock;
static RJ_TLS rj_thread_rec *rj_me_rec;

static void rj_rec_thread_ended(void *value) {
    rj_thread_rec *rec = value;
    if (rec->copier) {
        rj_tools_destroyed(rec->copier);
        rj_stack_release(rec->copier);
    }
    rec->copier = NULL;
    rj_spin_lock(&rj_free_recs_lock);
    rec->next_free = rj_free_recs;
    rj_free_recs = rec;
    rj_spin_unlock(&rj_free_recs_lock);
}

static void rj_rec_make_key(void) { pthread_key_create(&rj_rec_key, rj_rec_thread_ended); }

static __attribute__((noinline)) rj_thread_rec *rj_me_first(void);
/* This thread's record: a thread-local read, but for the thread's first time. */
static inline __attribute__((always_inline)) rj_thread_rec *rj_me(void) {
    rj_thread_rec *rec = rj_me_rec;
    return __builtin_expect(rec != NULL, 1) ? rec : rj_me_first();
}

static rj_thread_rec *rj_me_first(void) {
    rj_thread_rec *rec;
    pthread_once(&rj_rec_once, rj_rec_make_key);
    rj_spin_lock(&rj_free_recs_lock);
    rec = rj_free_recs;
    if (rec) rj_free_recs = rec->next_free;
    rj_spin_unlock(&rj_free_recs_lock);
    if (!rec) {
        rec = calloc(1, sizeof *rec);
        if (!rec) rj_fatal("RJIterator: out of memory for a thread's shared-stack record");
    }
    rec->next_free = NULL;
    rec->held = 0;
    __atomic_store_n(&rec->waiting_for, NULL, __ATOMIC_RELAXED);
    rj_me_rec = rec;
    pthread_setspecific(rj_rec_key, rec);
    return rec;
}

/* ---- Run stacks ------------------------------------------------------------ */

static void rj_runs_make(void) {
    if (__atomic_load_n(&rj_runs_made, __ATOMIC_ACQUIRE)) return;
    rj_spin_lock(&rj_runs_lock);
    if (!__atomic_load_n(&rj_runs_made, __ATOMIC_RELAXED)) {
        unsigned n = rj_shared_run_stack_count();
        for (unsigned i = 0; i < n; i++) {
            struct rj_run_stack *r = &rj_runs[i];
            r->memory = rj_stack_map_run(rj_default_stack_size());
            if (!r->memory) {
                char message[512];
                snprintf(message, sizeof message, "%s (while making the run stacks of shared-stack generators)",
                         rj_last_error());
                rj_fatal(message);
            }
            r->lo = r->memory->stack_lo;
            r->hi = r->memory->stack_hi;
#if RJ_VALGRIND
            r->valgrind_id = VALGRIND_STACK_REGISTER(r->lo, r->hi);
#endif
        }
        __atomic_store_n(&rj_runs_made, n, __ATOMIC_RELEASE);
    }
    rj_spin_unlock(&rj_runs_lock);
}

/* The run stack a coroutine gets at its first resume: one no thread holds if
 * there is one, else one this thread holds (its copier moves frames), else
 * any (the resume waits for it). */
static struct rj_run_stack *rj_pick(rj_thread_rec *me) {
    rj_runs_make();
    unsigned n = __atomic_load_n(&rj_runs_made, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n; i++) {
        unsigned k = (me->next_pick + i) % n;
        if (!__atomic_load_n(&rj_runs[k].holder, __ATOMIC_RELAXED)) {
            me->next_pick = k + 1;
            return &rj_runs[k];
        }
    }
    for (unsigned i = 0; i < n; i++) {
        unsigned k = (me->next_pick + i) % n;
        if (__atomic_load_n(&rj_runs[k].holder, __ATOMIC_RELAXED) == me) {
            me->next_pick = k + 1;
            return &rj_runs[k];
        }
    }
    return &rj_runs[me->next_pick++ % n];
}

/* 1 if the holder of r, or the holder of the run stack that one waits for, and
 * so on, is me: waiting for r would never end. */
static int rj_waits_for_me(struct rj_run_stack *r, rj_thread_rec *me) {
    for (unsigned hops = 0; r && hops < 4096; hops++) {
        rj_thread_rec *t = __atomic_load_n(&r->holder, __ATOMIC_ACQUIRE);
        if (!t) return 0;
        if (t == me) return 1;
        r = __atomic_load_n(&t->waiting_for, __ATOMIC_ACQUIRE);
    }
    return 0;
}

static void rj_run_wait(struct rj_run_stack *r, rj_thread_rec *me) {
    __atomic_store_n(&me->waiting_for, r, __ATOMIC_RELEASE);
    unsigned spins = 0, cycles_seen = 0;
    for (;;) {
        rj_thread_rec *none = NULL;
        if (__atomic_compare_exchange_n(&r->holder, &none, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) break;
        if (me->held && rj_waits_for_me(r, me)) {
            /* Seen twice, some time apart: the threads of the cycle are all waiting. */
            if (++cycles_seen >= 2) {
                rj_fatal("RJIterator: deadlock between shared-stack generators on two threads: this thread "
                         "resumes a generator whose run stack another thread's generators are running on, while "
                         "that thread waits for a run stack this thread's generators are running on. Generators "
                         "that resume each other from several threads need stacks of their own: create them with "
                         "stackMode: .dedicated (or set RJRuntime.defaultStackMode = .dedicated)");
            }
        } else {
            cycles_seen = 0;
        }
        if (++spins > 64) {
            sched_yield();
            spins = 0;
        }
    }
    __atomic_store_n(&me->waiting_for, NULL, __ATOMIC_RELEASE);
}

static void rj_run_take_other(struct rj_run_stack *r, rj_thread_rec *me);
/* Takes r for this thread's chain: a count when the chain is on it already. */
static inline __attribute__((always_inline)) void rj_run_take(struct rj_run_stack *r, rj_thread_rec *me) {
    if (__atomic_load_n(&r->holder, __ATOMIC_RELAXED) == me) {
        r->depth++;
        return;
    }
    rj_run_take_other(r, me);
}

static __attribute__((noinline)) void rj_run_take_other(struct rj_run_stack *r, rj_thread_rec *me) {
    /* A dump waiting for this run stack goes first: it holds none, so this wait ends. */
    while (__atomic_load_n(&r->dump_waiting, __ATOMIC_ACQUIRE)) sched_yield();
    rj_thread_rec *none = NULL;
    if (!__atomic_compare_exchange_n(&r->holder, &none, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        rj_run_wait(r, me);
    r->depth = 1;
    me->held++;
}

static inline __attribute__((always_inline)) void rj_run_give(struct rj_run_stack *r, rj_thread_rec *me) {
    if (--r->depth == 0) {
        me->held--;
        __atomic_store_n(&r->holder, NULL, __ATOMIC_RELEASE);
    }
}

/* A dump reads a suspended coroutine's frames wherever they are (rj_coro_locate);
 * holding the run stack keeps another thread from moving them meanwhile. The dump
 * holds no run stack of its own while it waits (unless it runs on this one, in a
 * body: then nothing moves frames until it returns), so the wait is bounded by
 * the chain running there, and threads about to take the run stack let the dump
 * go first; it gives up after 20,000 yields (a body that runs that long on it). */
int rj_shared_hold_for_reading(rj_coro *c) {
    struct rj_run_stack *r = c->run;
    if (!r) return 0;
    rj_thread_rec *me = rj_me();
    if (__atomic_load_n(&r->holder, __ATOMIC_ACQUIRE) == me) {
        r->depth++;
        return 1;
    }
    __atomic_fetch_add(&r->dump_waiting, 1, __ATOMIC_ACQ_REL);
    int taken = 0;
    for (unsigned tries = 0; tries < 20000 && !taken; tries++) {
        rj_thread_rec *none = NULL;
        if (__atomic_compare_exchange_n(&r->holder, &none, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            r->depth = 1;
            me->held++;
            taken = 1;
        } else {
            sched_yield();
        }
    }
    __atomic_fetch_sub(&r->dump_waiting, 1, __ATOMIC_ACQ_REL);
    return taken;
}

void rj_shared_let_go_reading(rj_coro *c) { rj_run_give(c->run, rj_me()); }

/* ---- Moving frames ---------------------------------------------------------- */

/* Frames hold AddressSanitizer's redzones: read and written without its checks. */
#if RJ_ASAN
__attribute__((no_sanitize("address"))) static void rj_copy_frames(char *to, const char *from, size_t n) {
    volatile char *t = to;
    const volatile char *f = from;
    for (size_t i = 0; i < n; i++) t[i] = f[i];
}
#else
static void rj_copy_frames(char *to, const char *from, size_t n) { memcpy(to, from, n); }
#endif

/* Where o's frames begin while it does not run: at its own saved stack
 * pointer if it is suspended, at the one its callee keeps if it is resuming. */
static char *rj_parked_sp(const rj_coro *o) {
    return o->callee ? (char *)o->callee->caller_sp : (char *)o->sp;
}

/* Copies o's frames, from sp to the top of its run stack, into its block. */
static void rj_save(rj_coro *o, char *sp) {
    struct rj_run_stack *r = o->run;
    size_t len = (size_t)(r->hi - sp);
    if (len > o->saved_cap) {
        /* Exactly what the frames use (rounded to 16): a suspended coroutine's memory is this
         * block; one that later suspends deeper grows it once. */
        size_t cap = (len + 15) & ~(size_t)15;
        char *block = realloc(o->saved, cap);
        if (!block) rj_fatal("RJIterator: out of memory while saving a shared-stack generator's frames");
        __atomic_fetch_add(&rj_saved_bytes, cap - o->saved_cap, __ATOMIC_RELAXED);
        o->saved = block;
        o->saved_cap = cap;
    }
    rj_copy_frames(o->saved, sp, len);
    o->saved_sp = sp;
    o->saved_len = len;
    __atomic_store_n(&o->away, 1, __ATOMIC_RELAXED);
    r->occupant = NULL;
}

/* Puts c's frames back on its run stack (a new coroutine's first frame). */
static void rj_restore(rj_coro *c) {
    struct rj_run_stack *r = c->run;
#if RJ_HAVE_FAST
    if (c->fresh) {
        rj_prepare_fast(c);
        c->fresh = 0;
    } else
#endif
    {
        rj_copy_frames(c->saved_sp, c->saved, c->saved_len);
        __atomic_store_n(&c->away, 0, __ATOMIC_RELAXED);
    }
#if RJ_ASAN
    /* The shadow still describes the frames that were here before. */
    __asan_unpoison_memory_region(r->lo, (size_t)(r->hi - r->lo));
#endif
    r->occupant = c;
}

/* Makes room on c's run stack and puts c there, from a stack other than it. */
static void rj_bring_in_other(rj_coro *c);
static inline __attribute__((always_inline)) void rj_bring_in(rj_coro *c) {
    if (c->run->occupant != c) rj_bring_in_other(c);
}
static __attribute__((noinline)) void rj_bring_in_other(rj_coro *c) {
    struct rj_run_stack *r = c->run;
    if (r->occupant) rj_save(r->occupant, rj_parked_sp(r->occupant));
    rj_restore(c);
}

void *rj_coro_locate_in_resumer(const rj_coro *c, void *p) { return rj_coro_locate(c->resumer, p); }

void *rj_coro_locate(const rj_coro *c, void *p) {
    if (!c || !__atomic_load_n(&c->away, __ATOMIC_RELAXED)) return p;
    char *q = p;
    if (q < c->saved_sp || q >= c->run->hi) return p;
    return c->saved + (q - c->saved_sp);
}

/* ---- The copier ----------------------------------------------------------------
 * Moves frames for a switch between two coroutines of one run stack, from its
 * own stack: entered by rj_switch from the one leaving (which saves its
 * context on the run stack first), it saves that one's frames, restores the
 * other's and continues it. */

#if RJ_HAVE_FAST
static void rj_copier_main(void *arg) {
    rj_thread_rec *me = arg;
    for (;;) {
        rj_coro *self = me->copier;
        if (me->save) rj_save(me->save, (char *)*me->save_sp);
        else if (me->restore->run->occupant) me->restore->run->occupant = NULL;
        rj_coro *to = me->restore;
        rj_restore(to);
#if RJ_ASAN
        __sanitizer_start_switch_fiber(&self->asan_fake, to->run->lo, (size_t)(to->run->hi - to->run->lo));
#endif
#if RJ_TSAN
        __tsan_switch_to_fiber(me->target_fiber, 0);
#endif
        rj_shared_switch(&self->sp, *me->target);
#if RJ_ASAN
        __sanitizer_finish_switch_fiber(self->asan_fake, NULL, NULL);
#endif
    }
}

static rj_coro *rj_copier(rj_thread_rec *me) {
    if (!me->copier) {
        /* A coroutine of its own, outside the statistics, made here rather than by
         * rj_coro_create: rj_context.c calls this file, never the reverse. */
        rj_coro *k = rj_stack_map_run(RJ_COPIER_STACK);
        if (!k) {
            char message[512];
            snprintf(message, sizeof message, "%s (while making a thread's copier for shared-stack generators)",
                     rj_last_error());
            rj_fatal(message);
        }
        k->requested_size = RJ_COPIER_STACK;
        k->entry = rj_copier_main;
        k->arg = me;
        k->backend = RJ_BACKEND_FAST;
        k->switches_inline = RJ_SHARED_INLINE;
        rj_prepare_fast(k);
        rj_tools_created(k);
        me->copier = k;
    }
    return me->copier;
}

/* Leaves for the copier, from a coroutine of the run stack it works on. */
static void rj_enter_copier(rj_thread_rec *me, void **from_sp, void **my_fake) {
    rj_coro *copier = me->copier;
    __atomic_fetch_add(&rj_copier_trips, 1, __ATOMIC_RELAXED);
#if RJ_ASAN
    __sanitizer_start_switch_fiber(my_fake, copier->stack_lo, rj_stack_bytes(copier));
#else
    (void)my_fake;
#endif
#if RJ_TSAN
    __tsan_switch_to_fiber(copier->tsan_fiber, 0);
#endif
    rj_shared_switch(from_sp, copier->sp);
}
#endif

/* ---- Coroutines ------------------------------------------------------------- */

rj_coro *rj_shared_create(rj_coro_entry entry, void *arg) {
#if RJ_HAVE_FAST
    /* The header alone: the fast backend has no use for the ucontexts that follow it on a stack. */
    rj_coro *c = calloc(1, sizeof *c);
    if (!c) {
        rj_set_error("RJIterator: cannot allocate a shared-stack generator: out of memory");
        return NULL;
    }
    c->shared = 1;
    c->fresh = 1;
    c->backend = RJ_BACKEND_FAST;
    c->switches_inline = RJ_SHARED_INLINE ? 2 : 0;
    c->entry = entry;
    c->arg = arg;
    c->requested_size = rj_default_stack_size();
    __atomic_store_n(&rj_shared_in_use, 1, __ATOMIC_RELAXED);
    rj_spin_lock(&rj_runs_lock);
    __atomic_fetch_add(&rj_shared_count, 1, __ATOMIC_RELAXED);
    rj_spin_unlock(&rj_runs_lock);
    return c;
#else
    (void)entry;
    (void)arg;
    rj_set_error("RJIterator: shared stacks need the fast context backend, which this build does not have "
                 "(built with RJ_CONTEXT_UCONTEXT, or an architecture other than x86_64 and arm64); use "
                 "stackMode: .dedicated");
    return NULL;
#endif
}

void rj_shared_destroy(rj_coro *c) {
    struct rj_run_stack *r = c->run;
    if (r) {
        rj_thread_rec *me = rj_me();
        rj_run_take(r, me);
        if (r->occupant == c) r->occupant = NULL;
        rj_run_give(r, me);
    }
    if (c->saved_cap) __atomic_fetch_sub(&rj_saved_bytes, c->saved_cap, __ATOMIC_RELAXED);
    free(c->saved);
    __atomic_fetch_sub(&rj_shared_count, 1, __ATOMIC_RELAXED);
    free(c);
}

#if RJ_HAVE_FAST
/* The resume of a shared coroutine, after rj_coro_resume's bookkeeping (c->resumer is set):
 * returns when c suspends or ends. */
void rj_shared_switch_in(rj_coro *c) {
    rj_thread_rec *me = rj_me();
    rj_coro *a = c->resumer;
    if (!c->run) {
        struct rj_run_stack *r = rj_pick(me);
        c->run = r;
        c->map_base = r->memory->map_base;
        c->map_size = r->memory->map_size;
        c->stack_lo = r->lo;
        c->stack_hi = r->hi;
    }
    struct rj_run_stack *r = c->run;
    rj_run_take(r, me);
    if (a) a->callee = c;
    if (r->occupant != c && a && a->shared && a->run == r) {
        /* a runs on this run stack: its frames and c's change places from the copier's. */
        rj_copier(me);
        me->save = a;
        me->save_sp = &c->caller_sp;
        me->restore = c;
        me->target = &c->sp;
#if RJ_TSAN
        c->tsan_resumer = __tsan_get_current_fiber();
        me->target_fiber = c->tsan_fiber;
#endif
#if RJ_ASAN
        rj_enter_copier(me, &c->caller_sp, &c->asan_resumer_fake);
#else
        rj_enter_copier(me, &c->caller_sp, NULL);
#endif
        rj_tools_back_from(c);
    } else {
        rj_bring_in(c);
        rj_tools_leave_for(c);
        rj_shared_switch(&c->caller_sp, c->sp);
        rj_tools_back_from(c);
    }
    if (a) a->callee = NULL;
    rj_run_give(r, me);
}

#if RJ_SHARED_INLINE
/* Everything rj_shared_will_resume does, from a state where it has done nothing. */
static __attribute__((noinline)) int rj_shared_will_resume_general(rj_coro *c, struct rj_run_stack *r, rj_coro *a) {
    rj_coro_will_resume(c);
    rj_run_take(r, rj_me());
    if (a) a->callee = c;
    rj_bring_in(c);
    return 1;
}

/* The rest of rj_shared_will_resume once it holds r, when c's frames are not on it (another
 * coroutine of r ran since c last did): the leaf bookkeeping, then c's frames brought in. */
static __attribute__((noinline)) int rj_shared_will_resume_bringing_in(rj_coro *c, rj_coro *a) {
    rj_will_resume_leaf(c);
    if (a) a->callee = c;
    rj_bring_in_other(c);
    return 1;
}

/* The inline switch's halves for a shared coroutine (CRJContext.h): what rj_coro_resume and
 * rj_shared_switch_in do before and after the switch, for the common case, where no frames
 * move through the copier; 0 from the first half means "not this case, nothing done": the
 * caller takes rj_coro_resume. */
int rj_shared_will_resume(rj_coro *c) {
    struct rj_run_stack *r = c->run;
    rj_coro *a = rj_current;
    /* The first resume picks a run stack; a resumer on c's run stack means the copier, unless
     * c's frames are there already (this thread holds r then: a runs on it). */
    if (!r || (a && a->shared && a->run == r && r->occupant != c)) return 0;
    /* The common case is a leaf (no call, no register saved): the leaf bookkeeping, and r
     * taken with one compare-and-swap (or a count, when this thread's chain is on it). */
    rj_thread_rec *me = rj_me_rec;
    if (__builtin_expect(!me || !rj_will_resume_is_leaf(c) || __atomic_load_n(&r->dump_waiting, __ATOMIC_RELAXED), 0))
        return rj_shared_will_resume_general(c, r, a);
    rj_thread_rec *holder = __atomic_load_n(&r->holder, __ATOMIC_RELAXED);
    if (holder == me) {
        r->depth++;
    } else if (holder == NULL &&
               __atomic_compare_exchange_n(&r->holder, &holder, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        r->depth = 1;
        me->held++;
    } else {
        return rj_shared_will_resume_general(c, r, a);
    }
    /* Read only now that r is held: until then another thread may run another coroutine of r. */
    if (__builtin_expect(r->occupant != c, 0)) return rj_shared_will_resume_bringing_in(c, a);
    rj_will_resume_leaf(c);
    if (a) a->callee = c;
    return 1;
}

int rj_shared_did_return(rj_coro *c) {
    rj_coro *a = c->resumer;
    if (a) a->callee = NULL;
    /* This thread holds the run stack (its record exists): rj_run_give without rj_me's check. */
    rj_run_give(c->run, rj_me_rec);
    if (!rj_did_return_is_leaf(c)) return rj_coro_did_return(c);
    return rj_did_return_leaf(c);
}

/* The body's half: 1 when its resumer's frames are in place (brought back here if they were
 * on another run stack), 0 when they come back through the copier (rj_coro_suspend). */
int rj_shared_will_suspend(rj_coro *c) {
    rj_coro *a = c->resumer;
    if (a && a->away) {
        if (a->run == c->run) return 0;
        rj_bring_in(a);
    }
    return 1;
}
#endif

/* The suspend (or end) of a shared coroutine: back to its resumer, whose frames go back on
 * their run stack first if they are away. */
void rj_shared_switch_out(rj_coro *c) {
    rj_coro *a = c->resumer;
    if (a && a->away) {
        rj_thread_rec *me = rj_me();
        if (a->run == c->run) {
            rj_copier(me);
            me->save = c->finished ? NULL : c;
            me->save_sp = &c->sp;
            me->restore = a;
            me->target = &c->caller_sp;
#if RJ_TSAN
            me->target_fiber = c->tsan_resumer;
#endif
#if RJ_ASAN
            rj_enter_copier(me, &c->sp, c->finished ? NULL : &c->asan_fake);
#else
            rj_enter_copier(me, &c->sp, NULL);
#endif
            rj_tools_arrived(c);
            return;
        }
        rj_bring_in(a);
    }
    rj_tools_leave_to_resumer(c);
    rj_shared_switch(&c->sp, c->caller_sp);
    rj_tools_arrived(c);
}
#else
void rj_shared_switch_in(rj_coro *c) { (void)c; rj_fatal("RJIterator: internal error: a shared coroutine without the fast backend"); }
void rj_shared_switch_out(rj_coro *c) { (void)c; rj_fatal("RJIterator: internal error: a shared coroutine without the fast backend"); }
#endif

#if !RJ_SHARED_INLINE
/* No shared coroutine switches inline in this build (its switches_inline is never 2). */
int rj_shared_will_resume(rj_coro *c) { (void)c; return 0; }
int rj_shared_did_return(rj_coro *c) {
    (void)c;
    rj_fatal("RJIterator: internal error: a shared coroutine's inline half in a build without them");
}
int rj_shared_will_suspend(rj_coro *c) { (void)c; return 0; }
#endif

int rj_coro_is_shared(const rj_coro *c) { return c->shared; }
size_t rj_coro_saved_bytes(const rj_coro *c) { return c->saved_cap; }
