/*
 * Reading a suspended coroutine for a dump: where it is suspended (its return
 * addresses, from the frame-pointer chain of its saved context), the names of
 * those addresses, and the dump signal's watcher thread.
 *
 * The walk starts from what the switch left on the suspended stack (rj_frame.h):
 * the inline switch keeps the resume address and the frame pointer at the saved
 * stack pointer; the out-of-line switch keeps the callee-saved registers there,
 * frame pointer and return address last; the ucontext backend keeps them in the
 * coroutine's ucontext. From there each frame record is [previous frame pointer,
 * return address] (x86_64 and arm64 alike; Swift and the C core keep frame
 * pointers), the return address signed where the code signs them (pac-ret), which
 * the walk strips. The walk stops at the end of the chain (the first frame has 0), at
 * a frame pointer outside the coroutine's stack, or one that does not go up.
 * A shared-stack coroutine's frames may be in its saved block: every word is
 * read through rj_coro_locate, with the run stack held so that no other thread
 * moves them meanwhile.
 *
 * The caller guarantees the coroutine stays suspended while it is read (the
 * Swift dump holds its generator's state word).
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#  define _GNU_SOURCE
#endif
#include "rj_internal.h"
#include "rj_frame.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#  include <elf.h>
#  include <link.h>
#endif

int rj_current_thread_id(void) {
    if (!rj_thread_prepared) rj_prepare_thread();
    return rj_thread_prepared;
}

int rj_coro_last_thread(const rj_coro *c) { return c->last_thread; }

uint64_t rj_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Frames hold AddressSanitizer's redzones and belong to another fiber for
 * ThreadSanitizer; the dump's hold on the generator orders these reads after
 * the body's writes. */
#if RJ_ASAN || RJ_TSAN
#  define RJ_RAW_READS __attribute__((no_sanitize("address", "thread")))
#else
#  define RJ_RAW_READS
#endif

RJ_RAW_READS static uintptr_t rj_word(const rj_coro *c, uintptr_t address) {
    return *(const volatile uintptr_t *)rj_coro_locate(c, (void *)address);
}

/* Copies n bytes of suspended c's frames at p (the address they have while c runs) into out:
 * 1, or 0 when they cannot be read now (a shared coroutine's run stack was not let go of
 * within a moment). For a dump, which reads what adopted bodies keep in the frames of the body
 * that adopted them (Swift's Adoption). */
RJ_RAW_READS int rj_coro_read_frames(rj_coro *c, const void *p, void *out, size_t n) {
    int held = 0;
    if (c->shared) {
        if (c->fresh || !rj_shared_hold_for_reading(c)) return 0;
        held = 1;
    }
    const volatile unsigned char *from = rj_coro_locate(c, (void *)p);
    unsigned char *to = out;
    for (size_t i = 0; i < n; i++) to[i] = from[i];
    if (held) rj_shared_let_go_reading(c);
    return 1;
}

/* A return address as code that signs them (arm64 pac-ret, Apple's arm64e) left it in its
 * frame record: with a pointer-authentication code in its upper bits, which no symbol
 * table knows. xpaclri (hint #7) strips the code from x30; it is a nop where the processor
 * has no pointer authentication, and an address that was never signed comes out as it
 * went in. Nothing is authenticated: the walk only reads. */
static uintptr_t rj_plain_address(uintptr_t address) {
#if defined(__aarch64__)
    register uintptr_t x30 __asm__("x30") = address;
    __asm__("hint #7" : "+r"(x30));
    return x30;
#else
    return address;
#endif
}

