/* Scratch cut from dead arrays: after the fluid loop the queues' arrays
 * (the events', each solver's water levels) and the solver's link lists
 * are memory the run has already touched and no longer reads; collect's
 * scratch is cut from them rather than from new pages (at 800k transfers
 * 2,300 page faults fewer, a 4 KB fault ~10 us on a VM, and 9 MB less at
 * the run's peak), else calloc'd. Of a queue with a run only what the
 * heap and the run wrote (cq.h: the heap's array past the most it held
 * is untouched). */
#ifndef CKPT_FLUID_SCRAP_H
#define CKPT_FLUID_SCRAP_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cq.h"

#define SCRAP_PIECES 10

struct scrap {
    unsigned char *p[SCRAP_PIECES];
    size_t left[SCRAP_PIECES];
    int n;
};

/* bytes at p to s (dead from now on). */
static inline void scrap_add_mem(struct scrap *s, void *p, size_t bytes)
{
    if (!p || !bytes || s->n >= SCRAP_PIECES)
        return;
    s->p[s->n] = p;
    s->left[s->n++] = bytes;
}

/* q's arrays to s (q is not to be used again: its arrays become NULL). */
static inline void scrap_add(struct scrap *s, struct cq *q)
{
    size_t n = q->n_ids ? q->n_ids : 1;
    if (!q->h.e || !q->h.pos || s->n + 2 + !!q->rid > SCRAP_PIECES)
        return;
    s->p[s->n] = (unsigned char *)q->h.e;
    s->left[s->n++] = ((q->rid ? q->h.max_n : n) + HEAP_SLACK_) * sizeof *q->h.e;
    s->p[s->n] = (unsigned char *)q->h.pos;
    s->left[s->n++] = n * sizeof *q->h.pos;
    scrap_add_mem(s, q->rid, q->rmax * sizeof *q->rid);
    q->h.e = NULL;
    q->h.pos = NULL;
    q->rid = NULL;
}

/* bytes of zeroes, 16-byte aligned, from the smallest piece of s that
 * holds them (the larger pieces stay for larger asks), else calloc'd:
 * *heap 1, scrap_put frees it. */
static inline void *scrap_get(struct scrap *s, size_t bytes, int *heap)
{
    size_t want = (bytes + 15) & ~(size_t)15;
    int best = -1;
    for (int i = 0; i < s->n; i++) {
        size_t skip = (16 - ((uintptr_t)s->p[i] & 15)) & 15;
        if (s->left[i] >= skip + want && (best < 0 || s->left[i] < s->left[best]))
            best = i;
    }
    *heap = best < 0;
    if (best < 0)
        return calloc(1, want ? want : 1);
    size_t skip = (16 - ((uintptr_t)s->p[best] & 15)) & 15;
    unsigned char *r = s->p[best] + skip;
    s->p[best] = r + want;
    s->left[best] -= skip + want;
    memset(r, 0, want);
    return r;
}

static inline void scrap_put(void *p, int heap)
{
    if (heap)
        free(p);
}

#endif
