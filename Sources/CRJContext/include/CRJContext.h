/*
 * CRJContext: stacks and context switches for RJIterator.
 *
 * One job: give a piece of code its own stack and switch to it and back.
 * Everything about generators (values, errors, states) lives in Swift.
 *
 * Ownership and threads
 * - A coroutine (rj_coro) is created by rj_coro_create and owned by whoever
 *   created it; rj_coro_destroy gives its stack back (to the pool or the OS).
 * - rj_coro_resume runs the coroutine on the calling thread until it calls
 *   rj_coro_suspend or its entry function returns; then rj_coro_resume returns,
 *   on the same thread. The next resume may come from any thread, but never
 *   two at once: the caller (Swift's Generator) serialises resumes.
 * - A coroutine may resume another one (nesting); each remembers who resumed it.
 *
 * Backends (see docs/context-switching.md)
 * - RJ_BACKEND_FAST: hand-written assembly, no system call per switch
 *   (x86_64 SysV, arm64 AAPCS64). The default where available.
 * - RJ_BACKEND_UCONTEXT: makecontext/swapcontext. Portable; swapcontext makes
 *   a sigprocmask system call per switch. Build with -DRJ_CONTEXT_UCONTEXT=1 to
 *   make it the default (and to leave the assembly out).
 */
#ifndef CRJCONTEXT_H
#define CRJCONTEXT_H

#include <stddef.h>
#include <stdint.h>

#if !defined(__clang__)
#  define _Nullable
#  define _Nonnull
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rj_coro rj_coro;
typedef void (*rj_coro_entry)(void *_Nullable arg);

typedef enum {
    RJ_BACKEND_FAST = 0,
    RJ_BACKEND_UCONTEXT = 1,
} rj_backend;

/* ---- Coroutines ------------------------------------------------------- */

/* Creates a coroutine that will run entry(arg) on a stack of at least
 * stack_size usable bytes (0: the default size), switching with `backend`
 * (RJ_BACKEND_FAST where it is not compiled in means ucontext). Nothing runs
 * until the first rj_coro_resume. Returns NULL when no stack can be had;
 * rj_last_error() then says why and which knob to turn. */
rj_coro *_Nullable rj_coro_create(size_t stack_size, rj_backend backend,
                                  rj_coro_entry _Nonnull entry, void *_Nullable arg);

/* Runs c on the calling thread until it suspends or finishes; returns 1 if
 * it finished (its entry function returned), 0 if it suspended. */
int rj_coro_resume(rj_coro *_Nonnull c);

/* Called from inside c: switches back to whoever resumed it. */
void rj_coro_suspend(rj_coro *_Nonnull c);


/* Gives c's stack back. c must not be running. If c is suspended, its stack
 * is dropped without unwinding: whatever its frames hold is not released. */
void rj_coro_destroy(rj_coro *_Nonnull c);


/* An opaque pointer for the layer above: the Swift object that owns the
 * coroutine, unretained. */
void rj_coro_set_owner(rj_coro *_Nonnull c, void *_Nullable owner);

/* The backend c switches with. */
rj_backend rj_coro_backend(const rj_coro *_Nonnull c);

/* Usable stack size of c, in bytes. */
size_t rj_coro_stack_size(const rj_coro *_Nonnull c);

/* The lowest usable byte of c's stack; the guard lies just below it. */
void *_Nonnull rj_coro_stack_bottom(const rj_coro *_Nonnull c);

/* ---- Hot accessors, inline ---------------------------------------------
 * The first fields of every rj_coro, public so that the accessors a switch
 * needs compile inline into the Swift layer. Read-only outside rj_context.c. */
typedef struct rj_coro_head {
    void *_Nullable sp;
    void *_Nullable caller_sp;
    void *_Nullable owner;
    /* Unique for the life of the process: no two coroutines ever get the same
     * id, even when one reuses another's memory (see rj_coro_id). */
    uint64_t id;
    unsigned char backend;
    unsigned char finished;
} rj_coro_head;

/* The coroutine running on this thread (NULL on a thread's own stack).
 *
 * Deliberately not inline. A coroutine suspended on one thread may resume on another, in the
 * middle of a function; a compiler that inlined the thread-local read may keep the thread's
 * TLS address from before the switch and read the *old* thread's value afterwards (it
 * assumes a function never changes threads). A call computes the address afresh. */
