/*
 * Swift runtime state that must follow a coroutine from switch to switch.
 *
 * 1. The exclusivity access set.
 *    Swift's exclusivity checker keeps, per thread, a linked list of the
 *    accesses in progress, and the records live in the stack frames that
 *    opened them. A body that yields inside an access (a `mutating` method on
 *    a class property, say) would leave its record on the thread's list while
 *    the caller goes on; resumed on another thread, its end-of-access would not
 *    find the record and the runtime would abort. Swift concurrency has the
 *    same problem with tasks and solves it with
 *    swift_task_enterThreadLocalContext / swift_task_exitThreadLocalContext,
 *    which splice a task's accesses onto the thread's list and off again. A
 *    coroutine is, for this purpose, a task: we call the same two functions
 *    around a resume, with two words of state per coroutine.
 *
 *    Both calls look the runtime's thread-local up through __tls_get_addr, a
 *    large share of a round trip, and in the common case both do nothing. So
 *    each thread learns once where the runtime keeps its list head: it opens
 *    one tracked access with swift_beginAccess, finds the word of
 *    libswiftCore's thread-local block (dl_iterate_phdr gives its address and
 *    size) that now points at that access, and ends the access. A resume then
 *    reads the word and calls the runtime only when the word or the
 *    coroutine's saved state is non-empty: the cases where it has work to do.
 *
 * 2. Task-local values bound outside any task.
 *    TaskLocal.withValue in synchronous code with no current task pushes onto
 *    a per-thread "fallback" list of the concurrency runtime. A body that
 *    yields inside withValue would leave its binding visible to the caller,
 *    and, resumed on another thread, pop that thread's list. So a coroutine
 *    keeps its own bindings: when it is switched out, the items it pushed are
 *    cut off the thread's list (the thread's head goes back to what it was at
 *    the resume) and kept with the coroutine; when it is resumed, its bottom
 *    item is linked to the resuming thread's current head and its top becomes
 *    the head. The body therefore sees the resumer's bindings below its own,
 *    as a called function would, and the resumer never sees the body's. The
 *    list is the runtime's TaskLocal::Storage (one word, the head) and its
 *    items' first word is the link (low two bits: its kind, kept as they are);
 *    the thread's Storage pointer is found once, like the access-set head, by
 *    binding one value with swift_task_localValuePush on a fresh thread.
 *    Bindings made inside a task go to the task's own list, which this does
 *    not reach: do not yield inside withValue in a body resumed from a task.
 *
 * If either word cannot be found (another runtime layout), that piece falls
 * back: exclusivity to calling the runtime on every switch, task-locals to
 * not being tracked. RJ_EXCLUSIVITY_SLOW_PATH=1 forces the first fallback.
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#  define _GNU_SOURCE /* dl_iterate_phdr */
#endif
#include "rj_swift_state.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#  include <link.h>
#endif

/* What the two thread-locals point at until a thread is prepared, and for good where the
 * runtime's word was not found: never written (read-only memory, so a write would fault
 * rather than be shared by threads). A word that is never empty sends every switch to the
 * runtime (and, before preparation, to rj_prepare_thread); a word that is always empty means
 * no task-local binding to carry. So the resume's fast test reads through both pointers
 * without testing them first. */
static void *const rj_excl_always_open = (void *)1;
static void *const rj_tl_never_bound = NULL;
RJ_HIDDEN void **const rj_excl_unknown = (void **)&rj_excl_always_open;
RJ_HIDDEN void **const rj_tl_untracked = (void **)&rj_tl_never_bound;

RJ_TLS void **rj_excl_head = (void **)&rj_excl_always_open;
RJ_TLS void **rj_tl_slot = (void **)&rj_tl_never_bound;

extern void swift_beginAccess(void *pointer, void *buffer, uintptr_t flags, void *pc) __attribute__((weak));
extern void swift_endAccess(void *buffer) __attribute__((weak));

#if defined(__linux__) && defined(__clang__) && (defined(__x86_64__) || defined(__aarch64__))
#  define RJ_HAVE_TASK_LOCAL_PROBE 1
/* libswift_Concurrency (TaskLocal.cpp), Swift calling convention. */
extern void swift_task_localValuePush(const void *key, void *value, const void *valueType)
    __attribute__((swiftcall, weak));
