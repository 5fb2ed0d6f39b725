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
 * - Slabs: stacks of the default size are carved from slabs, one mapping of
 *   64 slots (guard, stack, header each), their guards installed at once (one
 *   process_madvise where the kernel takes it). Carving a slot and giving it
 *   back take a lock and no system call; the pages of slots given back are
 *   given back to the system in batches, one madvise per run of neighbouring
 *   slots. A slab none of whose slots is in use is unmapped, but for one spare.
 *   So a program with 100,000 generators alive makes one mmap per 64 stacks,
 *   and the kernel sees one memory map area per slab (MADV_GUARD_INSTALL).
 *   Stacks of another size get a mapping of their own.
 * - The pool keeps up to `pool_limit` freed stacks for reuse, in two lists:
 *   those that keep their pages (at most `resident_limit`, most recently freed
 *   first) and those whose pages were given back with MADV_DONTNEED (the guard
 *   survives that). A stack is taken from the first list when it has one: the
 *   most recently freed stack is the one whose pages are still in the caches.
 *   When a release takes the first list over its limit, the stack freed the
 *   longest time ago gives its pages back and moves to the second list. So a
 *   program whose live stacks go up and down by less than `resident_limit`
 *   never gives pages back nor faults them in again, however long it runs;
 *   one that frees more at once than the limit gives back the excess once.
 */
#include "rj_internal.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
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
#define RJ_MAX_STACK ((size_t)1 << 46)
#define RJ_DEFAULT_GUARD (64u * RJ_KIB)

/* ---- Configuration ------------------------------------------------------ */

size_t rj_cfg_stack_size = RJ_DEFAULT_STACK;
static size_t rj_cfg_guard_size = RJ_DEFAULT_GUARD;
static size_t rj_cfg_pool_limit = 64;
static size_t rj_cfg_resident_limit = 64;
/* rj_map_size_for(the default size), cached: every pooled acquire and release compares with
 * it. 0 until computed; reset when the default size or the guard changes. */
static size_t rj_default_map_size_cache;

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

/* The one stack-size policy, for a generator's own size and for the default alike: at least
 * RJ_MIN_STACK, at most RJ_MAX_STACK (more than any address space); anything else is refused
 * with a message that names the setting. */
int rj_check_stack_size(long long size, const char *setting) {
    if (size < (long long)RJ_MIN_STACK) {
        rj_set_error("RJIterator: %s %lld is below the minimum of %u bytes; pass at least %u KiB", setting, size,
                     RJ_MIN_STACK, RJ_MIN_STACK / RJ_KIB);
        return -1;
    }
    if ((unsigned long long)size > RJ_MAX_STACK) {
        rj_set_error("RJIterator: %s %lld is larger than any address space; pass at most %llu bytes", setting, size,
                     (unsigned long long)RJ_MAX_STACK);
        return -1;
    }
    return 0;
}

int rj_set_default_stack_size(size_t size) {
    if (rj_check_stack_size(size > (size_t)LLONG_MAX ? LLONG_MAX : (long long)size, "RJRuntime.defaultStackSize") != 0)
        return -1;
    size_t old = __atomic_exchange_n(&rj_cfg_stack_size, size, __ATOMIC_RELAXED);
    __atomic_store_n(&rj_default_map_size_cache, 0, __ATOMIC_RELAXED);
    /* Only default-size stacks are pooled: those of the old size would never be used again. */
    if (old != size) rj_stack_pool_drain();
    return 0;
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
    __atomic_store_n(&rj_default_map_size_cache, 0, __ATOMIC_RELAXED);
    /* A pooled stack carries the guard it was made with. */
    if (old != size) rj_stack_pool_drain();
}

/* ---- Statistics --------------------------------------------------------- */

/* Stacks mapped and not unmapped: live ones and pooled ones. Live is derived (mapped minus
 * pooled): no counter to update as a generator starts and ends. */
static size_t rj_mapped_count;

size_t rj_stats_mapped_stacks(void) { return __atomic_load_n(&rj_mapped_count, __ATOMIC_RELAXED); }

