/* Indexed 4-ary min-heap on (key, id): each id is in the heap at most once,
 * its position is kept so it can be rekeyed or removed in O(log n). Ties on
 * the key go to the lower id, so the order is total and runs are repeatable.
 * Used by the fluid engine (completion times) and the max-min solver (water
 * levels, as heap_key_of). Inline: both call it once or more per event. */
#ifndef CKPT_FLUID_HEAP_H
#define CKPT_FLUID_HEAP_H

#include <stdint.h>
#include <string.h>

#include "../core/arena.h"

#define HEAP_OUT UINT32_MAX /* pos[id] of an id not in the heap */
/* Entries allocated past the last id's: heap_pop prefetches a node's 16
 * grandchildren without checking each against the end. */
#define HEAP_SLACK_ 16

/* 12 bytes, not 16: packed on 4-byte alignment (x86 and ARM64 load the
 * key unaligned at no cost; the compiler does what the target needs). */
struct __attribute__((packed, aligned(4))) heap_entry {
    uint64_t key; /* kept in the entry itself: fewer cache misses */
    uint32_t id;
};

struct heap {
    struct heap_entry *e;
    uint32_t *pos;  /* per id: its index in e, or HEAP_OUT */
    uint32_t n;
    uint32_t max_n; /* most entries ever held at once */
};

/* The bytes heap_init takes for n_ids (for sizing an arena_reserve); 0
 * when too many. */
static inline size_t heap_bytes(size_t n_ids)
{
    size_t n = n_ids ? n_ids : 1;
    if (n > (SIZE_MAX / 2 - HEAP_SLACK_) / sizeof(struct heap_entry))
        return 0;
    return ((n * sizeof(uint32_t) + 15) & ~(size_t)15) + (n + HEAP_SLACK_) * sizeof(struct heap_entry);
}

/* Room for ids 0 .. n_ids - 1, all out. Returns -1 when memory runs out. */
static inline int heap_init(struct heap *h, struct arena *a, size_t n_ids)
{
    memset(h, 0, sizeof *h);
    size_t n = n_ids ? n_ids : 1;
    /* pos, then e, in one allocation: at 318,688 links pos alone (1.3 MB)
     * would be a block under 2 MB, on 4 KB pages; e last, as the part of
     * it the heap never grows into stays untouched */
    size_t bytes = heap_bytes(n);
    if (!bytes)
        return -1;
    size_t pos_bytes = (n * sizeof *h->pos + 15) & ~(size_t)15;
    unsigned char *p = arena_calloc(a, bytes, 1);
    if (!p)
        return -1;
    h->pos = (uint32_t *)(void *)p;
    h->e = (struct heap_entry *)(void *)(p + pos_bytes);
    for (size_t i = 0; i < n; i++)
        h->pos[i] = HEAP_OUT;
    return 0;
}

/* An order-preserving image of a double that is not NaN: a < b exactly when
 * heap_key_of(a) < heap_key_of(b), and -0 and +0 are one key. */
static inline uint64_t heap_key_of(double d)
{
    uint64_t u;
    if (d == 0)
        d = 0; /* -0 == +0 as doubles: one key, so ties go by id */
    memcpy(&u, &d, sizeof u);
    return u >> 63 ? ~u : u | UINT64_C(1) << 63;
}

