/* The header's inline functions are the whole target; SwiftPM wants one source file. */
#include "CRJShims.h"

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

void rj_lock_word_wait(uint32_t *word) {
    /* A short spin first: the holder of an uncontended-looking lock is usually about to let go
     * (the package's critical sections are a few dozen instructions). */
    for (int i = 0; i < 64; i++) {
        uint32_t expected = 0;
        if (__atomic_load_n(word, __ATOMIC_RELAXED) == 0 &&
            __atomic_compare_exchange_n(word, &expected, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            return;
        }
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        __asm__ __volatile__("yield");
#endif
    }
    /* Marked "with waiters" (2) while asleep: the unlock that sees 2 wakes one. Whoever takes
     * the lock from here leaves it at 2, which costs at worst one needless wake. */
    while (__atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE) != 0) {
        syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
    }
}

void rj_lock_word_wake(uint32_t *word) {
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void rj_futex_wait(uint32_t *word, uint32_t expected) {
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

void rj_futex_wake(uint32_t *word) {
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
#else
void rj_lock_word_wait(uint32_t *word) { (void)word; }
void rj_lock_word_wake(uint32_t *word) { (void)word; }
void rj_futex_wait(uint32_t *word, uint32_t expected) { (void)word; (void)expected; }
void rj_futex_wake(uint32_t *word) { (void)word; }
#endif