/* ---- Pool ---------------------------------------------------------------
 * Two lists under one lock (see the top of this file): `hot`, doubly linked,
 * most recently freed first, every stack keeping its pages; `cold`, singly
 * linked, stacks whose pages were given back. */

/* A spinlock: the critical sections are a few loads and stores, shorter than
 * an uncontended pthread mutex's own work. */
static int rj_pool_lock_word;
static rj_coro *rj_hot_head, *rj_hot_tail, *rj_cold_head;
static size_t rj_hot_count, rj_cold_count;
/* rj_hot_count + rj_cold_count, readable without the lock. */
static size_t rj_pool_count;
/* Stacks that gave their pages back as they went cold (statistics). */
static size_t rj_trim_count;

/* preserve_most: the caller keeps its registers across the call, so the common path of a
 * caller that may wait here needs none saved. */
#if defined(__clang__) && (defined(__x86_64__) || defined(__aarch64__))
#  define RJ_COLD_CALL __attribute__((noinline, preserve_most))
#else
#  define RJ_COLD_CALL __attribute__((noinline))
#endif
static RJ_COLD_CALL void rj_pool_lock_contended(void) {
    unsigned spins = 0;
    do {
        while (__atomic_load_n(&rj_pool_lock_word, __ATOMIC_RELAXED)) {
            if (++spins > 64) { sched_yield(); spins = 0; }
        }
    } while (__atomic_exchange_n(&rj_pool_lock_word, 1, __ATOMIC_ACQUIRE));
}
/* The wait out of line: the pool's common paths stay leaves. */
static inline __attribute__((always_inline)) void rj_pool_lock(void) {
    if (__builtin_expect(__atomic_exchange_n(&rj_pool_lock_word, 1, __ATOMIC_ACQUIRE), 0)) rj_pool_lock_contended();
}
static void rj_pool_unlock(void) { __atomic_store_n(&rj_pool_lock_word, 0, __ATOMIC_RELEASE); }

static void rj_pool_count_changed(void) {
    __atomic_store_n(&rj_pool_count, rj_hot_count + rj_cold_count, __ATOMIC_RELAXED);
}

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
size_t rj_stats_live_stacks(void) {
    /* Read in this order, a stack mapped and pooled meanwhile by another thread could make
     * the difference negative for a moment. */
    size_t mapped = rj_stats_mapped_stacks(), pooled = rj_stats_pooled_stacks();
    return mapped > pooled ? mapped - pooled : 0;
}
size_t rj_stats_pooled_resident_stacks(void) {
    rj_pool_lock();
    size_t n = rj_hot_count;
    rj_pool_unlock();
    return n;
}
size_t rj_stats_trimmed_stacks(void) { return __atomic_load_n(&rj_trim_count, __ATOMIC_RELAXED); }

/* Under the lock: the hot list's first stack, taken off, or NULL. */
static rj_coro *rj_hot_pop_locked(void) {
    rj_coro *c = rj_hot_head;
    if (!c) return NULL;
    rj_hot_head = c->pool_next;
    if (rj_hot_head) rj_hot_head->pool_prev = NULL;
    else rj_hot_tail = NULL;
    rj_hot_count--;
    return c;
}

/* Under the lock: the hot list's last (coldest) stack, taken off, or NULL. */
static rj_coro *rj_hot_pop_coldest_locked(void) {
    rj_coro *c = rj_hot_tail;
    if (!c) return NULL;
    rj_hot_tail = c->pool_prev;
    if (rj_hot_tail) rj_hot_tail->pool_next = NULL;
    else rj_hot_head = NULL;
    rj_hot_count--;
    return c;
}

static void rj_hot_push_locked(rj_coro *c) {
    c->pool_prev = NULL;
    c->pool_next = rj_hot_head;
    if (rj_hot_head) rj_hot_head->pool_prev = c;
    else rj_hot_tail = c;
    rj_hot_head = c;
    rj_hot_count++;
}

static rj_coro *rj_cold_pop_locked(void) {
    rj_coro *c = rj_cold_head;
    if (!c) return NULL;
    rj_cold_head = c->pool_next;
    rj_cold_count--;
    return c;
}

