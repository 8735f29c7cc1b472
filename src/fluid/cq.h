/* The fluid engine's completion queue: the indexed heap (heap.h) and beside
 * it a sorted run of ids. One update that keys many entries at once (a
 * checkpoint's first burst: every transfer) fills the run instead of the
 * heap: its keys are few (the transfers to one storage node end together),
 * so a counting sort by distinct key places them, and each pop reads the
 * next entry in order instead of sifting a heap of every transfer. An entry
 * keyed again goes to the heap and its run entry goes stale (pos[id] tells).
 * The least (key, id) of both comes out first, so the order is the heap's
 * alone to the entry (tests/test_fluid_scale.c `fluid_cq_pops_as_heap`).
 * The run is an array of its own, 4 bytes an id with its keys once a
 * bucket (at most CQ_KEYS), not 12-byte entries in the heap's array: the
 * heap's array is written only as far as the heap grows (at 800,000
 * transfers the run is every transfer, the heap 12,547 entries at most).
 *
 * A collection (cq_collect_begin .. cq_collect_end) takes ids in ascending
 * order, each at most once and not queued; cq_settle is then called for
 * each of them again, in the same order (a bucket fills in call order). If the keys are too many or the ids
 * not ascending, the collected ids go to the heap instead. */
#ifndef CKPT_FLUID_CQ_H
#define CKPT_FLUID_CQ_H

#include <stdlib.h>

#include "../core/rng.h"
#include "heap.h"

#define CQ_RUN (HEAP_OUT - 1)  /* pos[id]: its entry is live in the run */
#define CQ_PEND (HEAP_OUT - 2) /* pos[id] = CQ_PEND - b: collected, key bkey[b] */
#define CQ_KEYS 4096u          /* distinct keys a run may hold */
#define CQ_SLOTS (2 * CQ_KEYS) /* the hash of distinct keys: half full at most */
#define CQ_RUN_MIN 4096u       /* collections smaller than this go to the heap */

struct cq_key {
    uint64_t key;
    uint32_t b;
};

struct cq {
    struct heap h;          /* its entries h.e[0 .. h.n) */
    /* the run: ids rid[ri .. rn), by (key, id); those from rend[b - 1] to
     * rend[b] have key rkey[b]. NULL with fewer ids than a collection needs */
    uint32_t *rid, *rend;
    uint64_t *rkey;
    uint32_t ri, rn, rb, live; /* rb: the bucket of rid[ri]; live where pos[id] == CQ_RUN */
    uint32_t rmax;          /* the longest run made (rid written this far) */
    struct heap_entry head; /* cq_top's entry when it is the run's */
    uint32_t n_ids, max_n;  /* most entries held at once, run and heap */
    uint32_t run_min;       /* collections smaller than this go to the heap */
    int top_run;            /* cq_top's entry is the run's */
    uint32_t runs;          /* collections placed in a run (for tests) */
    /* one collection (its scratch, 144 KB, malloc'd for it: a few a run) */
    int coll;               /* 1 collecting, -1 abandoned (the heap takes them), 0 none */
    uint32_t nb, n_coll, last_id;
    uint32_t *slot;         /* per hash slot: bucket + 1, or 0 */
    uint64_t *bkey;         /* per bucket: its key */
    uint32_t *bnext;        /* per bucket: its count, then its next place in run */
    struct cq_key *sorted;
};

/* Whether a queue of n_ids can make a run (markers below CQ_PEND must not
 * reach heap positions; a collection has CQ_RUN_MIN ids or more). */
static inline int cq_runs_(size_t n_ids)
{
    return n_ids >= CQ_RUN_MIN && n_ids < CQ_PEND - CQ_KEYS;
}

/* The run's bytes: keys and ends a bucket, then an id each. */
static inline size_t cq_run_bytes_(size_t n_ids)
{
    return cq_runs_(n_ids) ? CQ_KEYS * (sizeof(uint64_t) + sizeof(uint32_t)) + n_ids * sizeof(uint32_t)
                           : 0;
}

