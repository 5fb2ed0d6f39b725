/*
 * Stack overflow: a clear message instead of a bare segfault.
 *
 * A generator that recurses too deep runs into the guard below its stack and
 * the kernel sends SIGSEGV. The handler cannot run on the overflowed stack,
 * so every thread that resumes a coroutine gets an alternate signal stack
 * (unless it already has one), and the handler is installed with SA_ONSTACK.
 * If the faulting address is in the guard of the coroutine running on this
 * thread, the handler writes
 *   RJIterator: generator stack overflow (stack size N KiB); create the
 *   generator with a larger stackSize
 * and aborts. Every other fault goes to the handler that was there before
 * (Swift's backtracer, or the default action), untouched.
 */
#include "rj_internal.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

_Thread_local int rj_thread_prepared;

static struct sigaction rj_previous_segv;
static struct sigaction rj_previous_bus;
static pthread_once_t rj_install_once = PTHREAD_ONCE_INIT;
static pthread_key_t rj_altstack_key;

#define RJ_ALTSTACK_SIZE (64 * 1024)

static size_t rj_format_unsigned(char *out, size_t value) {
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + value % 10);
        value /= 10;
    } while (value && n < sizeof tmp);
    for (size_t i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
    return n;
}

static void rj_write_all(const char *s, size_t n) {
    while (n > 0) {
        ssize_t w = write(STDERR_FILENO, s, n);
        if (w <= 0) return;
        s += w;
        n -= (size_t)w;
    }
}

static void rj_chain(int sig, siginfo_t *info, void *uctx) {
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
    /* Default action: restore it and return; the faulting instruction runs
     * again and the kernel ends the process as it would have without us. */
    signal(sig, SIG_DFL);
}

static void rj_fault_handler(int sig, siginfo_t *info, void *uctx) {
    rj_coro *c = rj_current;
    char *addr = info ? (char *)info->si_addr : NULL;
    if (c && addr >= c->map_base && addr < c->stack_lo) {
        char msg[200];
        size_t n = 0;
        static const char head[] = "RJIterator: generator stack overflow (stack size ";
        static const char tail[] = " KiB); create the generator with a larger stackSize\n";
        memcpy(msg + n, head, sizeof head - 1);
        n += sizeof head - 1;
        n += rj_format_unsigned(msg + n, c->requested_size / 1024);
        memcpy(msg + n, tail, sizeof tail - 1);
        n += sizeof tail - 1;
        rj_write_all(msg, n);
        /* abort() with the default SIGABRT action: a crash handler that walked
         * this stack would fault again in the guard. */
        signal(SIGABRT, SIG_DFL);
        abort();
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
    pthread_key_create(&rj_altstack_key, rj_free_altstack);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = rj_fault_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &rj_previous_segv);
    sigaction(SIGBUS, &sa, &rj_previous_bus);
}

void rj_overflow_prepare_thread(void) {
    rj_thread_prepared = 1;
    pthread_once(&rj_install_once, rj_install_handlers);
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
    pthread_setspecific(rj_altstack_key, mem);
}
