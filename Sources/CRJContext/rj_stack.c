/*
 * Stacks: mmap'ed, lazily committed, guard below, pooled.
 *
 * - MAP_NORESERVE: a 256 KiB stack costs address space, not memory; a page
 *   becomes resident when a frame first touches it.
 * - The guard: MADV_GUARD_INSTALL (Linux 6.13+) marks the pages in the page
 *   table and leaves the mapping whole, so neighbouring stacks can share one
 *   kernel VMA. mprotect(PROT_NONE) would split every stack into two VMAs and
 *   vm.max_map_count (65530 by default) would cap a process at ~32k stacks.
 *   Older kernels answer EINVAL and we fall back to mprotect.
 * - The guard is 64 KiB unless changed: a frame larger than the guard (a big
 *   local array) would jump over a smaller one and land in a neighbouring
 *   mapping. With MADV_GUARD_INSTALL or MAP_NORESERVE + PROT_NONE it costs
 *   address space, not memory. RJ_GUARD_MPROTECT=1 in the environment forces
 *   the mprotect guard (qemu-user does not deliver faults on madvise guards to
 *   the program, so the arm64 tests under qemu use it).
 * - The pool keeps up to `pool_limit` freed stacks for reuse; the first
 *   `resident_limit` keep their pages, the rest are given back with
 *   MADV_DONTNEED before they are pooled (the guard survives that).
 */
#include "rj_internal.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_NORESERVE
#  define MAP_NORESERVE 0
#endif
#if defined(__linux__) && !defined(MADV_GUARD_INSTALL)
#  define MADV_GUARD_INSTALL 102
#endif

#define RJ_KIB 1024u
/* Frames of an instrumented build are several times larger (redzones, TSan's
 * bookkeeping): a sanitized build gets a larger default. */
#if RJ_ASAN || RJ_TSAN
#  define RJ_DEFAULT_STACK (1024u * RJ_KIB)
#else
#  define RJ_DEFAULT_STACK (256u * RJ_KIB)
#endif
#define RJ_MIN_STACK (16u * RJ_KIB)
#define RJ_DEFAULT_GUARD (64u * RJ_KIB)

/* ---- Configuration ------------------------------------------------------ */

static size_t rj_cfg_stack_size = RJ_DEFAULT_STACK;
static size_t rj_cfg_guard_size = RJ_DEFAULT_GUARD;
static size_t rj_cfg_pool_limit = 64;
static size_t rj_cfg_resident_limit = 16;

size_t rj_page_size(void) {
    static size_t cached;
    size_t p = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (p == 0) {
        long v = sysconf(_SC_PAGESIZE);
        p = v > 0 ? (size_t)v : 4096;
        __atomic_store_n(&cached, p, __ATOMIC_RELAXED);
    }
    return p;
}

size_t rj_default_stack_size(void) { return __atomic_load_n(&rj_cfg_stack_size, __ATOMIC_RELAXED); }
void rj_set_default_stack_size(size_t size) {
    if (size < RJ_MIN_STACK) size = RJ_MIN_STACK;
    size_t old = __atomic_exchange_n(&rj_cfg_stack_size, size, __ATOMIC_RELAXED);
    /* Only default-size stacks are pooled: those of the old size would never be used again. */
    if (old != size) rj_stack_pool_drain();
}
size_t rj_min_stack_size(void) { return RJ_MIN_STACK; }
static size_t rj_round_to_pages(size_t n) {
    size_t page = rj_page_size();
    return (n + page - 1) & ~(page - 1);
}
size_t rj_guard_size(void) { return rj_round_to_pages(__atomic_load_n(&rj_cfg_guard_size, __ATOMIC_RELAXED)); }
void rj_set_guard_size(size_t size) {
    if (size < rj_page_size()) size = rj_page_size();
    size_t old = __atomic_exchange_n(&rj_cfg_guard_size, size, __ATOMIC_RELAXED);
    /* A pooled stack carries the guard it was made with. */
    if (old != size) rj_stack_pool_drain();
}

/* ---- Statistics --------------------------------------------------------- */

static size_t rj_mapped_count;
static size_t rj_live_count;

size_t rj_stats_mapped_stacks(void) { return __atomic_load_n(&rj_mapped_count, __ATOMIC_RELAXED); }
size_t rj_stats_live_stacks(void) { return __atomic_load_n(&rj_live_count, __ATOMIC_RELAXED); }

/* ---- Pool --------------------------------------------------------------- */

/* A spinlock: the critical sections are a few loads and stores, and an
 * uncontended pthread mutex costs twice as much. */
