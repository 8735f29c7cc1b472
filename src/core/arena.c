/* MAP_ANONYMOUS and MADV_HUGEPAGE are not POSIX */
#define _DEFAULT_SOURCE
#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ARENA_BLOCK (1u << 20)
/* Blocks this large are mapped on their own, 2 MB aligned and advised for
 * transparent huge pages: a 100k-node run touches ~600 MB, and 4 KB page
 * faults cost it more than a second of system time. */
#define ARENA_HUGE ((size_t)2 << 20)

struct arena_block {
    struct arena_block *next;
    size_t mapped; /* bytes mapped with mmap, 0 when from calloc */
    size_t cap;    /* bytes of data */
    /* used: handed out (while not the head); dirty: the most ever handed
     * out, which a reused block zeroes before handing out again */
    size_t used, dirty;
    size_t pad_;   /* data stays 16-byte aligned */
    unsigned char data[];
};

/* arena_huge_map advising huge pages over only the 2 MB pages wholly
 * inside the first `advise` bytes (all of them when advise covers the
 * mapping) */
static void *huge_map(size_t bytes, size_t advise)
{
    size_t len = (bytes + ARENA_HUGE - 1) & ~(ARENA_HUGE - 1);
    unsigned char *p = mmap(NULL, len + ARENA_HUGE, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    size_t lead = (ARENA_HUGE - ((uintptr_t)p & (ARENA_HUGE - 1))) & (ARENA_HUGE - 1);
    if (lead)
        munmap(p, lead);
    if (ARENA_HUGE - lead)
        munmap(p + lead + len, ARENA_HUGE - lead);
    (void)advise;
#ifdef MADV_HUGEPAGE
    size_t adv = advise >= len ? len : advise & ~(ARENA_HUGE - 1);
    if (adv)
        madvise(p + lead, adv, MADV_HUGEPAGE); /* advice only: failure is harmless */
#endif
    return p + lead;
}

void *arena_huge_map(size_t bytes)
{
    return huge_map(bytes, SIZE_MAX);
}

void arena_huge_unmap(void *p, size_t bytes)
{
    if (p)
        munmap(p, (bytes + ARENA_HUGE - 1) & ~(ARENA_HUGE - 1));
}

static struct arena_block *block_map(size_t bytes)
{
    /* a large block's last 2 MB less than half filled on 4 KB pages: a
     * huge page there would be resident whole, however little of it the
     * block's arrays write (over 1 MB untouched); fuller, or a small block
     * (2 MB of small arrays), one huge page: 4 KB faults, ~10 us each on a
     * VM, would cost more than the memory is worth */
    size_t tail = bytes & (ARENA_HUGE - 1);
    int thin = bytes >= ARENA_HUGE && tail && tail < ARENA_HUGE / 2;
    struct arena_block *b = huge_map(bytes, thin ? bytes : SIZE_MAX);
    if (!b)
        return NULL;
    b->mapped = (bytes + ARENA_HUGE - 1) & ~(ARENA_HUGE - 1);
    b->cap = b->mapped - sizeof *b;
    return b;
}

void arena_init(struct arena *a)
{
    memset(a, 0, sizeof *a);
}

static void free_chain(struct arena_block *b)
{
    while (b) {
        struct arena_block *n = b->next;
        if (b->mapped)
            munmap(b, b->mapped);
        else
            free(b);
        b = n;
    }
}

void arena_release(struct arena *a)
{
    int huge = a->huge;
    free_chain(a->head);
    free_chain(a->spare);
    arena_init(a);
    a->huge = huge;
}

void arena_reset(struct arena *a)
{
    free_chain(a->spare); /* unused since the last reset */
    if (a->head)
        a->head->used = a->used;
    struct arena_block *b = a->head, *spare = NULL;
    while (b) {
        struct arena_block *n = b->next;
        if (b->used > b->dirty)
            b->dirty = b->used;
        b->used = 0;
        b->next = spare;
        spare = b;
        b = n;
    }
    int huge = a->huge;
    arena_init(a);
    a->spare = spare;
    a->huge = huge;
}

size_t arena_kept(const struct arena *a)
{
    size_t n = 0;
    for (const struct arena_block *b = a->spare; b; b = b->next)
        n += b->cap;
    return n;
}

/* The smallest spare block that holds cap bytes, unlinked; NULL: none. */
static struct arena_block *spare_take(struct arena *a, size_t cap)
{
    struct arena_block **best = NULL;
    for (struct arena_block **p = &a->spare; *p; p = &(*p)->next)
        if ((*p)->cap >= cap && (!best || (*p)->cap < (*best)->cap))
            best = p;
    if (!best)
        return NULL;
    struct arena_block *b = *best;
    *best = b->next;
    b->next = NULL;
    return b;
}

/* size bytes at offset off of b, zeroed where an earlier run left data */
static void *hand_out(struct arena_block *b, size_t off, size_t size)
{
    void *p = b->data + off;
    if (b->dirty > off)
        memset(p, 0, b->dirty - off < size ? b->dirty - off : size);
    return p;
}

static struct arena_block *block_new(size_t cap, int huge)
{
    if (ARENA_MAP && (huge || sizeof(struct arena_block) + cap >= ARENA_HUGE))
        return block_map(sizeof(struct arena_block) + cap);
    /* calloc: the C library skips zeroing fresh pages from the OS, and
     * memory is never reused within a block, so no memset below */
    struct arena_block *b = calloc(1, sizeof *b + cap);
    if (b) {
        b->mapped = 0;
        b->cap = cap;
    }
    return b;
}

/* A block of at least cap bytes: a spare one, else a new one. */
static struct arena_block *block_get(struct arena *a, size_t cap)
{
    struct arena_block *b = a->spare ? spare_take(a, cap) : NULL;
    return b ? b : block_new(cap, a->huge);
}

int arena_reserve(struct arena *a, size_t size)
{
    size = arena_size(size);
    if (a->head && a->cap - a->used >= size)
        return 0;
    size_t cap = size > ARENA_BLOCK ? size : ARENA_BLOCK;
    struct arena_block *b = block_get(a, cap);
    if (!b)
        return -1;
    if (a->head)
        a->head->used = a->used;
    b->next = a->head;
    a->head = b;
    a->used = 0;
    a->cap = b->cap;
    a->total += sizeof *b + a->cap;
    return 0;
}

void *arena_alloc(struct arena *a, size_t size)
{
    size = arena_size(size);
    if (size >= ARENA_BLOCK && a->head && a->cap - a->used < size) {
        /* a large array gets a block of its own behind the head, so the
         * head's free room is not abandoned */
        struct arena_block *b = block_get(a, size);
        if (!b)
            return NULL;
        b->next = a->head->next;
        a->head->next = b;
        b->used = size;
        a->total += sizeof *b + size; /* the mapping's rounding stays untouched */
        return hand_out(b, 0, size);
    }
    if ((!a->head || a->cap - a->used < size) && arena_reserve(a, size) < 0)
        return NULL;
    void *p = hand_out(a->head, a->used, size);
    a->used += size;
    return p;
}

/* The mapped block holding [p, p + size), in the chain from b; NULL: none. */
static const struct arena_block *mapped_of(const struct arena_block *b, const void *p,
                                           size_t size)
{
    for (; b; b = b->next) {
        uintptr_t lo = (uintptr_t)b->data, at = (uintptr_t)p;
        if (b->mapped && at >= lo && at - lo <= b->cap && size <= b->cap - (at - lo))
            return b;
    }
    return NULL;
}

void arena_discard(struct arena *a, void *p, size_t size)
{
    if (!p || !size || !mapped_of(a->head, p, size))
        return;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1);
    uintptr_t hi = ((uintptr_t)p + size) & ~(page - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_DONTNEED); /* advice: failure leaves them resident */
}

void *arena_calloc(struct arena *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    return arena_alloc(a, n * size);
}