RJ_RAW_READS size_t rj_coro_backtrace(rj_coro *c, uintptr_t *pcs, size_t max) {
    if (!c || c->finished || max == 0 || c == rj_current) return 0;
    int held = 0;
    if (c->shared) {
        if (c->fresh || !rj_shared_hold_for_reading(c)) return 0;
        held = 1;
    }
    uintptr_t lo = (uintptr_t)c->stack_lo, hi = (uintptr_t)c->stack_hi;
    uintptr_t pc = 0, fp = 0;
    size_t n = 0;
#if RJ_HAVE_FAST
    if (c->backend == RJ_BACKEND_FAST) {
        uintptr_t sp = (uintptr_t)c->sp;
        if (sp < lo || sp + 16 > hi) goto done;
        if (c->switches_inline) {
            pc = rj_word(c, sp + RJ_INLINE_PC);
            fp = rj_word(c, sp + RJ_INLINE_FP);
        } else {
#  if defined(__x86_64__)
            pc = rj_word(c, sp + RJ_X86_RET);
            fp = rj_word(c, sp + RJ_X86_RBP);
#  else
            pc = rj_word(c, sp + RJ_A64_X30);
            fp = rj_word(c, sp + RJ_A64_X29);
#  endif
        }
    } else
#endif
    {
#if defined(__linux__) && defined(__x86_64__)
        const mcontext_t *m = &rj_uc(c)->uc.uc_mcontext;
        pc = (uintptr_t)m->gregs[REG_RIP];
        fp = (uintptr_t)m->gregs[REG_RBP];
#elif defined(__linux__) && defined(__aarch64__)
        const mcontext_t *m = &rj_uc(c)->uc.uc_mcontext;
        pc = (uintptr_t)m->pc;
        fp = (uintptr_t)m->regs[29];
#else
        goto done;
#endif
    }
    if (!pc) goto done;
    pcs[n++] = rj_plain_address(pc);
    while (n < max && fp >= lo && fp + 2 * sizeof(uintptr_t) <= hi && (fp & (sizeof(uintptr_t) - 1)) == 0) {
        uintptr_t next = rj_word(c, fp), ret = rj_word(c, fp + sizeof(uintptr_t));
        if (!ret) break;
        pcs[n++] = rj_plain_address(ret);
        if (next <= fp) break;
        fp = next;
    }
done:
    if (held) rj_shared_let_go_reading(c);
    return n;
}

/* ---- Names ---------------------------------------------------------------------
 * dladdr knows only the exported symbols; a program's own functions (and every
 * local one) are in the file's symbol table. Each image's table is read once
 * (mapped from its file) and kept; a name is the function whose range holds
 * the address. Not for a signal handler: the dump signal's handler only wakes
 * the watcher thread below. */

#if defined(__linux__) && defined(__LP64__)
typedef struct {
    char *path;
    uintptr_t base;           /* load bias */
    const ElfW(Sym) *syms;
    size_t count;
    const char *strings;
    size_t strings_size;
} rj_image;

static pthread_mutex_t rj_images_lock = PTHREAD_MUTEX_INITIALIZER;
static rj_image rj_images[32];
static size_t rj_image_count;

/* The symbol table of the file at path (.symtab, else .dynsym), or NULL. */
static const rj_image *rj_image_for(const char *path, uintptr_t base) {
    for (size_t i = 0; i < rj_image_count; i++)
        if (rj_images[i].base == base && strcmp(rj_images[i].path, path) == 0) return &rj_images[i];
    if (rj_image_count == sizeof rj_images / sizeof rj_images[0]) return NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(ElfW(Ehdr))) {
        close(fd);
        return NULL;
    }
    const char *file = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (file == MAP_FAILED) return NULL;
    size_t size = (size_t)st.st_size;
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)(const void *)file;
    rj_image image = {0};
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_shoff && eh->e_shoff + (size_t)eh->e_shnum * sizeof(ElfW(Shdr)) <= size) {
        const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(const void *)(file + eh->e_shoff);
        const ElfW(Shdr) *table = NULL;
        for (unsigned pass = 0; pass < 2 && !table; pass++)
            for (unsigned i = 0; i < eh->e_shnum; i++)
                if (sh[i].sh_type == (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM) && sh[i].sh_link < eh->e_shnum) {
                    table = &sh[i];
                    break;
                }
        if (table && table->sh_offset + table->sh_size <= size) {
            const ElfW(Shdr) *strings = &sh[table->sh_link];
            if (strings->sh_offset + strings->sh_size <= size) {
                image.syms = (const ElfW(Sym) *)(const void *)(file + table->sh_offset);
                image.count = table->sh_size / sizeof(ElfW(Sym));
                image.strings = file + strings->sh_offset;
                image.strings_size = strings->sh_size;
            }
        }
        image.base = eh->e_type == ET_DYN ? base : 0;
    }
    if (!image.syms) {
        munmap((void *)file, size);
        return NULL;
    }
    image.path = strdup(path);
    if (!image.path) return NULL;
    rj_images[rj_image_count] = image;
    return &rj_images[rj_image_count++];
}