rj_coro *_Nullable rj_coro_current(void);

/* 1 once the entry function has returned. */
static inline int rj_coro_is_finished(const rj_coro *_Nonnull c) {
    return ((const rj_coro_head *)(const void *)c)->finished;
}

/* The owner recorded by rj_coro_set_owner. */
static inline void *_Nullable rj_coro_owner(const rj_coro *_Nonnull c) {
    return ((const rj_coro_head *)(const void *)c)->owner;
}

/* The coroutine's identity: given at rj_coro_create, never given again in this
 * process (never 0). An address is not an identity: a freed coroutine's header,
 * or its owner's object, may be reused by the next one. */
static inline uint64_t rj_coro_id(const rj_coro *_Nonnull c) {
    return ((const rj_coro_head *)(const void *)c)->id;
}


/* ---- Configuration (process-wide, thread-safe) ------------------------ */

/* The backend new coroutines use. Setting RJ_BACKEND_FAST where it is not
 * compiled in is ignored. */
rj_backend rj_default_backend(void);
void rj_set_default_backend(rj_backend backend);
/* "fast (x86_64 sysv)", "fast (arm64 aapcs64)" or "ucontext". */
const char *_Nonnull rj_backend_name(rj_backend backend);
/* 1 if the fast backend is compiled in on this architecture. */
int rj_fast_backend_available(void);

/* Default usable stack size (256 KiB unless changed). */
size_t rj_default_stack_size(void);
void rj_set_default_stack_size(size_t size);
/* Smallest stack size accepted (a request below it is an error). */
size_t rj_min_stack_size(void);
/* Bytes of guard below every stack (64 KiB unless changed; whole pages).
 * Applies to stacks mapped afterwards; the pool is emptied on a change. */
size_t rj_guard_size(void);
void rj_set_guard_size(size_t size);

/* Stack pool: at most `limit` freed stacks are kept for reuse, and at most
 * `resident` of them keep their memory; the rest give it back to the OS. */
size_t rj_stack_pool_limit(void);
void rj_set_stack_pool_limit(size_t limit);
size_t rj_stack_pool_resident_limit(void);
void rj_set_stack_pool_resident_limit(size_t limit);
/* Empties the pool, unmapping every pooled stack. */
void rj_stack_pool_drain(void);

/* ---- Statistics (for tests and the benchmark) ------------------------- */

/* Stacks mapped and not yet unmapped (pooled ones included). */
size_t rj_stats_mapped_stacks(void);
/* Stacks handed out to coroutines and not yet given back. */
size_t rj_stats_live_stacks(void);
/* Stacks waiting in the pool. */
size_t rj_stats_pooled_stacks(void);
/* 1 if guard pages are installed with MADV_GUARD_INSTALL, 0 with mprotect. */
int rj_guard_uses_madvise(void);

/* 1 if this thread checks Swift's exclusivity state inline before calling the
 * runtime (see rj_context.c); 0 if it calls the runtime on every switch
 * (RJ_EXCLUSIVITY_SLOW_PATH=1 in the environment forces that). */
int rj_exclusivity_fast_path(void);

/* 1 if this thread saves and restores the task-local values a coroutine binds
 * outside any task (see rj_swift_state.c); 0 if the runtime's layout was not
 * recognised and they are not tracked. */
int rj_task_locals_tracked(void);

/* "address" or "thread" when the C core was built with that sanitizer (and
 * annotates every switch for it), "" otherwise. */
const char *_Nonnull rj_sanitizer(void);

/* The message of the last failure on this thread ("" if none). */
const char *_Nonnull rj_last_error(void);

/* Writes msg and a newline to stderr in one write (messages of the Swift layer). */
void rj_report(const char *_Nonnull msg);

/* ---- Benchmark floor -------------------------------------------------- */

/* Measures `iterations` round trips (resume + suspend) of the bare switch of
 * `backend`, with none of rj_coro_resume's bookkeeping. Returns nanoseconds
 * per round trip, or -1 if the backend is not available or the build is
 * sanitized (an unannotated switch would confuse the sanitizer). */
double rj_bench_raw_round_trip(rj_backend backend, uint64_t iterations);

#ifdef __cplusplus
}
#endif
#endif
