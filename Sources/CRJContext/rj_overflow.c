/*
 * Stack overflow: a clear message instead of a bare segfault.
 *
 * A generator that recurses too deep runs into the guard below its stack and
 * the kernel sends SIGSEGV. The handler cannot run on the overflowed stack,
 * so every thread that resumes a coroutine gets an alternate signal stack
 * (unless it already has one), and the handler is installed with SA_ONSTACK.
 * If the faulting address is in the guard of the coroutine running on this
 * thread, the handler writes
 *   RJIterator: stack overflow in the Generator made at main.swift:12 (stack
 *   size N KiB); make it with a larger stackSize (Generator(stackSize:))
 * (the kind, the creation site and the remedy for that kind, read from the
 * coroutine's owner at the offsets rj_set_owner_layout gave) and aborts. Every other fault goes to the handler that was there before
 * (Swift's backtracer, or the default action), untouched. A SIGSEGV or SIGBUS
 * that was sent (kill, tgkill, sigqueue: si_code <= 0) rather than caused by
 * a fault is passed on too, and where the previous disposition was the
 * default it is raised again with that disposition, so the process dies of it
 * as it would without this package (returning would just drop it: only a
 * faulting instruction runs again).
 */
#include "rj_internal.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Linux: the handler talks to the kernel with raw system calls (below). Elsewhere (Darwin)
 * there are no such calls to make (no rt_sigaction, tgkill or exit_group; syscall() itself
 * is unsupported there): the handler calls the async-signal-safe libc functions instead,
 * which a sanitizer's runtime may intercept. RJ_OVERFLOW_LIBC_CALLS=1 builds that path on
 * Linux too, so that the C tests run it (run.sh native). */
#if defined(__linux__) && !(defined(RJ_OVERFLOW_LIBC_CALLS) && RJ_OVERFLOW_LIBC_CALLS)
#  define RJ_RAW_SYSCALLS 1
#  include <sys/syscall.h>
#else
#  define RJ_RAW_SYSCALLS 0
#endif

static struct sigaction rj_previous_segv;
static struct sigaction rj_previous_bus;
static pthread_once_t rj_install_once = PTHREAD_ONCE_INIT;
static pthread_key_t rj_altstack_key;
static int rj_altstack_key_made;

#define RJ_ALTSTACK_SIZE (64 * 1024)

/* The handler may run while a sanitizer's runtime holds its own locks (the
 * fault can happen inside its instrumentation), and write(), sigaction() and
 * abort() are intercepted by those runtimes: so the handler is not
 * instrumented and, on Linux, talks to the kernel with raw system calls only. */
#if defined(__has_attribute)
#  if __has_attribute(disable_sanitizer_instrumentation)
#    define RJ_SIGNAL_SAFE __attribute__((disable_sanitizer_instrumentation))
#  endif
#endif
#ifndef RJ_SIGNAL_SAFE
#  define RJ_SIGNAL_SAFE __attribute__((no_sanitize("address", "thread")))
#endif

RJ_SIGNAL_SAFE static void rj_raw_write(const char *s, size_t n) {
    while (n > 0) {
#if RJ_RAW_SYSCALLS
        long w = syscall(SYS_write, STDERR_FILENO, s, n);
#else
        long w = (long)write(STDERR_FILENO, s, n);
#endif
        if (w <= 0) return;
        s += w;
        n -= (size_t)w;
    }
}

RJ_SIGNAL_SAFE static void rj_raw_write_unsigned(size_t value) {
    char digits[24];
    size_t n = sizeof digits;
    do {
        digits[--n] = (char)('0' + value % 10);
        value /= 10;
    } while (value && n > 0);
    rj_raw_write(digits + n, sizeof digits - n);
}

#if RJ_RAW_SYSCALLS
/* The kernel's struct sigaction (x86_64 and arm64 share this layout). */
struct rj_kernel_sigaction {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)(void);
    uint64_t mask;
};
#endif

/* Gives sig its default disposition back. */
RJ_SIGNAL_SAFE static void rj_default_action(int sig) {
#if RJ_RAW_SYSCALLS
    struct rj_kernel_sigaction dfl = {SIG_DFL, 0, NULL, 0};
    syscall(SYS_rt_sigaction, sig, &dfl, NULL, sizeof(uint64_t));
#else
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
#endif
}

/* Ends the process by `sig` with its default action, as if no handler had ever
 * been installed: default disposition, unblocked, sent to this thread. */