/* The arena bytes cq_init takes for n_ids (for sizing an arena_reserve); 0
 * when too many. */
static inline size_t cq_bytes(size_t n_ids)
{
    size_t hb = heap_bytes(n_ids), rb = cq_run_bytes_(n_ids);
    return hb ? arena_size(hb) + (rb ? arena_size(rb) : 0) : 0;
}

static inline int cq_init(struct cq *q, struct arena *a, size_t n_ids)
{
    memset(q, 0, sizeof *q);
    q->n_ids = (uint32_t)n_ids;
    q->run_min = cq_runs_(n_ids) ? CQ_RUN_MIN : UINT32_MAX;
    if (heap_init(&q->h, a, n_ids) < 0)
        return -1;
    if (!cq_runs_(n_ids))
        return 0;
    /* the heap's first: the part of the run never reached stays untouched */
    unsigned char *p = arena_calloc(a, cq_run_bytes_(n_ids), 1);
    if (!p)
        return -1;
    q->rkey = (uint64_t *)(void *)p;
    q->rend = (uint32_t *)(void *)(p + CQ_KEYS * sizeof(uint64_t));
    q->rid = q->rend + CQ_KEYS;
    return 0;
}

static inline int cq_has(const struct cq *q, uint32_t id)
{
    return q->h.pos[id] != HEAP_OUT;
}

static inline void cq_note_size_(struct cq *q, uint32_t n)
{
    if (n > q->max_n)
        q->max_n = n;
}

/* Queue id at key, or move it there. */
static inline void cq_put(struct cq *q, uint32_t id, uint64_t key)
{
    if (q->h.pos[id] == CQ_RUN) { /* its run entry goes stale */
        q->h.pos[id] = HEAP_OUT;
        q->live--;
    }
    heap_put(&q->h, id, key);
    cq_note_size_(q, q->h.n + q->live);
}

static inline void cq_remove(struct cq *q, uint32_t id)
{
    if (q->h.pos[id] == CQ_RUN) {
        q->h.pos[id] = HEAP_OUT;
        q->live--;
    } else {
        heap_remove(&q->h, id);
    }
}

/* The least entry, or NULL when empty (the run's until the next call). */
static inline const struct heap_entry *cq_top(struct cq *q)
{
    while (q->ri < q->rn && q->h.pos[q->rid[q->ri]] != CQ_RUN)
        q->ri++; /* stale: keyed again or removed */
    q->top_run = 0;
    if (q->ri < q->rn) {
        while (q->rend[q->rb] <= q->ri)
            q->rb++;
        q->head = (struct heap_entry){q->rkey[q->rb], q->rid[q->ri]};
        q->top_run = !q->h.n || heap_less_(&q->head, &q->h.e[0]);
    }
    return q->top_run ? &q->head : q->h.n ? &q->h.e[0] : NULL;
}

/* The id k entries past the run's head (live or stale), or HEAP_OUT past
 * its end: what is likely to come out next, for prefetching. */
static inline uint32_t cq_run_ahead(const struct cq *q, uint32_t k)
{
    return q->rn - q->ri > k ? q->rid[q->ri + k] : HEAP_OUT;
}

/* Take out the entry cq_top just gave. */
static inline void cq_pop(struct cq *q)
{
    if (q->top_run) {
        q->h.pos[q->rid[q->ri++]] = HEAP_OUT;
        q->live--;
        q->top_run = 0;
    } else {
        heap_pop(&q->h);
    }
}

static inline void cq_collect_end(struct cq *q);

/* Start collecting up to n ids when n is large and the run is spent.
 * Returns 1 when collecting (cq_collect, then cq_settle each, cq_collect_end). */