static int rj_pool_lock_word;
static rj_coro *rj_pool_head;
static size_t rj_pool_count;
static size_t rj_pool_resident;

static void rj_pool_lock(void) {
    unsigned spins = 0;
    while (__atomic_exchange_n(&rj_pool_lock_word, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(&rj_pool_lock_word, __ATOMIC_RELAXED)) {
            if (++spins > 64) { sched_yield(); spins = 0; }
        }
    }
}
static void rj_pool_unlock(void) { __atomic_store_n(&rj_pool_lock_word, 0, __ATOMIC_RELEASE); }

size_t rj_stack_pool_limit(void) { return __atomic_load_n(&rj_cfg_pool_limit, __ATOMIC_RELAXED); }
void rj_set_stack_pool_limit(size_t limit) {
    __atomic_store_n(&rj_cfg_pool_limit, limit, __ATOMIC_RELAXED);
    if (rj_stats_pooled_stacks() > limit) rj_stack_pool_drain();
}
size_t rj_stack_pool_resident_limit(void) { return __atomic_load_n(&rj_cfg_resident_limit, __ATOMIC_RELAXED); }
void rj_set_stack_pool_resident_limit(size_t limit) {
    __atomic_store_n(&rj_cfg_resident_limit, limit, __ATOMIC_RELAXED);
}
size_t rj_stats_pooled_stacks(void) { return __atomic_load_n(&rj_pool_count, __ATOMIC_RELAXED); }

/* ---- Mapping ------------------------------------------------------------ */

static int rj_guard_mode = -1; /* -1 unknown, 1 madvise, 0 mprotect */
int rj_guard_uses_madvise(void) { return __atomic_load_n(&rj_guard_mode, __ATOMIC_RELAXED) == 1; }

static long rj_read_max_map_count(void) {
    long v = -1;
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    if (f) {
        if (fscanf(f, "%ld", &v) != 1) v = -1;
        fclose(f);
    }
    return v;
}

static void rj_explain_enomem(size_t stack_size, const char *what) {
    long maps = rj_read_max_map_count();
    char knob[96] = "";
    if (maps > 0) snprintf(knob, sizeof knob, " (now %ld)", maps);
    rj_set_error("RJIterator: cannot allocate a generator stack of %zu KiB: %s failed with ENOMEM "
                 "(out of address space, memory, or memory map areas). Release generators you no "
                 "longer need, use a smaller stackSize or RJRuntime.defaultStackSize, or raise "
                 "vm.max_map_count%s / ulimit -v",
                 stack_size / RJ_KIB, what, knob);
}

static int rj_install_guard(char *base, size_t guard) {
    int mode = __atomic_load_n(&rj_guard_mode, __ATOMIC_RELAXED);
    if (mode < 0) {
        const char *env = getenv("RJ_GUARD_MPROTECT");
        if (env && *env && *env != '0') {
            mode = 0;
            __atomic_store_n(&rj_guard_mode, 0, __ATOMIC_RELAXED);
        }
    }
#if defined(__linux__)
    if (mode != 0) {
        if (madvise(base, guard, MADV_GUARD_INSTALL) == 0) {
            if (mode < 0) __atomic_store_n(&rj_guard_mode, 1, __ATOMIC_RELAXED);
            return 0;
        }
        if (errno != EINVAL) return -1; /* a real failure, not an old kernel */
        __atomic_store_n(&rj_guard_mode, 0, __ATOMIC_RELAXED);
    }
#else
    (void)mode;
    __atomic_store_n(&rj_guard_mode, 0, __ATOMIC_RELAXED);
#endif
    return mprotect(base, guard, PROT_NONE);
}

/* The mapping a stack of stack_size usable bytes takes: the guard, then the
 * stack and its header rounded up to whole pages. */
static size_t rj_map_size_for(size_t stack_size) {
    size_t page = rj_page_size();
    return rj_guard_size() + ((stack_size + sizeof(rj_coro) + page - 1) & ~(page - 1));
}

