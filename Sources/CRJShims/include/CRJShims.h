/*
 * CRJShims: the few entry points of the Swift runtime that RJNodes calls directly, declared
 * in C (Swift reserves the names and will not bind them itself).
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

#ifdef __cplusplus
}
#endif
#endif