extern void swift_task_localValuePop(void) __attribute__((swiftcall, weak));
/* Type metadata of Swift.Int, in libswiftCore. */
extern const char rj_int_metadata[] __asm__("$sSiN") __attribute__((weak));
#else
#  define RJ_HAVE_TASK_LOCAL_PROBE 0
#endif

/* ---- Task-local bindings: the slow paths -------------------------------- */

#define RJ_TL_LINK_MASK ((uintptr_t)3)

static inline void *rj_item_next(void *item) {
    return (void *)(*(uintptr_t *)item & ~RJ_TL_LINK_MASK);
}

void rj_task_locals_enter_slow(rj_coro *c, void **slot) {
    /* Put the body's own bindings back on top of the resumer's. */
    void **storage = (void **)*slot;
    if (!storage) {
        /* The runtime allocates this with malloc and frees it with free once
         * its last binding is popped; ours is the same kind of block. */
        storage = malloc(sizeof(void *));
        if (!storage) abort();
        *storage = NULL;
        *slot = storage;
    }
    uintptr_t *bottom = c->tl_bottom;
    *bottom = (uintptr_t)c->tl_resumer_head | (*bottom & RJ_TL_LINK_MASK);
    *storage = c->tl_head;
}

void rj_task_locals_exit_slow(rj_coro *c, void **slot, void *head) {
    /* The body left bindings on the thread's list: keep them, and give the
     * resumer back the list it had. */
    void *resumer_head = c->tl_resumer_head;
    void *item = head;
    while (item && rj_item_next(item) != resumer_head) item = rj_item_next(item);
    if (!item) abort(); /* the list no longer ends in the resumer's: corrupted */
    c->tl_head = head;
    c->tl_bottom = item;
    void **storage = (void **)*slot;
    if (resumer_head) {
        *storage = resumer_head;
    } else {
        free(storage);
        *slot = NULL;
    }
}

/* ---- Finding the two words ---------------------------------------------- */

#if defined(__linux__)
typedef struct {
    const void *symbol;
    char *tls_data;
    size_t tls_size;
} rj_tls_search;

static int rj_find_tls_block(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    rj_tls_search *search = data;
    int contains = 0;
    const ElfW(Phdr) *tls = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (uintptr_t)search->symbol >= start &&
            (uintptr_t)search->symbol < start + ph->p_memsz)
            contains = 1;
        if (ph->p_type == PT_TLS) tls = ph;
    }
    if (!contains) return 0;
    if (tls && info->dlpi_tls_data) {
        search->tls_data = info->dlpi_tls_data;
        search->tls_size = tls->p_memsz;
    }
    return 1;
}

/* This thread's instance of the thread-local block of the library holding
 * `symbol`, or 0 if it has none (yet). */
static int rj_tls_block_of(const void *symbol, char **data, size_t *size) {
    rj_tls_search search = {symbol, NULL, 0};
    dl_iterate_phdr(rj_find_tls_block, &search);
    if (!search.tls_data || search.tls_size < sizeof(void *)) return 0;
    *data = search.tls_data;
    *size = search.tls_size;
    return 1;
}

static size_t rj_excl_offset = (size_t)-1;

static int rj_excl_disabled;
static pthread_once_t rj_excl_env_once = PTHREAD_ONCE_INIT;
static void rj_read_excl_env(void) {
    const char *env = getenv("RJ_EXCLUSIVITY_SLOW_PATH");
    rj_excl_disabled = env && *env && *env != '0';
}

static void rj_find_exclusivity_head(void) {
    if (pthread_once(&rj_excl_env_once, rj_read_excl_env) != 0) return; /* calls the runtime instead */
    if (rj_excl_disabled || !swift_beginAccess || !swift_endAccess || !swift_task_enterThreadLocalContext) return;
    char *data;
    size_t size;
    if (!rj_tls_block_of((const void *)swift_beginAccess, &data, &size)) return;
    size_t offset = __atomic_load_n(&rj_excl_offset, __ATOMIC_RELAXED);
    if (offset == (size_t)-1) {
        static int target;
        uintptr_t buffer[3] = {0, 0, 0}; /* the runtime's Access record */
        swift_beginAccess(&target, buffer, 0x21 /* Modify | Tracking */, NULL);
        for (size_t at = 0; at + sizeof(void *) <= size; at += sizeof(void *)) {
            if (*(void **)(data + at) == (void *)buffer) {
                offset = at;
                break;
            }
        }
        swift_endAccess(buffer);
        if (offset == (size_t)-1 || *(void **)(data + offset) == (void *)buffer) return;
        __atomic_store_n(&rj_excl_offset, offset, __ATOMIC_RELAXED);
    }
    rj_excl_head = (void **)(data + offset);
}