RJ_SIGNAL_SAFE __attribute__((noreturn)) static void rj_die_by(int sig) {
    rj_default_action(sig);
#if RJ_RAW_SYSCALLS
    uint64_t unblock = (uint64_t)1 << (sig - 1);
    syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &unblock, NULL, sizeof unblock);
    syscall(SYS_tgkill, syscall(SYS_getpid), syscall(SYS_gettid), sig);
    syscall(SYS_exit_group, 128 + sig); /* not reached: the signal ends the process */
#else
    sigset_t unblock;
    sigemptyset(&unblock);
    sigaddset(&unblock, sig);
    pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
    raise(sig);
    _exit(128 + sig); /* not reached: the signal ends the process */
#endif
    __builtin_unreachable();
}

RJ_SIGNAL_SAFE static void rj_chain(int sig, siginfo_t *info, void *uctx) {
    struct sigaction *prev = sig == SIGBUS ? &rj_previous_bus : &rj_previous_segv;
    if (prev->sa_flags & SA_SIGINFO) {
        if (prev->sa_sigaction) {
            prev->sa_sigaction(sig, info, uctx);
            return;
        }
    } else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN && prev->sa_handler) {
        prev->sa_handler(sig);
        return;
    }
    int sent = !info || info->si_code <= 0;
    if (prev->sa_handler == SIG_IGN && sent) return; /* ignored, as it was before us */
    if (sent) rj_die_by(sig); /* raised or sent: nothing would deliver it again */
    /* A fault with the default action: restore it and return; the faulting
     * instruction runs again and the kernel ends the process as it would
     * have without us. */
    rj_default_action(sig);
}

/* Where the owner object keeps its creation site, kind and stack settings (rj_set_owner_layout). */
int rj_owner_layout_known;
static size_t rj_owner_site_offset, rj_owner_kind_offset, rj_owner_settings_offset;

void rj_set_owner_layout(size_t site_offset, size_t kind_offset, size_t settings_offset) {
    /* Two threads making their first generators may both get here, with the same offsets:
     * atomic stores, so that neither overwrites the other with a torn value. */
    __atomic_store_n(&rj_owner_site_offset, site_offset, __ATOMIC_RELAXED);
    __atomic_store_n(&rj_owner_kind_offset, kind_offset, __ATOMIC_RELAXED);
    __atomic_store_n(&rj_owner_settings_offset, settings_offset, __ATOMIC_RELAXED);
    __atomic_store_n(&rj_owner_layout_known, 1, __ATOMIC_RELEASE);
}

RJ_SIGNAL_SAFE static size_t rj_raw_strlen(const char *s) {
    size_t n = 0;
    while (s[n]) n++;
    return n;
}

/* "RJIterator: stack overflow in the <kind> made at <file>:<line> (stack size N KiB[, a shared
 * run stack]); <what to change>": the kind and the site read from the owner, the remedy one
 * that exists for that kind (only a Generator takes a stackSize). */
