/*
 * Internal layout of a coroutine and the pieces the C files share.
 *
 * Memory of one coroutine, one slot of a slab (or, for a stack of another size
 * than the default, a mapping of its own), low addresses first:
 *
 *   map_base                stack_lo                          header   map_base+map_size
 *   | guard (no access)     | usable stack, grows downwards    | rj_coro |
 *
 * The header sits at the top of its own stack, so a coroutine costs no
 * malloc, and the page holding it is the page the first frames use: a
 * suspended generator that has not gone deep touches one or two pages. Its
 * place in that page differs from stack to stack (its colour, rj_stack.c), so
 * that the headers and top frames of many stacks do not all fall on the same
 * cache sets.
 */
#ifndef RJ_INTERNAL_H
#define RJ_INTERNAL_H

#if defined(__APPLE__)
/* makecontext & co. are deprecated, not gone, on Darwin, and <ucontext.h> stops the build
 * unless _XOPEN_SOURCE is defined. That alone makes Darwin's headers strictly POSIX: they
 * hide MAP_ANONYMOUS, madvise and MADV_DONTNEED (rj_stack.c), dladdr (rj_inspect.c) and
 * pthread_threadid_np (rj_thread.c). _DARWIN_C_SOURCE keeps the rest of the system's API. */
#  define _XOPEN_SOURCE 700
#  define _DARWIN_C_SOURCE 1
#  pragma clang diagnostic ignored "-Wdeprecated-declarations"
#endif

#include "CRJContext.h"

#if defined(RJ_CONTEXT_UCONTEXT) && RJ_CONTEXT_UCONTEXT
#  define RJ_HAVE_FAST 0
#elif defined(__x86_64__) && !defined(_WIN32)
#  define RJ_HAVE_FAST 1
#elif defined(__aarch64__) && !defined(_WIN32)
#  define RJ_HAVE_FAST 1
#else
#  define RJ_HAVE_FAST 0
#endif

#include <ucontext.h>

/* ---- Sanitizers and valgrind -------------------------------------------
 * Code that switches stacks must tell the tools that watch stacks, or they
 * see one thread jump between unrelated stacks (minicoro's way: compile-time
 * switches, no cost when off):
 *   RJ_ASAN      AddressSanitizer: __sanitizer_start/finish_switch_fiber around
 *                every switch (fake stacks for detect_stack_use_after_return
 *                follow the coroutine), shadow of a reused stack cleared.
 *                On when this file is compiled with -fsanitize=address.
 *   RJ_TSAN      ThreadSanitizer: one fiber per coroutine (__tsan_create_fiber),
 *                switched to before every switch, destroyed with the coroutine.
 *                On when compiled with -fsanitize=thread.
 *   RJ_VALGRIND  registers each stack (VALGRIND_STACK_REGISTER), so valgrind
 *                does not take a switch for a stack overflow. On when
 *                <valgrind/valgrind.h> is there at build time; the requests
 *                cost a few instructions when not under valgrind. Build with
 *                -DRJ_USE_VALGRIND=0 to leave it out.
 * The hooks are the inline functions of rj_tools.h, included by the two files
 * that switch (rj_context.c, rj_shared.c). */
#if defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define RJ_ASAN 1
#  endif
#  if __has_feature(thread_sanitizer)
#    define RJ_TSAN 1
#  endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(RJ_ASAN)
#  define RJ_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__) && !defined(RJ_TSAN)
#  define RJ_TSAN 1
#endif
#ifndef RJ_ASAN
#  define RJ_ASAN 0
#endif
#ifndef RJ_TSAN
#  define RJ_TSAN 0
#endif

#if !defined(RJ_USE_VALGRIND) && defined(__has_include)
#  if __has_include(<valgrind/valgrind.h>)
#    define RJ_USE_VALGRIND 1
#  endif
#endif
#if defined(RJ_USE_VALGRIND) && RJ_USE_VALGRIND
#  define RJ_VALGRIND 1
#  include <valgrind/valgrind.h>
#else
#  define RJ_VALGRIND 0
#endif

#define RJ_HIDDEN __attribute__((visibility("hidden")))

/* Thread-locals read on every resume or creation. Position-independent code gets the
 * general-dynamic model by default: a call to __tls_get_addr per access, which the linker
 * turns into an %fs-relative load in an executable, but only after the compiler has saved
 * registers around a call and computed the address again after it, so that a resume's
 * bookkeeping needed a frame. The initial-exec model is one load from the GOT and an
 * %fs-relative access, no call. Its cost: a shared library built with it needs static TLS
 * space, which a library dlopen'ed late finds in glibc's surplus reserve (these are a few
 * words). ELF only: Darwin has its own thread-local scheme. */
