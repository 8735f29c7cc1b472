#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK (1u << 20)

struct arena_block {
    struct arena_block *next;
    size_t pad; /* keeps data 16-byte aligned */
    unsigned char data[];
};

void arena_init(struct arena *a)
{
    memset(a, 0, sizeof *a);
}

void arena_release(struct arena *a)
{
    struct arena_block *b = a->head;
    while (b) {
        struct arena_block *n = b->next;
        free(b);
        b = n;
    }
    arena_init(a);
}

void *arena_alloc(struct arena *a, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    if (!a->head || a->cap - a->used < size) {
        size_t cap = size > ARENA_BLOCK ? size : ARENA_BLOCK;
        /* calloc: the C library skips zeroing fresh pages from the OS, and
         * memory is never reused within a block, so no memset below */
        struct arena_block *b = calloc(1, sizeof *b + cap);
        if (!b)
            return NULL;
        b->next = a->head;
        a->head = b;
        a->used = 0;
        a->cap = cap;
        a->total += sizeof *b + cap;
    }
    void *p = a->head->data + a->used;
    a->used += size;
    return p;
}

void *arena_calloc(struct arena *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    return arena_alloc(a, n * size);
}