static void rj_cold_push_locked(rj_coro *c) {
    c->pool_next = rj_cold_head;
    rj_cold_head = c;
    rj_cold_count++;
}

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

/* The reserve below a stack's nominal size: address space, never touched unless used, that
 * lets the body adopt the bodies of the fresh generators it delegates to (Swift's
 * Yielder.yieldAll runs them on this stack, as nested calls) while each still has at least the
 * stack it was promised from its own entry (rj_coro_adopt, docs/generators.md, "Delegation").
 * As large as the nominal size, up to RJ_MAX_RESERVE: a delegate of the same size adopts while
 * the stack used fits in the reserve. */
#define RJ_MAX_RESERVE ((size_t)8 << 20)
static size_t rj_reserve_for(size_t stack_size) {
    return stack_size < RJ_MAX_RESERVE ? stack_size : RJ_MAX_RESERVE;
}

/* The mapping a stack of stack_size usable bytes takes: the guard, then the reserve, the
 * stack and its header rounded up to whole pages, and a page more for the header's colour
 * (below). */
static size_t rj_map_size_for(size_t stack_size) {
    size_t page = rj_page_size();
    return rj_guard_size() + ((stack_size + rj_reserve_for(stack_size) + RJ_HEADER_BYTES + 64 + page + page - 1) & ~(page - 1));
}

static size_t rj_default_map_size(void) {
    size_t size = __atomic_load_n(&rj_default_map_size_cache, __ATOMIC_RELAXED);
    if (size == 0) {
        size = rj_map_size_for(rj_default_stack_size());
        __atomic_store_n(&rj_default_map_size_cache, size, __ATOMIC_RELAXED);
    }
    return size;
}

/* Colours: where in its page a stack's header sits. Every slot of a slab, and every mapping,
 * starts on a page boundary and has the same size, so a header at the same distance from each
 * top would put every coroutine's header, and the frames a resume touches just below it, at
 * the same offset in a page: on the same few sets of the caches indexed by those bits (the L1
 * data cache, 64 sets of 64-byte lines, indexed within the page; physically indexed caches
 * too, for the bits inside a page). A chain of a thousand filters then fights over a few sets
 * while the rest of the cache sits idle. Each stack's header goes instead at one of the lines
 * from RJ_COLOUR_LOW to the last that leaves the rj_coro inside the page, by its colour (a
 * slot's index, or a count of own mappings): its first frames stay in the header's page (at
 * least RJ_COLOUR_LOW bytes of it below the header), and the ucontext part above the rj_coro,
 * which the fast switch never touches, may run into the next page. The page of room this
 * takes is in rj_map_size_for. */
#define RJ_COLOUR_LOW 1024u

/* A stack's header, written near the top of its slot or mapping, at its colour. */
static rj_coro *rj_init_header(char *base, size_t map_size, size_t guard, unsigned colour) {
    char *top = base + map_size;
    size_t page = rj_page_size();
    uintptr_t highest = ((uintptr_t)top - RJ_HEADER_BYTES) & ~(uintptr_t)63;
    size_t lines = (page - RJ_COLOUR_LOW - ((sizeof(rj_coro) + 63) & ~(size_t)63)) / 64 + 1;
    uintptr_t at = (highest & ~(uintptr_t)(page - 1)) + RJ_COLOUR_LOW + (uintptr_t)(colour % lines) * 64;
    if (at > highest) at -= page;
    rj_coro *c = (rj_coro *)at;
    memset(c, 0, sizeof *c);
    c->map_base = base;
    c->map_size = map_size;
    c->stack_lo = base + guard;
    c->stack_hi = (char *)c;
    c->resident = 1;
    __atomic_fetch_add(&rj_mapped_count, 1, __ATOMIC_RELAXED);
    return c;
}

/* A stack in a mapping of its own (a size other than the default, or no slab to be had). */
static rj_coro *rj_map_own_stack(size_t stack_size) {
    size_t guard = rj_guard_size();
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
    static unsigned colours;
    return rj_init_header(base, map_size, guard, __atomic_fetch_add(&colours, 1, __ATOMIC_RELAXED));
}