static int rj_symbol_in_file(const char *path, uintptr_t base, uintptr_t pc, char *name, size_t len, uintptr_t *offset) {
    pthread_mutex_lock(&rj_images_lock);
    const rj_image *image = rj_image_for(path, base);
    int found = 0;
    if (image) {
        uintptr_t address = pc - image->base;
        for (size_t i = 0; i < image->count; i++) {
            const ElfW(Sym) *s = &image->syms[i];
            if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || !s->st_value) continue;
            if (address < s->st_value || address >= s->st_value + (s->st_size ? s->st_size : 1)) continue;
            if (s->st_name >= image->strings_size) continue;
            snprintf(name, len, "%s", image->strings + s->st_name);
            *offset = address - s->st_value;
            found = 1;
            break;
        }
    }
    pthread_mutex_unlock(&rj_images_lock);
    return found;
}
#endif

int rj_symbolize(uintptr_t pc, char *name, size_t len, uintptr_t *offset, char *image, size_t image_len) {
    name[0] = 0;
    image[0] = 0;
    *offset = 0;
    Dl_info info;
    memset(&info, 0, sizeof info);
    if (!dladdr((void *)pc, &info)) return 0;
    if (info.dli_fname) {
        const char *slash = strrchr(info.dli_fname, '/');
        snprintf(image, image_len, "%s", slash ? slash + 1 : info.dli_fname);
    }
#if defined(__linux__) && defined(__LP64__)
    if (info.dli_fname && rj_symbol_in_file(info.dli_fname, (uintptr_t)info.dli_fbase, pc, name, len, offset)) return 1;
#endif
    if (info.dli_sname && info.dli_saddr) {
        snprintf(name, len, "%s", info.dli_sname);
        *offset = pc - (uintptr_t)info.dli_saddr;
        return 1;
    }
    return 0;
}

/* ---- The dump signal --------------------------------------------------------------
 * The handler writes a byte to a pipe and returns (all it does is async-signal-safe);
 * a watcher thread reads the pipe and calls the dump, which writes to stderr. */

static int rj_signal_pipe[2] = {-1, -1};
static void (*rj_signal_callback)(void);
static pthread_mutex_t rj_signal_lock = PTHREAD_MUTEX_INITIALIZER;

static void rj_dump_signal_handler(int signo) {
    (void)signo;
    int saved = errno;
    char byte = 1;
    ssize_t ignored = write(rj_signal_pipe[1], &byte, 1);
    (void)ignored;
    errno = saved;
}

static void *rj_signal_watcher(void *arg) {
    (void)arg;
    for (;;) {
        char byte;
        ssize_t got = read(rj_signal_pipe[0], &byte, 1);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return NULL;
        void (*callback)(void) = __atomic_load_n(&rj_signal_callback, __ATOMIC_ACQUIRE);
        if (callback) callback();
    }
}

int rj_dump_signal_install(int signo, void (*callback)(void)) {
    pthread_mutex_lock(&rj_signal_lock);
    __atomic_store_n(&rj_signal_callback, callback, __ATOMIC_RELEASE);
    if (rj_signal_pipe[0] < 0) {
        if (pipe(rj_signal_pipe) != 0) {
            pthread_mutex_unlock(&rj_signal_lock);
            rj_set_error("RJIterator: cannot install the dump signal: pipe() failed");
            return -1;
        }
        fcntl(rj_signal_pipe[0], F_SETFD, FD_CLOEXEC);
        fcntl(rj_signal_pipe[1], F_SETFD, FD_CLOEXEC);
        fcntl(rj_signal_pipe[1], F_SETFL, O_NONBLOCK);
        pthread_t thread;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        sigset_t all, old;
        sigfillset(&all);
        /* The watcher takes no signals: the handler runs on the program's threads. */
        pthread_sigmask(SIG_SETMASK, &all, &old);
        int failed = pthread_create(&thread, &attr, rj_signal_watcher, NULL);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&attr);
        if (failed) {
            pthread_mutex_unlock(&rj_signal_lock);
            rj_set_error("RJIterator: cannot install the dump signal: no thread for the dump");
            return -1;
        }
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = rj_dump_signal_handler;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    int result = sigaction(signo, &action, NULL);
    pthread_mutex_unlock(&rj_signal_lock);
    if (result != 0) {
        rj_set_error("RJIterator: cannot install the dump signal: sigaction refused this signal number");
        return -1;
    }
    return 0;
}
