/*
 * CRJShims: the few entry points of the Swift runtime that RJNodes and RJIterator call directly, declared
 * in C (Swift reserves the names and will not bind them itself), and the ThreadSanitizer
 * annotations of the package's lock (RJLocks).
 */
#ifndef CRJSHIMS_H
#define CRJSHIMS_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* libswiftCore: whether a native Swift object has started deinitialising. Safe on an object
 * whose memory an unowned reference keeps (see RJNodes/OwnerLiveness.swift). */
extern bool swift_isDeallocating(void *object);

static inline bool rj_is_deallocating(void *object) {
    return swift_isDeallocating(object);
}

/* libswiftCore: whether the strong reference the caller holds to a native Swift object is its
 * only one (what `isKnownUniquelyReferenced` asks, for a reference that is not a variable of
 * the caller's: a borrowed parameter). */
extern bool swift_isUniquelyReferenced_nonNull_native(const void *object);

static inline bool rj_is_uniquely_referenced(const void *object) {
    return swift_isUniquelyReferenced_nonNull_native(object);
}

/* libswift_Concurrency (Swift calling convention): the task this thread runs (NULL outside
 * any task), and whether a task is cancelled. What `Task.isCancelled` asks, without the
 * retain and release of the task around the question that it adds (two thirds of its cost),
 * for the one check on the fast path of every async generator request. */
extern void *swift_task_getCurrent(void) __attribute__((swiftcall));
extern bool swift_task_isCancelled(void *task) __attribute__((swiftcall));

static inline bool rj_current_task_is_cancelled(void) {
    void *task = swift_task_getCurrent();
    return task && swift_task_isCancelled(task);
}

/* ThreadSanitizer's annotations (sanitizer/tsan_interface.h): `addr` names a synchronisation
 * object; an acquire sees everything written before the last release of the same object.
 * Weak: present only when the program runs with ThreadSanitizer's runtime, so the check is a
 * load and a predicted branch otherwise. (A header cannot ask whether the Swift code that
 * inlines it is instrumented: the importer does not pass -fsanitize on.) */
extern void __tsan_acquire(void *addr) __attribute__((weak));
extern void __tsan_release(void *addr) __attribute__((weak));

static inline void rj_tsan_acquire(const void *addr) {
    if (__tsan_acquire) __tsan_acquire((void *)addr);
}
static inline void rj_tsan_release(const void *addr) {
    if (__tsan_release) __tsan_release((void *)addr);
}

/* 64-bit atomic words for RJLocks' RJAtomic where the toolchain's Synchronization module is not
 * used (Apple platforms below macOS 15 / iOS 18, or a build with -DRJ_NO_SYNCHRONIZATION).
 * Sequentially consistent: the strongest order, so every ordering the Swift side asks for is
 * kept. GCC/Clang builtins, lock-free on every 64-bit target and on arm64_32. */
static inline uint64_t rj_atomic_load(const uint64_t *word) {
    return __atomic_load_n(word, __ATOMIC_SEQ_CST);
}
static inline void rj_atomic_store(uint64_t *word, uint64_t value) {
    __atomic_store_n(word, value, __ATOMIC_SEQ_CST);
}
static inline uint64_t rj_atomic_exchange(uint64_t *word, uint64_t value) {
    return __atomic_exchange_n(word, value, __ATOMIC_SEQ_CST);
}
/* Returns the value seen; the exchange happened if it equals `expected`. */
static inline uint64_t rj_atomic_compare_exchange(uint64_t *word, uint64_t expected, uint64_t desired) {
    __atomic_compare_exchange_n(word, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return expected;
}
/* Returns the value before the addition (wrapping). */
static inline uint64_t rj_atomic_fetch_add(uint64_t *word, uint64_t delta) {
    return __atomic_fetch_add(word, delta, __ATOMIC_SEQ_CST);
}

/* The slow halves of RJLocks' lock word on Linux (RJLock.swift: Drepper's "Futexes are
 * tricky", mutex 3): 0 unlocked, 1 locked, 2 locked with waiters. The fast halves, one
 * compare-exchange to lock and one exchange to unlock, are inline Swift atomics; these run only
 * when the lock is taken (a short spin, then sleep in the kernel) or has waiters (wake one).
 * Elsewhere (Apple platforms) the lock is a pthread mutex and these are never called. */
void rj_lock_word_wait(uint32_t *word);
void rj_lock_word_wake(uint32_t *word);

/* The futex calls themselves, for RJLocks' hinted mutex (RJHintedMutex.swift), whose word
 * carries more than the lock: sleep while `*word == expected`; wake one sleeper. */
void rj_futex_wait(uint32_t *word, uint32_t expected);
void rj_futex_wake(uint32_t *word);

#ifdef __cplusplus
}
#endif
#endif