/* ---- Slabs --------------------------------------------------------------
 * One lock for the slabs, apart from the pool's (neither is held while the
 * other is taken). A slot is free (on its slab's free list), in use, or
 * waiting in the trim batch for its pages to be given back; `used` counts the
 * last two. */

#define RJ_SLAB_SLOTS 64u
#define RJ_TRIM_BATCH 64u

typedef struct rj_slab {
    char *base;
    size_t slot_size;
    size_t guard;
    unsigned used;
    unsigned nfree;
    struct rj_slab *next, *prev; /* the list of slabs with a free slot */
    int listed;
    unsigned short free_slots[RJ_SLAB_SLOTS]; /* a stack: the last entry is carved next */
} rj_slab;

typedef struct {
    rj_slab *slab;
    unsigned slot;
} rj_slot_ref;

static int rj_slab_lock_word;
static rj_slab *rj_slabs_with_room;
static size_t rj_slab_count, rj_empty_slab_count;
static rj_slot_ref rj_trim_batch[RJ_TRIM_BATCH];
static unsigned rj_trim_batch_count;

static void rj_slab_lock(void) {
    unsigned spins = 0;
    while (__atomic_exchange_n(&rj_slab_lock_word, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(&rj_slab_lock_word, __ATOMIC_RELAXED)) {
            if (++spins > 64) { sched_yield(); spins = 0; }
        }
    }
}
static void rj_slab_unlock(void) { __atomic_store_n(&rj_slab_lock_word, 0, __ATOMIC_RELEASE); }

size_t rj_stats_mapped_slabs(void) {
    rj_slab_lock();
    size_t n = rj_slab_count;
    rj_slab_unlock();
    return n;
}

static void rj_slab_list_add_locked(rj_slab *s) {
    s->prev = NULL;
    s->next = rj_slabs_with_room;
    if (rj_slabs_with_room) rj_slabs_with_room->prev = s;
    rj_slabs_with_room = s;
    s->listed = 1;
}

static void rj_slab_list_remove_locked(rj_slab *s) {
    if (s->prev) s->prev->next = s->next;
    else rj_slabs_with_room = s->next;
    if (s->next) s->next->prev = s->prev;
    s->next = s->prev = NULL;
    s->listed = 0;
}

/* The guards of n slots of slot_size bytes from base: one process_madvise for all of them
 * where the kernel takes MADV_GUARD_INSTALL there, otherwise one call per slot. */
static int rj_install_slab_guards(char *base, size_t slot_size, unsigned n, size_t guard) {
#if defined(__linux__) && defined(SYS_process_madvise) && defined(SYS_pidfd_open)
    static int pidfd = -2; /* -2 not tried, -1 not available */
    int fd = __atomic_load_n(&pidfd, __ATOMIC_RELAXED);
    if (fd == -2) {
        int opened = (int)syscall(SYS_pidfd_open, getpid(), 0);
        int expected = -2;
        if (!__atomic_compare_exchange_n(&pidfd, &expected, opened < 0 ? -1 : opened, 0,
                                         __ATOMIC_RELAXED, __ATOMIC_RELAXED) && opened >= 0)
            close(opened);
        fd = __atomic_load_n(&pidfd, __ATOMIC_RELAXED);
    }
    /* Only once the madvise guard is known to work (the first guard of all goes one by one). */
    if (fd >= 0 && __atomic_load_n(&rj_guard_mode, __ATOMIC_RELAXED) == 1) {
        struct iovec iov[RJ_SLAB_SLOTS];
        for (unsigned i = 0; i < n; i++) {
            iov[i].iov_base = base + (size_t)i * slot_size;
            iov[i].iov_len = guard;
        }
        long done = syscall(SYS_process_madvise, fd, iov, (size_t)n, MADV_GUARD_INSTALL, 0);
        if (done == (long)(guard * n)) return 0;
        /* Partly done or refused: the calls below install the rest (installing twice is harmless). */
    }
#endif
    for (unsigned i = 0; i < n; i++) {
        if (rj_install_guard(base + (size_t)i * slot_size, guard) != 0) return -1;
    }
    return 0;
}