/* The double of a key made by heap_key_of (+0 for -0). */
static inline double heap_double_of(uint64_t key)
{
    uint64_t u = key >> 63 ? key & ~(UINT64_C(1) << 63) : ~key;
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static inline int heap_less_(const struct heap_entry *a, const struct heap_entry *b)
{
    return a->key < b->key || (a->key == b->key && a->id < b->id);
}

static inline void heap_set_(struct heap *h, uint32_t i, struct heap_entry c)
{
    h->e[i] = c;
    h->pos[c.id] = i;
}

/* Four children a node, at 4i + 1 .. 4i + 4 (48 bytes, side by side):
 * half the levels of a binary heap, so half the misses and position writes
 * a pop in a large heap, for three comparisons a level instead of one. */
#define HEAP_PARENT_(i) (((i) - 1) / 4)
#define HEAP_CHILD_(i) (4 * (i) + 1)

static inline void heap_up_(struct heap *h, uint32_t i)
{
    struct heap_entry c = h->e[i];
    while (i > 0 && heap_less_(&c, &h->e[HEAP_PARENT_(i)])) {
        heap_set_(h, i, h->e[HEAP_PARENT_(i)]);
        i = HEAP_PARENT_(i);
    }
    heap_set_(h, i, c);
}

/* The least of the children k .. k + 3 that exist (k < n). */
static inline uint32_t heap_least_child_(const struct heap *h, uint32_t k, uint32_t n)
{
    uint32_t m = k;
    if (k + 3 < n) { /* the common case: all four */
        uint32_t a = heap_less_(&h->e[k + 1], &h->e[k]) ? k + 1 : k;
        uint32_t b = heap_less_(&h->e[k + 3], &h->e[k + 2]) ? k + 3 : k + 2;
        return heap_less_(&h->e[b], &h->e[a]) ? b : a;
    }
    for (uint32_t j = k + 1; j < n; j++)
        if (heap_less_(&h->e[j], &h->e[m]))
            m = j;
    return m;
}

static inline void heap_down_(struct heap *h, uint32_t i)
{
    struct heap_entry c = h->e[i];
    for (;;) {
        uint32_t k = HEAP_CHILD_(i);
        if (k >= h->n)
            break;
        k = heap_least_child_(h, k, h->n);
        if (!heap_less_(&h->e[k], &c))
            break;
        heap_set_(h, i, h->e[k]);
        i = k;
    }
    heap_set_(h, i, c);
}

/* The least entry; the heap must not be empty. */
static inline const struct heap_entry *heap_top(const struct heap *h)
{
    return &h->e[0];
}

static inline int heap_has(const struct heap *h, uint32_t id)
{
    return h->pos[id] != HEAP_OUT;
}

/* Insert id with key, or move it to key if it is in. */
static inline void heap_put(struct heap *h, uint32_t id, uint64_t key)
{
    uint32_t i = h->pos[id];
    struct heap_entry c = {key, id};
    if (i == HEAP_OUT) {
        heap_set_(h, h->n++, c);
        if (h->n > h->max_n)
            h->max_n = h->n;
        heap_up_(h, h->n - 1);
    } else {
        h->e[i] = c;
        heap_up_(h, i);
        heap_down_(h, h->pos[id]);
    }
}

/* Take the least entry out; the heap must not be empty. Its hole goes down
 * the least children to a leaf and the last entry rises from there (it
 * belongs near the bottom): fewer comparisons than sifting it down. The
 * order being total, the entries come out as with heap_remove. */
static inline void heap_pop(struct heap *h)
{
    h->pos[h->e[0].id] = HEAP_OUT;
    uint32_t n = --h->n, i = 0;
    if (!n)
        return;
    struct heap_entry last = h->e[n];
    for (uint32_t k = 1; k < n; k = HEAP_CHILD_(i)) {
        /* the hole goes to one of k .. k + 3, whose children (16 entries,
         * 192 bytes from 4k + 1) are read next: a miss a level in a large
         * heap, fetched while these four are compared */
        uint32_t g = HEAP_CHILD_(k);
        if (g < n) { /* e has HEAP_SLACK_ entries past the ids' room */
            const char *p = (const char *)&h->e[g];
            __builtin_prefetch(p);
            __builtin_prefetch(p + 64);
            __builtin_prefetch(p + 128);
            __builtin_prefetch(p + 16 * sizeof *h->e - 1);
        }
        k = heap_least_child_(h, k, n);
        heap_set_(h, i, h->e[k]);
        i = k;
    }
    while (i > 0 && heap_less_(&last, &h->e[HEAP_PARENT_(i)])) {
        heap_set_(h, i, h->e[HEAP_PARENT_(i)]);
        i = HEAP_PARENT_(i);
    }
    heap_set_(h, i, last);
}

/* Take id out (nothing if it is not in). */
static inline void heap_remove(struct heap *h, uint32_t id)
{
    uint32_t i = h->pos[id];
    if (i == HEAP_OUT)
        return;
    h->pos[id] = HEAP_OUT;
    struct heap_entry last = h->e[--h->n];
    if (i == h->n)
        return;
    heap_set_(h, i, last);
    heap_up_(h, i);
    heap_down_(h, h->pos[last.id]);
}

#endif
