/* Arena: bump allocation for data that lives as long as the run (topology,
 * flows, packet slabs); everything is freed at once by arena_release. */
#ifndef CKPT_ARENA_H
#define CKPT_ARENA_H

#include <stddef.h>

struct arena_block;

struct arena {
    struct arena_block *head;
    size_t used, cap;   /* in the head block */
    size_t total;       /* bytes obtained from malloc, for reports */
};

void arena_init(struct arena *a);
void arena_release(struct arena *a);
/* Zeroed, 16-byte aligned memory; NULL when memory runs out. */
void *arena_alloc(struct arena *a, size_t size);
/* n elements of size each, with overflow check. */
void *arena_calloc(struct arena *a, size_t n, size_t size);

#endif