static rj_coro *rj_map_stack(size_t stack_size) {
    size_t guard = rj_guard_size();
    if (stack_size > ((size_t)1 << 46)) {
        rj_set_error("RJIterator: cannot allocate a generator stack of %zu KiB: larger than any "
                     "address space; use a smaller stackSize",
                     stack_size / RJ_KIB);
        return NULL;
    }
    size_t map_size = rj_map_size_for(stack_size);
    char *base = mmap(NULL, map_size, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) {
        if (errno == ENOMEM) rj_explain_enomem(stack_size, "mmap");
        else rj_set_error("RJIterator: cannot allocate a generator stack of %zu KiB: mmap: %s",
                          stack_size / RJ_KIB, strerror(errno));
        return NULL;
    }
    if (rj_install_guard(base, guard) != 0) {
        int err = errno;
        munmap(base, map_size);
        if (err == ENOMEM) rj_explain_enomem(stack_size, "installing the guard page");
        else rj_set_error("RJIterator: cannot install the guard page of a generator stack: %s",
                          strerror(err));
        return NULL;
    }
    char *top = base + map_size;
    rj_coro *c = (rj_coro *)(((uintptr_t)top - sizeof(rj_coro)) & ~(uintptr_t)63);
    memset(c, 0, sizeof *c);
    c->map_base = base;
    c->map_size = map_size;
    c->stack_lo = base + guard;
    c->stack_hi = (char *)c;
    c->resident = 1;
    __atomic_fetch_add(&rj_mapped_count, 1, __ATOMIC_RELAXED);
    return c;
}

static void rj_unmap_stack(rj_coro *c) {
    munmap(c->map_base, c->map_size);
    __atomic_fetch_sub(&rj_mapped_count, 1, __ATOMIC_RELAXED);
}

rj_coro *rj_stack_acquire(size_t stack_size) {
    size_t want = rj_map_size_for(stack_size);
    rj_coro *c = NULL;
    if (__atomic_load_n(&rj_pool_count, __ATOMIC_RELAXED) != 0) {
        rj_pool_lock();
        rj_coro **link = &rj_pool_head;
        for (int scanned = 0; *link && scanned < 8; scanned++, link = &(*link)->pool_next) {
            if ((*link)->map_size == want) {
                c = *link;
                *link = c->pool_next;
                __atomic_store_n(&rj_pool_count, rj_pool_count - 1, __ATOMIC_RELAXED);
                if (c->resident) rj_pool_resident--;
                break;
            }
        }
        rj_pool_unlock();
    }
    if (!c) c = rj_map_stack(stack_size);
    if (c) {
        c->pool_next = NULL;
        c->resident = 1;
        __atomic_fetch_add(&rj_live_count, 1, __ATOMIC_RELAXED);
    }
    return c;
}

/* Pushes c on the pool under the lock already held; 0 if the pool is full. */
static int rj_pool_push_locked(rj_coro *c, size_t limit) {
    if (rj_pool_count >= limit) return 0;
    c->pool_next = rj_pool_head;
    rj_pool_head = c;
    __atomic_store_n(&rj_pool_count, rj_pool_count + 1, __ATOMIC_RELAXED);
    if (c->resident) rj_pool_resident++;
    return 1;
}

void rj_stack_release(rj_coro *c) {
    __atomic_fetch_sub(&rj_live_count, 1, __ATOMIC_RELAXED);
    size_t limit = rj_stack_pool_limit();
    if (c->map_size != rj_map_size_for(rj_default_stack_size()) ||
        __atomic_load_n(&rj_pool_count, __ATOMIC_RELAXED) >= limit) {
        rj_unmap_stack(c);
        return;
    }
    /* The common case, one lock: there is room for one more stack that keeps its pages. */
    rj_pool_lock();
    if (rj_pool_resident < rj_stack_pool_resident_limit()) {
        c->resident = 1;
        int pooled = rj_pool_push_locked(c, limit);
        rj_pool_unlock();
        if (!pooled) rj_unmap_stack(c);
        return;
    }
    rj_pool_unlock();
    /* Beyond the resident budget: give back every page but the top one (the header's) before
     * the stack is pooled; once pooled, another thread may take it, so not after. */
    size_t page = rj_page_size();
    char *top_page = (char *)((uintptr_t)c & ~(uintptr_t)(page - 1));
    if (top_page > c->stack_lo) madvise(c->stack_lo, (size_t)(top_page - c->stack_lo), MADV_DONTNEED);
    c->resident = 0;
    rj_pool_lock();
    int pooled = rj_pool_push_locked(c, limit);
    rj_pool_unlock();
    if (!pooled) rj_unmap_stack(c);
}

void rj_stack_pool_drain(void) {
    rj_pool_lock();
    rj_coro *list = rj_pool_head;
    rj_pool_head = NULL;
    __atomic_store_n(&rj_pool_count, 0, __ATOMIC_RELAXED);
    rj_pool_resident = 0;
    rj_pool_unlock();
    while (list) {
        rj_coro *next = list->pool_next;
        rj_unmap_stack(list);
        list = next;
    }
}