/* A new slab of slots of slot_size bytes, or NULL (the caller maps a stack of its own, which
 * reports the error). */
static rj_slab *rj_slab_map(size_t slot_size) {
    size_t guard = rj_guard_size();
    size_t total = slot_size * RJ_SLAB_SLOTS;
    char *base = mmap(NULL, total, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) return NULL;
    rj_slab *s = malloc(sizeof *s);
    if (!s || rj_install_slab_guards(base, slot_size, RJ_SLAB_SLOTS, guard) != 0) {
        free(s);
        munmap(base, total);
        return NULL;
    }
    memset(s, 0, sizeof *s);
    s->base = base;
    s->slot_size = slot_size;
    s->guard = guard;
    s->nfree = RJ_SLAB_SLOTS;
    for (unsigned i = 0; i < RJ_SLAB_SLOTS; i++) s->free_slots[i] = (unsigned short)(RJ_SLAB_SLOTS - 1 - i);
    return s;
}

static char *rj_slot_base(const rj_slab *s, unsigned slot) { return s->base + (size_t)slot * s->slot_size; }

/* A stack carved from a slab of map_size slots, or NULL. */
static rj_coro *rj_slab_carve(size_t map_size) {
    rj_slab_lock();
    rj_slab *s = rj_slabs_with_room;
    while (s && s->slot_size != map_size) s = s->next;
    if (!s) {
        rj_slab_unlock();
        s = rj_slab_map(map_size);
        if (!s) return NULL;
        rj_slab_lock();
        rj_slab_list_add_locked(s);
        rj_slab_count++;
        rj_empty_slab_count++;
    }
    if (s->used == 0) rj_empty_slab_count--;
    unsigned slot = s->free_slots[--s->nfree];
    s->used++;
    if (s->nfree == 0) rj_slab_list_remove_locked(s);
    rj_slab_unlock();
    rj_coro *c = rj_init_header(rj_slot_base(s, slot), map_size, s->guard, slot);
    c->slab = s;
    c->slot = slot;
    return c;
}

static int rj_slot_ref_order(const void *a, const void *b) {
    const rj_slot_ref *x = a, *y = b;
    uintptr_t px = (uintptr_t)rj_slot_base(x->slab, x->slot), py = (uintptr_t)rj_slot_base(y->slab, y->slot);
    return px < py ? -1 : px > py;
}

/* Gives the pages of n slots back (one madvise per run of neighbouring slots of a slab: the
 * guards between them keep their markers), puts the slots on their slabs' free lists, and
 * unmaps the slabs left empty, but for one spare of the current size (none if keep_spare is 0). */
static void rj_slots_free(rj_slot_ref *refs, unsigned n, int keep_spare) {
    qsort(refs, n, sizeof *refs, rj_slot_ref_order);
    for (unsigned i = 0; i < n;) {
        unsigned j = i + 1;
        while (j < n && refs[j].slab == refs[i].slab && refs[j].slot == refs[j - 1].slot + 1) j++;
        rj_slab *s = refs[i].slab;
        char *from = rj_slot_base(s, refs[i].slot) + s->guard;
        char *to = rj_slot_base(s, refs[j - 1].slot) + s->slot_size;
        madvise(from, (size_t)(to - from), MADV_DONTNEED);
        i = j;
    }
    rj_slab *unmap = NULL;
    size_t current = rj_default_map_size();
    rj_slab_lock();
    for (unsigned i = 0; i < n; i++) {
        rj_slab *s = refs[i].slab;
        s->free_slots[s->nfree++] = (unsigned short)refs[i].slot;
        if (!s->listed) rj_slab_list_add_locked(s);
        if (--s->used == 0) rj_empty_slab_count++;
    }
    /* Empty slabs: all but one spare of the current size go back to the system. */
    int spare_kept = 0;
    for (rj_slab *s = rj_slabs_with_room; s;) {
        rj_slab *next = s->next;
        if (s->used == 0) {
            if (keep_spare && !spare_kept && s->slot_size == current) {
                spare_kept = 1;
            } else {
                rj_slab_list_remove_locked(s);
                rj_slab_count--;
                rj_empty_slab_count--;
                s->next = unmap;
                unmap = s;
            }
        }
        s = next;
    }
    rj_slab_unlock();
    while (unmap) {
        rj_slab *next = unmap->next;
        munmap(unmap->base, unmap->slot_size * RJ_SLAB_SLOTS);
        free(unmap);
        unmap = next;
    }
}