RJ_SIGNAL_SAFE static void rj_write_overflow_message(rj_coro *c) {
    static const char *const kinds[] = {"Generator", "RJIterator", "rj_async body", "AsyncGenerator"};
    unsigned kind = 0;
    const char *file = NULL;
    uint32_t line = 0;
    /* The stack the body that overflowed was promised: the coroutine's, unless the body runs
     * adopted on another's stack (rj_coro_adopt: the owner is then the adopted generator, whose
     * own settings say its size; 0 is the default size). */
    size_t size = c->requested_size;
    int size_given = c->size_given;
    const char *owner = ((rj_coro_head *)(void *)c)->owner;
    if (owner && __atomic_load_n(&rj_owner_layout_known, __ATOMIC_ACQUIRE)) {
        kind = *(const unsigned char *)(owner + __atomic_load_n(&rj_owner_kind_offset, __ATOMIC_RELAXED));
        if (kind > 3) kind = 0;
        uint64_t site = *(const uint64_t *)(const void *)(owner + __atomic_load_n(&rj_owner_site_offset, __ATOMIC_RELAXED));
        file = (const char *)(uintptr_t)(site & (((uint64_t)1 << 48) - 1));
        line = (uint32_t)(site >> 48);
        uint64_t settings = *(const uint64_t *)(const void *)(owner + __atomic_load_n(&rj_owner_settings_offset, __ATOMIC_RELAXED));
        size_t own = (size_t)(settings & (((uint64_t)1 << 48) - 1));
        if (own != 0) {
            size = own;
            size_given = 1;
        } else if (size_given) {
            size = rj_default_stack_size();
            size_given = 0;
        }
    }
    static const char head[] = "RJIterator: stack overflow in the ";
    rj_raw_write(head, sizeof head - 1);
    rj_raw_write(kinds[kind], rj_raw_strlen(kinds[kind]));
    if (file) {
        static const char at[] = " made at ";
        rj_raw_write(at, sizeof at - 1);
        rj_raw_write(file, rj_raw_strlen(file));
        rj_raw_write(":", 1);
        if (line) rj_raw_write_unsigned(line); else rj_raw_write("?", 1);
    }
    static const char size_is[] = " (stack size ";
    rj_raw_write(size_is, sizeof size_is - 1);
    rj_raw_write_unsigned(size / 1024);
    if (c->shared) {
        static const char shared[] = " KiB, a shared run stack); ";
        rj_raw_write(shared, sizeof shared - 1);
        static const char generator_shared[] =
            "make it with stackMode: .dedicated and a larger stackSize, or raise RJRuntime.defaultStackSize "
            "before the first shared-stack generator runs\n";
        static const char other_shared[] =
            "raise RJRuntime.defaultStackSize before the first shared-stack generator runs, or set "
            "RJRuntime.defaultStackMode = .dedicated before it is made\n";
        if (kind == 0) rj_raw_write(generator_shared, sizeof generator_shared - 1);
        else rj_raw_write(other_shared, sizeof other_shared - 1);
    } else {
        static const char dedicated[] = " KiB); ";
        rj_raw_write(dedicated, sizeof dedicated - 1);
        /* A Generator made with a stackSize of its own does not read the default: offer only
         * what applies to it. */
        static const char sized_fix[] = "make it with a larger stackSize (Generator(stackSize:))\n";
        static const char generator_fix[] =
            "make it with a stackSize larger than the default (Generator(stackSize:)), or raise "
            "RJRuntime.defaultStackSize before it is made\n";
        static const char other_fix[] = "raise RJRuntime.defaultStackSize before it is made (it takes no stackSize)\n";
        if (kind == 0 && size_given) rj_raw_write(sized_fix, sizeof sized_fix - 1);
        else if (kind == 0) rj_raw_write(generator_fix, sizeof generator_fix - 1);
        else rj_raw_write(other_fix, sizeof other_fix - 1);
    }
}

RJ_SIGNAL_SAFE static void rj_fault_handler(int sig, siginfo_t *info, void *uctx) {
    rj_coro *c = rj_current;
    char *addr = info ? (char *)info->si_addr : NULL;
    int sent = info && info->si_code <= 0; /* SI_USER, SI_QUEUE, SI_TKILL: si_addr means nothing */
    if (!sent && c && addr >= c->map_base && addr < c->stack_lo) {
        rj_write_overflow_message(c);
        /* SIGABRT with its default action: a crash handler that walked this
         * stack would fault again in the guard. */
        rj_die_by(SIGABRT);
    }
    rj_chain(sig, info, uctx);
}

static void rj_free_altstack(void *p) {
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, NULL);
    munmap(p, RJ_ALTSTACK_SIZE);
}

static void rj_install_handlers(void) {
    /* Without the key a thread's alternate stack is not freed when the thread ends: the
     * handler still works, so that is all a failure costs. */
    rj_altstack_key_made = pthread_key_create(&rj_altstack_key, rj_free_altstack) == 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = rj_fault_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &rj_previous_segv);
    sigaction(SIGBUS, &sa, &rj_previous_bus);
}

void rj_overflow_prepare_thread(void) {
    if (pthread_once(&rj_install_once, rj_install_handlers) != 0) return; /* no handler: faults stay as they are */
    stack_t current;
    if (sigaltstack(NULL, &current) == 0 && !(current.ss_flags & SS_DISABLE) && current.ss_sp)
        return; /* the thread has one already (Swift gives the main thread one) */
    void *mem = mmap(NULL, RJ_ALTSTACK_SIZE, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) return; /* no message then, but no harm either */
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_sp = mem;
    ss.ss_size = RJ_ALTSTACK_SIZE;
    if (sigaltstack(&ss, NULL) != 0) {
        munmap(mem, RJ_ALTSTACK_SIZE);
        return;
    }
    if (!rj_altstack_key_made || pthread_setspecific(rj_altstack_key, mem) != 0) {
        /* Keep the alternate stack (the handler needs it) but say that it will not be freed. */
        rj_set_error("RJIterator: the alternate signal stack of this thread will not be freed at thread exit");
    }
}