#if defined(__ELF__)
#  define RJ_TLS _Thread_local __attribute__((tls_model("initial-exec")))
#else
#  define RJ_TLS _Thread_local
#endif

struct rj_coro {
    /* Same order as rj_coro_head in CRJContext.h (checked below). */
    void *sp;                  /* fast backend: saved stack pointer of the suspended coroutine */
    void *caller_sp;           /* fast backend: saved stack pointer of the resumer */
    void *owner;
    uint64_t id;
    unsigned char backend;
    unsigned char finished;
    unsigned char switches_inline;
    unsigned char away;        /* shared: its frames are in its saved block, not on its run stack */
    /* What every resume reads or writes is in the first two cache lines (the header is
     * 64-byte aligned): the head above, the two words below, the exclusivity set and the
     * task-local heads, the resumer. A chain of a thousand generators resumes each of them per
     * value, so every line a resume touches is a line a long chain misses on. */
    int last_thread;           /* the thread id of its last resume, for dumps (rj_inspect.c) */
    /* Swift runtime state saved per coroutine: the exclusivity access set
     * (two words, the layout swift_task_enter/exitThreadLocalContext use). */
    uintptr_t exclusivity[2];
    /* Task-local values the body bound outside any task (rj_swift_state.c):
     * the top and bottom of its own chain while suspended, and the resumer's
     * head during a resume. */
    void *tl_head;
    void *tl_resumer_head;
    rj_coro *resumer;          /* coroutine current when this one was resumed */
    void *tl_bottom;
    rj_coro_entry entry;
    void *arg;
    /* Stack. */
    char *map_base;
    size_t map_size;
    char *stack_lo;            /* lowest usable byte, just above the guard */
    char *stack_hi;            /* one past the highest usable byte (this header) */
    size_t requested_size;     /* the stack size asked for, as messages report it */
    unsigned char shared;      /* 1: a shared-stack coroutine (rj_shared.c) */
    unsigned char fresh;       /* shared, never run: its first frame is written at copy-in */
    unsigned char size_given;  /* made with a stack size of its own (not the default): what the overflow message offers */
    unsigned char resident;    /* memory kept while pooled */
    unsigned char uncounted;   /* a stack of the layer itself (run stacks, copiers): not in the statistics */
    rj_coro *callee;           /* the coroutine this one is resuming now, or NULL (rj_shared.c) */
    union {
        struct {               /* a stack of its own (rj_stack.c) */
            rj_coro *pool_next; /* the pool's lists */
            rj_coro *pool_prev;
            struct rj_slab *slab; /* the slab this stack was carved from, or NULL */
            unsigned slot;      /* its index there */
#if RJ_VALGRIND
            unsigned valgrind_id; /* valgrind's name for this stack, while it is mapped */
#endif
        };
        struct {               /* a shared-stack coroutine (rj_shared.c) */
            struct rj_run_stack *run; /* its run stack, given at the first resume */
            char *saved;        /* its frames while another coroutine occupies the run stack */
            size_t saved_len, saved_cap;
            char *saved_sp;     /* where they go back to (their lowest address on the run stack) */
        };
    };
#if RJ_ASAN
    void *asan_fake;           /* this coroutine's fake stack while it is switched out */
    void *asan_resumer_fake;   /* the resumer's fake stack while this coroutine runs */
    const void *asan_resumer_bottom; /* the resumer's stack, learnt at each switch in */
    size_t asan_resumer_size;
#endif
#if RJ_TSAN
    void *tsan_fiber;          /* this coroutine's fiber */
    void *tsan_resumer;        /* the fiber that resumed it */
#endif
};

/* The ucontext backend's two contexts (936 bytes each on x86_64 glibc): right
 * after the header at the top of a stack, not in the header, so that a
 * shared-stack coroutine (fast backend only, a malloc'ed header) goes without. */
typedef struct {
    ucontext_t uc;
    ucontext_t caller_uc;
} rj_ucontexts;
#define RJ_UC_OFFSET ((sizeof(struct rj_coro) + 15) & ~(size_t)15)
/* What the top of a stack holds: the header, then the ucontexts. */
#define RJ_HEADER_BYTES (RJ_UC_OFFSET + sizeof(rj_ucontexts))
static inline rj_ucontexts *rj_uc(rj_coro *c) { return (rj_ucontexts *)(void *)((char *)c + RJ_UC_OFFSET); }