/* Takes the trim batch (under the lock) and frees its slots; the batch is left empty. */
static void rj_slab_flush(int keep_spare) {
    rj_slot_ref refs[RJ_TRIM_BATCH];
    rj_slab_lock();
    unsigned n = rj_trim_batch_count;
    memcpy(refs, rj_trim_batch, n * sizeof *refs);
    rj_trim_batch_count = 0;
    rj_slab_unlock();
    rj_slots_free(refs, n, keep_spare);
}

/* A slot given back: into the trim batch, which is freed as a whole once full. */
static void rj_slab_give_back(rj_coro *c) {
    rj_slot_ref ref = {c->slab, c->slot};
    rj_slot_ref full[RJ_TRIM_BATCH];
    unsigned n = 0;
    rj_slab_lock();
    rj_trim_batch[rj_trim_batch_count++] = ref;
    if (rj_trim_batch_count == RJ_TRIM_BATCH) {
        n = rj_trim_batch_count;
        memcpy(full, rj_trim_batch, sizeof full);
        rj_trim_batch_count = 0;
    }
    rj_slab_unlock();
    if (n) rj_slots_free(full, n, 1);
}

static rj_coro *rj_map_stack(size_t stack_size) {
    size_t map_size = rj_map_size_for(stack_size);
    rj_coro *c = map_size == rj_default_map_size() ? rj_slab_carve(map_size) : NULL;
    if (!c) c = rj_map_own_stack(stack_size);
#if RJ_VALGRIND
    /* Valgrind is told of a stack for as long as it is mapped, pooled or in use: once per
     * stack, not once per coroutine that runs on it. */
    if (c) c->valgrind_id = VALGRIND_STACK_REGISTER(c->stack_lo, c->stack_hi);
#endif
    return c;
}

static void rj_unmap_stack(rj_coro *c) {
#if RJ_VALGRIND
    VALGRIND_STACK_DEREGISTER(c->valgrind_id);
#endif
    __atomic_fetch_sub(&rj_mapped_count, 1, __ATOMIC_RELAXED);
    if (c->slab) rj_slab_give_back(c);
    else munmap(c->map_base, c->map_size);
}

rj_coro *rj_stack_map_run(size_t stack_size) {
    rj_coro *c = rj_map_own_stack(stack_size);
    if (c) {
        __atomic_fetch_sub(&rj_mapped_count, 1, __ATOMIC_RELAXED);
        c->uncounted = 1;
    }
    return c;
}

/* The common case of rj_stack_acquire and rj_stack_release, kept small (no call, few
 * registers saved): a default-size stack taken off the hot list, or put on it while it has
 * room. Everything else is the *_slow function, which decides afresh. */
static __attribute__((noinline)) rj_coro *rj_stack_acquire_slow(size_t stack_size);
static __attribute__((noinline)) void rj_stack_release_slow(rj_coro *c);

rj_coro *rj_stack_acquire(size_t stack_size) {
    if (__atomic_load_n(&rj_pool_count, __ATOMIC_RELAXED) != 0 && stack_size == rj_default_stack_size()) {
        rj_pool_lock();
        rj_coro *c = rj_hot_pop_locked();
        if (__builtin_expect(c != NULL, 1)) {
            rj_pool_count_changed();
            rj_pool_unlock();
            c->pool_next = NULL; /* pool_prev is NULL at the hot list's head; resident is 1 */
            return c;
        }
        rj_pool_unlock();
    }
    return rj_stack_acquire_slow(stack_size); /* a tail call: the case above stays a leaf */
}

