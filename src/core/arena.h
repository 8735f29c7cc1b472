/* Arena: bump allocation for data that lives as long as the run (topology,
 * flows, packet slabs); everything is freed at once by arena_release, or
 * kept for the next run by arena_reset. */
#ifndef CKPT_ARENA_H
#define CKPT_ARENA_H

#include <stddef.h>

struct arena_block;

struct arena {
    struct arena_block *head;
    size_t used, cap;   /* in the head block */
    size_t total;       /* bytes obtained from malloc, for reports */
    struct arena_block *spare; /* kept by arena_reset for the next allocations */
    /* set after arena_init: every block mapped on 2 MB pages, the small
     * ones too (as 2 MB blocks): for short-lived scratch whose arrays are
     * under 2 MB each but several MB in all, read or written through (on
     * 4 KB pages a fault each 4 KB, ~10 us each on a VM) */
    int huge;
};

/* Under AddressSanitizer nothing is mapped (every block from calloc), so
 * the sanitizer still sees an overrun past a large array's own block. */
#if defined(__SANITIZE_ADDRESS__)
#define ARENA_MAP 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_MAP 0
#endif
#endif
#ifndef ARENA_MAP
#define ARENA_MAP 1
#endif

/* bytes rounded up to 2 MB on a 2 MB aligned mapping advised for huge
 * pages (zeroed); NULL when out of memory. Undone by arena_huge_unmap with
 * the same bytes. */
void *arena_huge_map(size_t bytes);
void arena_huge_unmap(void *p, size_t bytes);

void arena_init(struct arena *a);
void arena_release(struct arena *a);
/* Free everything allocated, but keep the blocks for the allocations that
 * follow (zeroed again as they are handed out): a loop of runs of similar
 * size maps its memory once. Blocks a whole run since the last reset did
 * not use are released, so what is kept stays near one run's worth. */
void arena_reset(struct arena *a);
/* Bytes of data in the blocks arena_reset kept and no allocation took yet. */
size_t arena_kept(const struct arena *a);
/* The bytes an allocation of n takes from a block (16-byte aligned): for
 * sizing an arena_reserve of several. */
static inline size_t arena_size(size_t n)
{
    return (n + 15) & ~(size_t)15;
}
/* Zeroed, 16-byte aligned memory; NULL when memory runs out. */
void *arena_alloc(struct arena *a, size_t size);
/* Make the head block hold size more bytes (a new head when it does not;
 * mapped on huge pages when large): the allocations that follow, each of
 * any size, come from it while they fit. Several arrays built together
 * then share one block rather than each taking 4 KB pages of its own. 0, or
 * -1 out of memory. */
int arena_reserve(struct arena *a, size_t size);
/* Give the system back the pages wholly inside allocation p of size bytes,
 * which nothing reads again (touched again, they read as zeros): a large
 * array dead before the run's peak stops counting in its resident memory.
 * The arena keeps the mapping (arena_reset hands it out again); memory not
 * mapped by the arena (from calloc) is left as it is. */
void arena_discard(struct arena *a, void *p, size_t size);
/* n elements of size each, with overflow check. */
void *arena_calloc(struct arena *a, size_t n, size_t size);

#endif
