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

/* A word of the core that this header's inline functions read in Swift code, the package's and
 * (through inlinable functions) its users': on Linux, where SwiftPM links the package into the
 * image that uses it, hidden, so that a read is one PC-relative load and not a load of its
 * address first (through the GOT). On Apple platforms, where Xcode may build a package as a
 * framework of its own, and wherever the core is a shared library of its own (define it empty,
 * as the C tests' shared-library run does), default visibility: a hidden word cannot be
 * reached from another image. */
#ifndef RJ_INLINE_WORD
#if defined(__APPLE__)
#define RJ_INLINE_WORD
#else
#define RJ_INLINE_WORD __attribute__((visibility("hidden")))
#endif
#endif

typedef struct rj_coro rj_coro;
typedef void (*rj_coro_entry)(void *_Nullable arg);

typedef enum {
    RJ_BACKEND_FAST = 0,
    RJ_BACKEND_UCONTEXT = 1,
    /* The fast backend through the out-of-line rj_switch (below) even where
     * the inline switch is available: what sanitized builds always do. For
     * the C tests (which so cover both switches on both architectures) and
     * for measurements; a coroutine made with it reports RJ_BACKEND_FAST. */
    RJ_BACKEND_FAST_OUT_OF_LINE = 2,
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


/* The backend c switches with. */
rj_backend rj_coro_backend(const rj_coro *_Nonnull c);

/* The lowest usable byte of c's stack; the guard lies just below it. */
void *_Nonnull rj_coro_stack_bottom(const rj_coro *_Nonnull c);

/* Where a coroutine's frames live: a stack of its own, or a run stack shared
 * with others (rj_shared.c). */
typedef enum {
    RJ_STACK_DEDICATED = 0,
    RJ_STACK_SHARED = 1,
} rj_stack_mode;

/* Creates a shared-stack coroutine (rj_shared.c): it runs on one of a few run
 * stacks, given at its first resume, and while another coroutine's frames are
 * there its own wait in a heap block the size of what they use. Needs the fast
 * backend; NULL with rj_last_error() elsewhere. */
rj_coro *_Nullable rj_coro_create_shared(rj_coro_entry _Nonnull entry, void *_Nullable arg);
/* 1 if c is a shared-stack coroutine. */
int rj_coro_is_shared(const rj_coro *_Nonnull c);
/* Where the byte at p of c's frames is now: p itself, unless c is a shared
 * coroutine whose frames are copied out, then the same byte in their block.
 * For writing into the frames of a coroutine that does not run (c NULL: p).
 * The caller's thread must be running a chain that c belongs to. */
void *_Nonnull rj_coro_locate(const rj_coro *_Nullable c, void *_Nonnull p);
/* Bytes c's block for its frames holds (0 for a coroutine with its own stack). */
size_t rj_coro_saved_bytes(const rj_coro *_Nonnull c);
/* 1 once a shared-stack coroutine has been made in this process: until then no
 * frame is ever away, and rj_coro_in_resumer costs one load. */
extern RJ_INLINE_WORD int rj_shared_in_use;
void *_Nonnull rj_coro_locate_in_resumer(const rj_coro *_Nonnull c, void *_Nonnull p);
/* rj_coro_in_resumer (below, after rj_coro_head) is rj_coro_locate for the frames of c's resumer. */

/* The mode of the generators made from now on that do not choose (dedicated
 * unless changed), and whether this build can make shared ones (the fast
 * backend is compiled in). */
static inline rj_stack_mode rj_default_stack_mode(void);
void rj_set_default_stack_mode(rj_stack_mode mode);
int rj_shared_stacks_available(void);
/* How many run stacks shared coroutines share (16 unless changed); settable
 * only while no shared coroutine exists (-1 and rj_last_error otherwise). */
size_t rj_shared_run_stack_count(void);
int rj_set_shared_run_stack_count(size_t count);

/* ---- Hot accessors, inline ---------------------------------------------
 * The first fields of every rj_coro, public so that the accessors a switch
 * needs compile inline into the Swift layer. Written by the C core's files only, but
 * for owner (rj_coro_set_owner) and the stack pointers the inline switch saves. */
typedef struct rj_coro_head {
    void *_Nullable sp;
    void *_Nullable caller_sp;
    void *_Nullable owner;
    /* Unique for the life of the process: no two coroutines ever get the same
     * id, even when one reuses another's memory (see rj_coro_id). */
    uint64_t id;
    unsigned char backend;
    unsigned char finished;
    /* 1: this coroutine switches with the inline switch below (fast backend,
     * no sanitizer); 2: the same, a shared-stack coroutine (rj_shared.c's halves
     * around the switch); 0: through rj_coro_resume / rj_coro_suspend only. */
    unsigned char switches_inline;
    /* 1 while a shared-stack coroutine's frames are copied out of its run stack
     * (rj_shared.c): what a body asks before it writes into its resumer's frames. */
    unsigned char away;
} rj_coro_head;

/* rj_coro_locate for the frames of c's resumer (the coroutine current when c was
 * resumed), from c's body: where the resumer's local at p is now. RJ_CORO_RESUMER_OFFSET
 * is where an rj_coro keeps its resumer (checked in rj_internal.h). */
#define RJ_CORO_RESUMER_OFFSET 0x48
/* 1 when c's resumer is plain code or a coroutine whose frames are where they ran: not a
 * shared-stack one whose frames are copied out. */
static inline int rj_coro_resumer_stays_put(const rj_coro *_Nonnull c) {
    const rj_coro_head *a = *(const rj_coro_head *const *)(const void *)((const char *)c + RJ_CORO_RESUMER_OFFSET);
    return !a || !__atomic_load_n(&a->away, __ATOMIC_RELAXED);
}
static inline void *_Nonnull rj_coro_in_resumer(const rj_coro *_Nonnull c, void *_Nonnull p) {
    if (__builtin_expect(!__atomic_load_n(&rj_shared_in_use, __ATOMIC_RELAXED), 1) || rj_coro_resumer_stays_put(c)) return p;
    return rj_coro_locate_in_resumer(c, p);
}

/* An opaque pointer for the layer above: the Swift object that owns the
 * coroutine, unretained. Inline: every generator sets it once, as it starts. */
static inline void rj_coro_set_owner(rj_coro *_Nonnull c, void *_Nullable owner) {
    ((rj_coro_head *)(void *)c)->owner = owner;
}

/* One word of the process the Swift layer keeps here for itself, opaque to the C core: the
 * cell holding the signal it throws into a body being closed (an `any Error` boxed once), so
 * that every close reads it with one load instead of a Swift static's once-check. Published
 * once, by compare-and-swap; never freed. */
extern RJ_INLINE_WORD void *_Nullable rj_swift_close_signal;
static inline void *_Nullable rj_close_signal_cell(void) {
    return __atomic_load_n(&rj_swift_close_signal, __ATOMIC_ACQUIRE);
}
/* Publishes `cell` if no cell is there yet (returns NULL); otherwise returns the one there. */
static inline void *_Nullable rj_close_signal_publish(void *_Nonnull cell) {
    void *there = NULL;
    if (__atomic_compare_exchange_n(&rj_swift_close_signal, &there, cell, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return NULL;
    return there;
}

/* Adoption (rj_context.c): the body running on c (the caller) runs the body of `owner`, a
 * generator that has not started, as a nested call on c's stack. Returns 0, changing nothing,
 * when the stack left below the caller is less than `promise` (the adopted generator's stack
 * size, 0 for the default) and a margin, or when c is a shared-stack coroutine past its
 * bound (rj_shared_adopt_bound); otherwise a new id, and c's owner and id are now
 * the adopted body's. When the adopted body ends, the adopter puts its own back with
 * rj_coro_set_body. */
uint64_t rj_coro_adopt(rj_coro *_Nonnull c, void *_Nullable owner, size_t promise);
/* A number no coroutine, body or other call ever gets again in this process (never 0): from
 * the counter of rj_coro_id. */
uint64_t rj_unique_id(void);
/* The bytes of c's stack in use below its top, seen from the caller (c must be the running
 * coroutine); and how many of them a shared-stack coroutine may use and still adopt. */
size_t rj_coro_stack_used(const rj_coro *_Nonnull c);
size_t rj_shared_adopt_bound(void);
/* The stack an adoption keeps beyond the adopted generator's promised size, for the frames
 * between the check and its body (tests hold it). */
size_t rj_adopt_margin(void);
/* Says which body runs on c now: its owner (rj_coro_owner) and id (rj_coro_id). */
static inline void rj_coro_set_body(rj_coro *_Nonnull c, void *_Nullable owner, uint64_t id) {
    ((rj_coro_head *)(void *)c)->owner = owner;
    ((rj_coro_head *)(void *)c)->id = id;
}

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

/* The argument c was made with (rj_coro_create): for a generator's coroutine, the generator
 * whose coroutine it is, which an adoption (rj_coro_adopt) does not change. RJ_CORO_ARG_OFFSET
 * is where an rj_coro keeps it (checked in rj_internal.h). */
#define RJ_CORO_ARG_OFFSET 0x60
static inline void *_Nullable rj_coro_arg(const rj_coro *_Nonnull c) {
    return *(void *const *)(const void *)((const char *)c + RJ_CORO_ARG_OFFSET);
}

/* The identity of the body running on c: given at rj_coro_create (or rj_coro_adopt, to an
 * adopted body, until its adopter's is put back), never given again in this process (never
 * 0). An address is not an identity: a freed coroutine's header, or its owner's object, may
 * be reused by the next one. */
static inline uint64_t rj_coro_id(const rj_coro *_Nonnull c) {
    return ((const rj_coro_head *)(const void *)c)->id;
}


/* ---- The inline switch --------------------------------------------------
 * The fast backend's switch as inline assembly, so that it lands inside the
 * function that resumes (Generator.next) and the one that suspends (yield),
 * both Swift, with no call/ret pair straddling it. A `ret` that lands on
 * another stack is mispredicted every time (the return-stack buffer expects
 * the caller), and so are the rets of the frames around an out-of-line
 * switch; an indirect jump to a fixed label is predicted by the branch target
 * buffer. The asm declares every register the ABI lets a callee clobber, and
 * the callee-saved ones too, as clobbered: the compiler saves only what is
 * live across the switch, and restores it after. It saves the frame pointer
 * itself (frame pointers are on), and steps over the 128-byte red zone below
 * the stack pointer (x86_64 SysV, Apple arm64), which the frame may be using.
 *
 * A suspended stack holds two words at its stack pointer (rj_frame.h): the
 * address to resume at and the saved frame pointer. A new coroutine's stack
 * starts with rj_trampoline_inline and 0, then the rj_coro pointer.
 *
 * The floating-point control state (MXCSR and the x87 control word on
 * x86_64, FPCR on arm64) is not switched: it belongs to the thread, as with
 * libaco's and boost.context's fast variants (docs/context-switching.md has
 * the measurement and the rule; debug builds check it at every yield).
 *
 * Not used under AddressSanitizer or ThreadSanitizer (their fiber calls must
 * sit right at the switch, in C) nor with the ucontext backend: a coroutine's
 * switches_inline says which path it takes. x18 (arm64's platform register)
 * is never touched. */
#if !(defined(RJ_CONTEXT_UCONTEXT) && RJ_CONTEXT_UCONTEXT) && !defined(_WIN32) && \
    (defined(__x86_64__) || defined(__aarch64__))
#  define RJ_HAVE_INLINE_SWITCH 1
#else
#  define RJ_HAVE_INLINE_SWITCH 0
#endif

#if RJ_HAVE_INLINE_SWITCH
#  if defined(__x86_64__)
#    if defined(__AVX512F__)
#      define RJ_CLOBBER_HIGH_XMM , "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", \
           "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31", \
           "k1", "k2", "k3", "k4", "k5", "k6", "k7"
#    else
#      define RJ_CLOBBER_HIGH_XMM
#    endif
/* Saves the current context on this stack, stores its stack pointer in
 * *from_sp and continues the context saved at to_sp. Returns when another
 * switch continues this one (possibly on another thread). */
static inline __attribute__((always_inline)) void rj_switch_inline(void *_Nullable *_Nonnull from_sp, void *_Nonnull to_sp) {
    __asm__ volatile(
        "subq $128, %%rsp\n\t"          /* the red zone of this frame */
        "pushq %%rbp\n\t"
        "leaq 1f(%%rip), %%rax\n\t"
        "pushq %%rax\n\t"
        "movq %%rsp, (%0)\n\t"
        "movq %1, %%rsp\n\t"
        "popq %%rax\n\t"
        "popq %%rbp\n\t"
        "jmpq *%%rax\n\t"
        "1:\n\t"
        "addq $128, %%rsp\n\t"
        : "+D"(from_sp), "+S"(to_sp)
        :
        : "rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
          "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
          "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",
          "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)",
          "memory", "cc", "fpsr" RJ_CLOBBER_HIGH_XMM);
}
#  elif defined(__aarch64__)
/* x18 is the platform register: reserved on Apple platforms, where the compiler
 * never uses it; an ordinary temporary elsewhere (Linux), where the code on the
 * other side of the switch may have changed it. */
#    if defined(__APPLE__)
#      define RJ_CLOBBER_X18
#    else
#      define RJ_CLOBBER_X18 , "x18"
#    endif
static inline __attribute__((always_inline)) void rj_switch_inline(void *_Nullable *_Nonnull from_sp, void *_Nonnull to_sp) {
    register void **from __asm__("x0") = from_sp;
    register void *to __asm__("x1") = to_sp;
    __asm__ volatile(
        "sub sp, sp, #128\n\t"          /* the red zone of this frame (Apple) */
        "adr x16, 1f\n\t"
        "stp x16, x29, [sp, #-16]!\n\t"
        "mov x17, sp\n\t"
        "str x17, [%0]\n\t"
        "mov sp, %1\n\t"
        "ldp x16, x29, [sp], #16\n\t"
        "br x16\n\t"
        "1:\n\t"
        "hint #38\n\t"                   /* bti jc: a landing pad where BTI is on */
        "add sp, sp, #128\n\t"
        : "+r"(from), "+r"(to)
        :
        : "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15",
          "x16", "x17", "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x30",
          "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13",
          "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26",
          "v27", "v28", "v29", "v30", "v31", "memory", "cc" RJ_CLOBBER_X18);
}
#  endif
#endif

/* The out-of-line switch (switch_*.S): saves the callee-saved registers and
 * the floating-point control state on the current stack, stores the stack
 * pointer in *from_sp, loads to_sp and restores what is saved there; `ret`
 * lands on the other stack. What rj_coro_resume and rj_coro_suspend use for a
 * coroutine that does not switch inline (sanitized builds,
 * RJ_BACKEND_FAST_OUT_OF_LINE). Both sides of a switch must use the same
 * switch: a frame saved by one cannot be restored by the other. Declared only
 * where the fast backend is compiled in. */
#if !(defined(RJ_CONTEXT_UCONTEXT) && RJ_CONTEXT_UCONTEXT) && !defined(_WIN32) && \
    (defined(__x86_64__) || defined(__aarch64__))
void rj_switch(void *_Nullable *_Nonnull from_sp, void *_Nonnull to_sp);
#endif

/* The halves of rj_coro_resume around the switch, for the inline path: the
 * bookkeeping before (current coroutine, Swift runtime state) and after (the
 * same, undone; returns 1 if the coroutine finished). Calls that return
 * before the switch or start after it are predicted; only the switch moves
 * between stacks. */
void rj_coro_will_resume(rj_coro *_Nonnull c);
int rj_coro_did_return(rj_coro *_Nonnull c);

/* The same halves for a shared-stack coroutine (rj_shared.c): the first also takes c's run
 * stack and puts c's frames on it, and returns 0, having done nothing, when the switch has to
 * go through the copier (its resumer runs on the same run stack); then the caller takes
 * rj_coro_resume. rj_shared_will_suspend is the body's side: 0 when its resumer's frames come
 * back through the copier (rj_coro_suspend), 1 when they are in place. */
int rj_shared_will_resume(rj_coro *_Nonnull c);
int rj_shared_did_return(rj_coro *_Nonnull c);
int rj_shared_will_suspend(rj_coro *_Nonnull c);

/* How c switches: 0 through rj_coro_resume / rj_coro_suspend only; 1 inline; 2 inline with
 * the shared-stack halves around the switch (a shared-stack coroutine). */
static inline int rj_coro_switches_inline(const rj_coro *_Nonnull c) {
    return ((const rj_coro_head *)(const void *)c)->switches_inline;
}

/* rj_coro_resume with the switch inline in the caller where c allows it. */
static inline __attribute__((always_inline)) int rj_coro_resume_inline(rj_coro *_Nonnull c) {
#if RJ_HAVE_INLINE_SWITCH
    int how = rj_coro_switches_inline(c);
    if (__builtin_expect(how == 1, 1)) {
        rj_coro_head *h = (rj_coro_head *)(void *)c;
        rj_coro_will_resume(c);
        rj_switch_inline(&h->caller_sp, h->sp);
        return rj_coro_did_return(c);
    }
    if (how == 2 && rj_shared_will_resume(c)) {
        rj_coro_head *h = (rj_coro_head *)(void *)c;
        rj_switch_inline(&h->caller_sp, h->sp);
        return rj_shared_did_return(c);
    }
#endif
    return rj_coro_resume(c);
}

/* rj_coro_suspend with the switch inline in the caller where c allows it. */
static inline __attribute__((always_inline)) void rj_coro_suspend_inline(rj_coro *_Nonnull c) {
#if RJ_HAVE_INLINE_SWITCH
    int how = rj_coro_switches_inline(c);
    if (__builtin_expect(how == 1, 1) || (how == 2 && (rj_coro_resumer_stays_put(c) || rj_shared_will_suspend(c)))) {
        rj_coro_head *h = (rj_coro_head *)(void *)c;
        rj_switch_inline(&h->sp, h->caller_sp);
        return;
    }
#endif
    rj_coro_suspend(c);
}

/* ---- Configuration (process-wide, thread-safe) ------------------------ */

/* The settings every generator's creation reads, inline: one load each. Written only by the
 * C core's setters; the words are public for these accessors alone. */
extern RJ_INLINE_WORD rj_backend rj_cfg_backend;
extern RJ_INLINE_WORD int rj_cfg_stack_mode; /* -1 until the environment (RJ_STACK_MODE) is read or a mode set */
extern RJ_INLINE_WORD size_t rj_cfg_stack_size;
rj_stack_mode rj_read_default_stack_mode(void);
static inline rj_stack_mode rj_default_stack_mode(void) {
    int mode = __atomic_load_n(&rj_cfg_stack_mode, __ATOMIC_RELAXED);
    return __builtin_expect(mode >= 0, 1) ? (rj_stack_mode)mode : rj_read_default_stack_mode();
}

/* The backend new coroutines use. Setting RJ_BACKEND_FAST where it is not
 * compiled in is ignored. */
static inline rj_backend rj_default_backend(void) { return __atomic_load_n(&rj_cfg_backend, __ATOMIC_RELAXED); }
void rj_set_default_backend(rj_backend backend);
/* "fast (x86_64 sysv)", "fast (arm64 aapcs64)" or "ucontext". */
const char *_Nonnull rj_backend_name(rj_backend backend);
/* 1 if the fast backend is compiled in on this architecture. */
int rj_fast_backend_available(void);
/* 1 if coroutines created now switch with the inline switch (the build has no
 * sanitizer, and the default backend is the fast one or the default stack mode
 * shared, which always uses it). */
int rj_switches_inline_by_default(void);

/* Default usable stack size (256 KiB unless changed). Setting a size that
 * rj_check_stack_size refuses keeps the old one and returns -1. */
static inline size_t rj_default_stack_size(void) { return __atomic_load_n(&rj_cfg_stack_size, __ATOMIC_RELAXED); }
int rj_set_default_stack_size(size_t size);
/* Smallest stack size accepted. */
size_t rj_min_stack_size(void);
/* The one stack-size policy, for a coroutine's own size and for the default:
 * 0 if `size` is acceptable; otherwise -1, with a message in rj_last_error()
 * that names `setting` (what the caller calls the size) and what to pass. */
int rj_check_stack_size(long long size, const char *_Nonnull setting);
/* Bytes of guard below every stack (64 KiB unless changed; whole pages).
 * Applies to stacks mapped afterwards; the pool is emptied on a change. */
size_t rj_guard_size(void);
void rj_set_guard_size(size_t size);

/* Stack pool: at most `limit` freed stacks are kept for reuse, and at most
 * `resident` of them keep their memory: the most recently freed ones, which
 * are handed out first; a stack that falls out of that set gives its pages
 * back to the OS (rj_stack.c). */
size_t rj_stack_pool_limit(void);
void rj_set_stack_pool_limit(size_t limit);
size_t rj_stack_pool_resident_limit(void);
void rj_set_stack_pool_resident_limit(size_t limit);
/* Empties the pool, unmapping every pooled stack, gives back the pages of the
 * stacks given back since, and unmaps every slab none of whose stacks is in use. */
void rj_stack_pool_drain(void);

/* ---- Statistics (for tests and the benchmark) ------------------------- */

/* Stacks mapped and not yet unmapped (pooled ones included). */
size_t rj_stats_mapped_stacks(void);
/* Slabs mapped (each holds 64 stacks of the default size; rj_stack.c). */
size_t rj_stats_mapped_slabs(void);
/* Shared-stack coroutines alive, and the bytes their frames' blocks hold. */
size_t rj_stats_shared_coroutines(void);
size_t rj_stats_shared_saved_bytes(void);
/* Switches between two coroutines of one run stack, which go through a copier. */
size_t rj_stats_shared_copier_trips(void);
/* Stacks handed out to coroutines and not yet given back. */
size_t rj_stats_live_stacks(void);
/* Stacks waiting in the pool. */
size_t rj_stats_pooled_stacks(void);
/* Of those, the ones that keep their pages. */
size_t rj_stats_pooled_resident_stacks(void);
/* Stacks that gave their pages back as they fell out of the pool's resident
 * set, since the process started: what a churning pool would raise with
 * every release. */
size_t rj_stats_trimmed_stacks(void);
/* 1 if guard pages are installed with MADV_GUARD_INSTALL, 0 with mprotect. */
int rj_guard_uses_madvise(void);

/* 1 if this thread checks Swift's exclusivity state inline before calling the
 * runtime (see rj_swift_state.c); 0 if it calls the runtime on every switch
 * (RJ_EXCLUSIVITY_SLOW_PATH=1 in the environment forces that). */
int rj_exclusivity_fast_path(void);

/* 1 if this thread saves and restores the task-local values a coroutine binds
 * outside any task (see rj_swift_state.c); 0 if the runtime's layout was not
 * recognised and they are not tracked. */
int rj_task_locals_tracked(void);

/* The calling thread's floating-point control state (x86_64: the x87 control
 * word in bits 32-47 and the MXCSR in bits 0-31, the layout rj_switch's frame
 * keeps; arm64: FPCR), as one number to compare. The one place that reads it. */
static inline uint64_t rj_fpu_control_state(void) {
#if defined(__x86_64__)
    uint32_t mxcsr;
    uint16_t fpcw;
    __asm__ volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(mxcsr), "=m"(fpcw));
    return ((uint64_t)fpcw << 32) | mxcsr;
#elif defined(__aarch64__)
    uint64_t fpcr;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    return fpcr;
#else
    return 0;
#endif
}

/* "address" or "thread" when the C core was built with that sanitizer (and
 * annotates every switch for it), "" otherwise. */
const char *_Nonnull rj_sanitizer(void);

/* The message of the last failure on this thread ("" if none). */
const char *_Nonnull rj_last_error(void);

/* Writes msg and a newline to stderr in one write (messages of the Swift layer). */
void rj_report(const char *_Nonnull msg);

/* ---- What the overflow message says of a coroutine (rj_overflow.c) ----
 * Where, in the owner object (rj_coro_set_owner), its creation site, kind and
 * stack settings are (the site: one 64-bit word, the file's C string in its low
 * 48 bits, the line in its high 16, 0 when unknown): the Swift layer says it once, before the first
 * coroutine it makes runs, so that a stack overflow's message names the
 * generator and what to change. The handler only reads these fields of the
 * running coroutine's owner (an adopted body's generator, while one runs:
 * rj_coro_adopt). kind: 0 Generator, 1 RJIterator, 2 rj_async body, 3
 * AsyncGenerator. settings: a 64-bit word whose low 48 bits are the stack size
 * the generator was made with (0: the default). */
void rj_set_owner_layout(size_t site_offset, size_t kind_offset, size_t settings_offset);
/* Whether rj_set_owner_layout was called (one load, for the inline check). */
extern RJ_INLINE_WORD int rj_owner_layout_known;
static inline int rj_owner_layout_is_known(void) {
    return __atomic_load_n(&rj_owner_layout_known, __ATOMIC_RELAXED);
}

/* ---- Live generators and where they wait (rj_registry.c, rj_inspect.c) ----
 * What RJRuntime.dump() reads. The Swift layer adds every generator object
 * when it is made and removes it before it is destroyed; a removal during a
 * dump waits for the dump's end, so no object a dump reads finishes dying
 * meanwhile. Nothing here is on the switch path but the thread id a resume
 * records. */

/* Registers object; the handle is for rj_registry_remove (UINT32_MAX: not
 * registered, which rj_registry_remove ignores). */
uint32_t rj_registry_add(void *_Nonnull object);
void rj_registry_remove(uint32_t handle);
/* The dump's side, one dump at a time: between rj_registry_begin_dump and
 * rj_registry_end_dump, removals wait; rj_registry_list copies up to max of
 * the registered objects into out and returns how many there are (adds go on:
 * more may be there than rj_registry_count said a moment before). */
void rj_registry_begin_dump(void);
void rj_registry_end_dump(void);
size_t rj_registry_list(void *_Nullable *_Nullable out, size_t max);
size_t rj_registry_count(void);

/* The object whose state word a dump holds at `running` while it reads it;
 * rj_dump_holds says whether that is object (after a moment's wait, so that a
 * caller that loops on it does not spin hard). */
void rj_dump_hold(const void *_Nonnull object);
void rj_dump_let_go(void);
int rj_dump_holds(const void *_Nonnull object);
/* Whether a dump holds object now, without waiting: one load, for the paths that check it
 * inline. */
extern RJ_INLINE_WORD const void *_Nullable rj_dump_held;
static inline int rj_dump_holds_now(const void *_Nonnull object) {
    return __atomic_load_n(&rj_dump_held, __ATOMIC_SEQ_CST) == object;
}

/* Where suspended c is: the return addresses of its frames, innermost first
 * (at most max; 0 if it runs, has ended, never ran or cannot be read now). The
 * caller keeps it suspended meanwhile. */
size_t rj_coro_backtrace(rj_coro *_Nonnull c, uintptr_t *_Nonnull pcs, size_t max);
/* Copies n bytes of suspended c's frames at p (their address while c runs) into out: 1, or 0
 * when they cannot be read now. The caller keeps c suspended meanwhile. */
int rj_coro_read_frames(rj_coro *_Nonnull c, const void *_Nonnull p, void *_Nonnull out, size_t n);
/* The thread id (gettid) of c's last resume, and of this thread. */
int rj_coro_last_thread(const rj_coro *_Nonnull c);
int rj_current_thread_id(void);
uint64_t rj_monotonic_ns(void);
/* The symbol holding pc (mangled, as the file names it) and its image's file
 * name: 1 if a symbol was found. Reads symbol tables: not for signal handlers. */
int rj_symbolize(uintptr_t pc, char *_Nonnull name, size_t len, uintptr_t *_Nonnull offset, char *_Nonnull image,
                 size_t image_len);
/* Installs a handler for signo that makes a watcher thread call callback (which
 * writes the dump); 0, or -1 with rj_last_error. */
int rj_dump_signal_install(int signo, void (*_Nonnull callback)(void));

#ifdef __cplusplus
}
#endif
#endif
