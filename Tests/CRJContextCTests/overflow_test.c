/*
 * Overflow, each in a forked child: the message and the abort, a frame bigger
 * than the guard, and a resume of a finished coroutine refused.
 */
#include "ctest.h"

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

void overflow_entry(void *arg) {
    (void)arg;
    sink = deep(0);
}

static void overflow_child(rj_backend backend) {
    rj_coro *c = rj_coro_create(32 * 1024, backend, overflow_entry, NULL);
    rj_coro_resume(c);
}

static void test_overflow(rj_backend backend) {
    char buf[512];
    int status = in_child(overflow_child, backend, buf, sizeof buf);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "overflow aborts (%s)", rj_backend_name(backend));
    CHECK(strstr(buf, "RJIterator: stack overflow in the Generator (stack size 32 KiB); make it with a "
                      "larger stackSize (Generator(stackSize:))\n") != NULL,
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
    CHECK(strstr(buf, "RJIterator: stack overflow in the Generator (stack size 16 KiB)") != NULL,
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

void overflow_tests(rj_backend backend) {
    test_overflow(backend);
    test_big_frame(backend);
    test_resume_finished_is_refused(backend);
}
