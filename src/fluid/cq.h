/* The fluid engine's completion queue: the indexed heap (heap.h) and beside
 * it a sorted run of (key, id). One update that keys many entries at once
 * (a checkpoint's first burst: every transfer) fills the run instead of the
 * heap: its keys are few (the transfers to one storage node end together),
 * so a counting sort by distinct key places them, and each pop reads the
 * next entry in order instead of sifting a heap of every transfer. An entry
 * keyed again goes to the heap and its run entry goes stale (pos[id] tells).
 * The least (key, id) of both comes out first, so the order is the heap's
 * alone to the entry (tests/test_fluid_scale.c `fluid_cq_pops_as_heap`).
 * The run lives at the back of the heap's own array (no memory of its own:
 * ids in the heap and live in the run are distinct, so both fit); when the
 * heap reaches the run, the run's stale entries are squeezed out, or with
 * little gained, its live ones go to the heap.
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

struct cq_key {
    uint64_t key;
    uint32_t b;
};

struct cq {
    struct heap h;          /* its entries h.e[0 .. h.n) */
    uint32_t ri, rn, live;  /* the run: h.e[ri .. rn), sorted; live where pos[id] == CQ_RUN */
    uint32_t n_ids, max_n;  /* most entries held at once, run and heap */
    uint32_t run_min;       /* collections smaller than this go to the heap */
    int top_run;            /* cq_top's entry is the run's */
    uint32_t squeezed, dissolved; /* times cq_room_ did each (for tests) */
    uint32_t runs;          /* collections placed in a run (for tests) */
    /* one collection (its scratch, 144 KB, malloc'd for it: a few a run) */
    int coll;               /* 1 collecting, -1 abandoned (the heap takes them), 0 none */
    uint32_t nb, n_coll, last_id;
    uint32_t *slot;         /* per hash slot: bucket + 1, or 0 */
    uint64_t *bkey;         /* per bucket: its key */
    uint32_t *bnext;        /* per bucket: its count, then its next place in run */
    struct cq_key *sorted;
};

static inline int cq_init(struct cq *q, struct arena *a, size_t n_ids)
{
    memset(q, 0, sizeof *q);
    q->n_ids = (uint32_t)n_ids;
    q->run_min = 4096;
    if (n_ids >= CQ_PEND - CQ_KEYS)
        q->run_min = UINT32_MAX; /* the markers would overlap heap positions */
    q->ri = q->rn = q->n_ids;
    return heap_init(&q->h, a, n_ids);
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

/* The heap is to grow into h.e[ri]: squeeze the run's stale entries out
 * towards its end; with less than an eighth of it gained, move its live
 * entries to the heap (read from the front, so the heap, one entry a read
 * at most, never overtakes the reading). */
static inline void cq_room_(struct cq *q)
{
    struct heap_entry *e = q->h.e;
    uint32_t j = q->rn;
    for (uint32_t k = q->rn; k > q->ri;) {
        k--;
        if (q->h.pos[e[k].id] == CQ_RUN)
            e[--j] = e[k];
    }
    q->ri = j;
    q->squeezed++;
    if (q->ri - q->h.n > q->live / 8)
        return;
    q->dissolved++;
    for (uint32_t k = q->ri; k < q->rn; k++) {
        struct heap_entry c = e[k];
        q->h.pos[c.id] = HEAP_OUT;
        heap_put(&q->h, c.id, c.key);
    }
    q->ri = q->rn;
    q->live = 0;
}

/* Queue id at key, or move it there. */
static inline void cq_put(struct cq *q, uint32_t id, uint64_t key)
{
    if (q->h.pos[id] == CQ_RUN) { /* its run entry goes stale */
        q->h.pos[id] = HEAP_OUT;
        q->live--;
    }
    if (q->h.pos[id] == HEAP_OUT && q->h.n >= q->ri)
        cq_room_(q);
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

/* The least entry, or NULL when empty. */
static inline const struct heap_entry *cq_top(struct cq *q)
{
    const struct heap_entry *e = q->h.e;
    while (q->ri < q->rn && q->h.pos[e[q->ri].id] != CQ_RUN)
        q->ri++; /* stale: keyed again or removed */
    q->top_run = q->ri < q->rn && (!q->h.n || heap_less_(&e[q->ri], &e[0]));
    return q->top_run ? &e[q->ri] : q->h.n ? &e[0] : NULL;
}

/* The id k entries past the run's head (live or stale), or HEAP_OUT past
 * its end: what is likely to come out next, for prefetching. */
static inline uint32_t cq_run_ahead(const struct cq *q, uint32_t k)
{
    return q->rn - q->ri > k ? q->h.e[q->ri + k].id : HEAP_OUT;
}

/* Take out the entry cq_top just gave. */
static inline void cq_pop(struct cq *q)
{
    if (q->top_run) {
        q->h.pos[q->h.e[q->ri++].id] = HEAP_OUT;
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
    q->ri = q->rn = q->n_ids; /* every old entry is stale */
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
    /* the heap and the collected are distinct ids: h.n <= ri */
    uint32_t at = q->ri = q->n_ids - q->n_coll;
    for (uint32_t k = 0; k < q->nb; k++) {
        uint32_t b = q->sorted[k].b, c = q->bnext[b];
        q->bnext[b] = at;
        at += c;
    }
    q->live = q->n_coll;
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
        q->h.e[q->bnext[b]++] = (struct heap_entry){q->bkey[b], id};
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
