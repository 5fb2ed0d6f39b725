/*
 * CRJShims: the few entry points of the Swift runtime that RJNodes calls directly, declared
 * in C (Swift reserves the names and will not bind them itself), and the ThreadSanitizer
 * annotations of the package's lock (RJLocks).
 */
#ifndef CRJSHIMS_H
#define CRJSHIMS_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* libswiftCore: whether a native Swift object has started deinitialising. Safe on an object
 * whose memory an unowned reference keeps (see RJNodes/OwnerLiveness.swift). */
extern bool swift_isDeallocating(void *object);

static inline bool rj_is_deallocating(void *object) {
    return swift_isDeallocating(object);
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

#ifdef __cplusplus
}
#endif
#endif