static inline int cq_collect_begin(struct cq *q, uint32_t n)
{
    q->coll = 0;
    if (n < q->run_min || q->live)
        return 0;
    q->slot = calloc(CQ_SLOTS, sizeof *q->slot);
    q->bkey = malloc(CQ_KEYS * sizeof *q->bkey);
    q->bnext = malloc(CQ_KEYS * sizeof *q->bnext);
    q->sorted = malloc(CQ_KEYS * sizeof *q->sorted);
    if (!q->slot || !q->bkey || !q->bnext || !q->sorted) {
        cq_collect_end(q); /* out of memory: the heap takes them */
        return 0;
    }
    q->ri = q->rn = q->rb = 0; /* every old entry is stale */
    q->nb = q->n_coll = 0;
    q->coll = 1;
    return 1;
}

/* A key's slot in the hash of distinct keys (the product wraps) */
CKPT_WRAPS static inline uint32_t cq_slot_(uint64_t key)
{
    return (uint32_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> 51) & (CQ_SLOTS - 1);
}

/* Collect id (not queued, above the last collected one) at key. */
static inline void cq_collect(struct cq *q, uint32_t id, uint64_t key)
{
    if (q->coll == 1 && (!q->n_coll || id > q->last_id)) {
        uint32_t s = cq_slot_(key);
        while (q->slot[s] && q->bkey[q->slot[s] - 1] != key)
            s = (s + 1) & (CQ_SLOTS - 1);
        if (!q->slot[s] && q->nb < CQ_KEYS) {
            q->bkey[q->nb] = key;
            q->bnext[q->nb] = 0;
            q->slot[s] = ++q->nb;
        }
        if (q->slot[s]) {
            uint32_t b = q->slot[s] - 1;
            q->bnext[b]++;
            q->h.pos[id] = CQ_PEND - b;
            q->n_coll++;
            q->last_id = id;
            cq_note_size_(q, q->h.n + q->n_coll);
            return;
        }
    }
    q->coll = -1; /* too many keys or out of order: the heap takes the rest */
    heap_put(&q->h, id, key);
    cq_note_size_(q, q->h.n + q->n_coll);
}

static int cq_key_cmp_(const void *a, const void *b)
{
    const struct cq_key *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* After the last cq_collect: each bucket's place in the run, by key. */
static inline void cq_collect_close(struct cq *q)
{
    if (q->coll != 1)
        return;
    for (uint32_t b = 0; b < q->nb; b++)
        q->sorted[b] = (struct cq_key){q->bkey[b], b};
    qsort(q->sorted, q->nb, sizeof *q->sorted, cq_key_cmp_);
    uint32_t at = 0;
    for (uint32_t k = 0; k < q->nb; k++) {
        uint32_t b = q->sorted[k].b, c = q->bnext[b];
        q->bnext[b] = at;
        at += c;
        q->rkey[k] = q->sorted[k].key;
        q->rend[k] = at;
    }
    q->ri = q->rb = 0;
    q->rn = q->live = q->n_coll;
    if (q->rn > q->rmax)
        q->rmax = q->rn;
    q->runs++;
}

/* Place a collected id (any other id: nothing). Called in the order of
 * collection, ascending: each bucket fills in (key, id) order. */
static inline void cq_settle(struct cq *q, uint32_t id)
{
    uint32_t p = q->h.pos[id];
    if (p > CQ_PEND || p <= CQ_PEND - CQ_KEYS)
        return;
    uint32_t b = CQ_PEND - p;
    if (q->coll == 1) {
        q->rid[q->bnext[b]++] = id;
        q->h.pos[id] = CQ_RUN;
    } else {
        q->h.pos[id] = HEAP_OUT;
        heap_put(&q->h, id, q->bkey[b]);
    }
}

static inline void cq_collect_end(struct cq *q)
{
    q->coll = 0;
    free(q->slot);
    free(q->bkey);
    free(q->bnext);
    free(q->sorted);
    q->slot = NULL;
    q->bkey = NULL;
    q->bnext = NULL;
    q->sorted = NULL;
}

#endif