#include <stddef.h>
_Static_assert(offsetof(struct rj_coro, sp) == offsetof(rj_coro_head, sp), "rj_coro_head layout");
_Static_assert(offsetof(struct rj_coro, caller_sp) == offsetof(rj_coro_head, caller_sp), "rj_coro_head layout");
_Static_assert(offsetof(struct rj_coro, owner) == offsetof(rj_coro_head, owner), "rj_coro_head layout");
_Static_assert(offsetof(struct rj_coro, id) == offsetof(rj_coro_head, id), "rj_coro_head layout");
_Static_assert(offsetof(struct rj_coro, backend) == offsetof(rj_coro_head, backend), "rj_coro_head layout");
_Static_assert(offsetof(struct rj_coro, finished) == offsetof(rj_coro_head, finished), "rj_coro_head layout");
_Static_assert(offsetof(struct rj_coro, switches_inline) == offsetof(rj_coro_head, switches_inline), "rj_coro_head layout");
_Static_assert(offsetof(struct rj_coro, away) == offsetof(rj_coro_head, away), "rj_coro_head layout");
_Static_assert(offsetof(struct rj_coro, resumer) + sizeof(void *) <= 128, "a resume's fields in the first two lines");
_Static_assert(offsetof(struct rj_coro, resumer) == RJ_CORO_RESUMER_OFFSET, "rj_coro_in_resumer reads it there");
_Static_assert(offsetof(struct rj_coro, arg) == RJ_CORO_ARG_OFFSET, "rj_coro_arg reads it there");

/* rj_shared.c */
RJ_HIDDEN rj_coro *rj_shared_create(rj_coro_entry entry, void *arg);
RJ_HIDDEN void rj_shared_destroy(rj_coro *c);
/* 1 where shared coroutines switch inline (rj_shared.c). */
#if RJ_HAVE_FAST && RJ_HAVE_INLINE_SWITCH && !RJ_ASAN && !RJ_TSAN
#  define RJ_SHARED_INLINE 1
#else
#  define RJ_SHARED_INLINE 0
#endif
RJ_HIDDEN void rj_shared_switch_in(rj_coro *c);
/* For a dump: keeps c's run stack from changing hands while its frames are
 * read (1), or says it could not within a moment (0). */
RJ_HIDDEN int rj_shared_hold_for_reading(rj_coro *c);
RJ_HIDDEN void rj_shared_let_go_reading(rj_coro *c);
RJ_HIDDEN void rj_shared_switch_out(rj_coro *c);

/* rj_stack.c */
RJ_HIDDEN rj_coro *rj_stack_acquire(size_t stack_size);
/* A stack of its own mapping for the layer's own use, outside the pool and the statistics. */
RJ_HIDDEN rj_coro *rj_stack_map_run(size_t stack_size);
RJ_HIDDEN void rj_stack_release(rj_coro *c);
RJ_HIDDEN size_t rj_page_size(void);

/* rj_error.c */
RJ_HIDDEN void rj_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Writes the message and a newline to stderr and aborts: misuse the layer
 * above should have made impossible. */
RJ_HIDDEN __attribute__((noreturn)) void rj_fatal(const char *msg);

/* rj_overflow.c and rj_swift_state.c: per-thread set-up, both called once per
 * thread by rj_prepare_thread (rj_thread.c) before its first resume. */
RJ_HIDDEN void rj_overflow_prepare_thread(void);
RJ_HIDDEN void rj_swift_state_prepare_thread(void);
RJ_HIDDEN void rj_prepare_thread(void);

/* rj_thread.c: 0 until this thread is prepared, then its id. */
extern RJ_TLS int rj_thread_prepared;
/* This thread's id as the kernel knows it (gettid), for dumps. */
int rj_os_thread_id(void);
/* rj_current.c: the coroutine running on this thread, NULL outside every coroutine. */
extern RJ_TLS rj_coro *rj_current;

/* Assembly (switch_*.S); rj_switch itself is declared in CRJContext.h. */
#if RJ_HAVE_FAST
RJ_HIDDEN void rj_trampoline(void);
RJ_HIDDEN void rj_trampoline_inline(void);
/* Writes the first frame of a new fast-backend coroutine: the inline switch's
 * (switches_inline) or rj_switch's (rj_frame.c). */
RJ_HIDDEN void rj_prepare_fast(rj_coro *c);
#endif
RJ_HIDDEN __attribute__((noreturn)) void rj_coro_main(rj_coro *c);


#endif