void rj_stack_release(rj_coro *c) {
    size_t map_size = __atomic_load_n(&rj_default_map_size_cache, __ATOMIC_RELAXED);
    size_t limit = rj_stack_pool_limit();
    if (__builtin_expect(!c->uncounted && c->map_size == map_size && limit != 0, 1)) {
        rj_pool_lock();
        if (rj_hot_count < rj_stack_pool_resident_limit() && rj_hot_count + rj_cold_count < limit) {
            rj_hot_push_locked(c);
            rj_pool_count_changed();
            rj_pool_unlock();
            return;
        }
        rj_pool_unlock();
    }
    rj_stack_release_slow(c);
}

static rj_coro *rj_stack_acquire_slow(size_t stack_size) {
    rj_coro *c = NULL;
    /* Only default-size stacks are pooled, all of the current size (a change of the size
     * or of the guard drains the pool). */
    if (__atomic_load_n(&rj_pool_count, __ATOMIC_RELAXED) != 0 &&
        (stack_size == rj_default_stack_size() || rj_map_size_for(stack_size) == rj_default_map_size())) {
        rj_pool_lock();
        c = rj_hot_pop_locked();
        if (!c) c = rj_cold_pop_locked();
        rj_pool_count_changed();
        rj_pool_unlock();
    }
    if (!c) c = rj_map_stack(stack_size);
    if (c) {
        c->pool_next = c->pool_prev = NULL;
        c->resident = 1;
    }
    return c;
}

/* Gives the pages of c's stack back, all but the top one (the header's). */
static void rj_trim(rj_coro *c) {
    size_t page = rj_page_size();
    char *top_page = (char *)((uintptr_t)c & ~(uintptr_t)(page - 1));
    if (top_page > c->stack_lo) madvise(c->stack_lo, (size_t)(top_page - c->stack_lo), MADV_DONTNEED);
    c->resident = 0;
    __atomic_fetch_add(&rj_trim_count, 1, __ATOMIC_RELAXED);
}

static void rj_stack_release_slow(rj_coro *c) {
    if (c->uncounted) {
        munmap(c->map_base, c->map_size);
        return;
    }
    size_t limit = rj_stack_pool_limit();
    if (c->map_size != rj_default_map_size() || limit == 0) {
        rj_unmap_stack(c);
        return;
    }
    /* The common case, one lock and no system call: c joins the hot list, which has room. */
    rj_pool_lock();
    rj_hot_push_locked(c);
    rj_coro *cooled = NULL, *dropped = NULL;
    if (rj_hot_count > rj_stack_pool_resident_limit()) cooled = rj_hot_pop_coldest_locked();
    if (rj_hot_count + rj_cold_count + (cooled != NULL) > limit) {
        /* Full: the coldest stack goes back to the system. */
        if (cooled) { dropped = cooled; cooled = NULL; }
        else if (rj_cold_head) dropped = rj_cold_pop_locked();
        else dropped = rj_hot_pop_coldest_locked();
    }
    rj_pool_count_changed();
    rj_pool_unlock();
    if (dropped) rj_unmap_stack(dropped);
    if (cooled) {
        /* Outside the lock: the stack is in neither list meanwhile, so nobody takes it. */
        rj_trim(cooled);
        rj_pool_lock();
        if (rj_hot_count + rj_cold_count < limit) {
            rj_cold_push_locked(cooled);
            cooled = NULL;
        }
        rj_pool_count_changed();
        rj_pool_unlock();
        if (cooled) rj_unmap_stack(cooled);
    }
}

void rj_stack_pool_drain(void) {
    rj_pool_lock();
    rj_coro *hot = rj_hot_head, *cold = rj_cold_head;
    rj_hot_head = rj_hot_tail = rj_cold_head = NULL;
    rj_hot_count = rj_cold_count = 0;
    rj_pool_count_changed();
    rj_pool_unlock();
    for (rj_coro *list = hot; list;) {
        rj_coro *next = list->pool_next;
        rj_unmap_stack(list);
        list = next;
    }
    for (rj_coro *list = cold; list;) {
        rj_coro *next = list->pool_next;
        rj_unmap_stack(list);
        list = next;
    }
    /* And the slots waiting to give their pages back, and every empty slab. */
    rj_slab_flush(0);
}