#if RJ_HAVE_TASK_LOCAL_PROBE
static size_t rj_tl_offset = (size_t)-1;
static pthread_once_t rj_tl_probe_once = PTHREAD_ONCE_INIT;

/* Whether `len` bytes at p can be read, without faulting: write(2) answers
 * EFAULT for an address that is not mapped readable. */
static int rj_readable(const void *p, size_t len) {
    static int fds[2] = {-1, -1};
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    int ok = 0;
    if (pthread_mutex_lock(&lock) != 0) return 0; /* cannot tell: treat as unreadable */
    if (fds[0] >= 0 || pipe(fds) == 0) {
        ssize_t w = write(fds[1], p, len);
        if (w == (ssize_t)len) {
            char sink[64];
            ssize_t r = read(fds[0], sink, len < sizeof sink ? len : sizeof sink);
            ok = r == (ssize_t)len;
        }
    }
    pthread_mutex_unlock(&lock);
    return ok;
}

/* On a fresh thread (no task, no fallback storage yet): bind one value, and
 * find the word of libswift_Concurrency's thread-local block that went from
 * NULL to a Storage whose head is an item with our key. */
static void *rj_task_local_probe_thread(void *arg) {
    (void)arg;
    char *data;
    size_t size;
    if (!rj_tls_block_of((const void *)swift_task_localValuePush, &data, &size)) return NULL;
    void **before = malloc(size);
    if (!before) return NULL;
    memcpy(before, data, size);
    static long key_object[4]; /* only its address matters: keys are compared by identity */
    long value = 42;
    swift_task_localValuePush(key_object, &value, rj_int_metadata);
    size_t found = (size_t)-1;
    for (size_t at = 0; at + sizeof(void *) <= size; at += sizeof(void *)) {
        void *now = *(void **)(data + at);
        if (before[at / sizeof(void *)] != NULL || now == NULL) continue;
        if (!rj_readable(now, sizeof(void *))) continue;
        void *head = *(void **)now;
        if (!head || !rj_readable(head, 3 * sizeof(void *))) continue;
        if (((void **)head)[1] == (void *)key_object && ((const void **)head)[2] == (const void *)rj_int_metadata) {
            found = at;
            break;
        }
    }
    swift_task_localValuePop();
    /* After the pop the runtime frees the storage and clears the word. */
    if (found != (size_t)-1 && *(void **)(data + found) == NULL)
        __atomic_store_n(&rj_tl_offset, found, __ATOMIC_RELAXED);
    free(before);
    return NULL;
}

static void rj_probe_task_locals(void) {
    if (!swift_task_localValuePush || !swift_task_localValuePop || !rj_int_metadata) return;
    pthread_t thread;
    if (pthread_create(&thread, NULL, rj_task_local_probe_thread, NULL) == 0) pthread_join(thread, NULL);
}
#endif

static void rj_find_task_local_slot(void) {
#if RJ_HAVE_TASK_LOCAL_PROBE
    if (pthread_once(&rj_tl_probe_once, rj_probe_task_locals) != 0) return; /* not tracked */
    size_t offset = __atomic_load_n(&rj_tl_offset, __ATOMIC_RELAXED);
    char *data;
    size_t size;
    if (offset == (size_t)-1 || !rj_tls_block_of((const void *)swift_task_localValuePush, &data, &size)) return;
    rj_tl_slot = (void **)(data + offset);
#endif
}
#endif /* __linux__ */

void rj_swift_state_prepare_thread(void) {
#if defined(__linux__)
    rj_find_exclusivity_head();
    rj_find_task_local_slot();
#endif
}
