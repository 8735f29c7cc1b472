#include "evq.h"

#include "arena.h"

#include <stdlib.h>
#include <string.h>

/* 4-ary heap: shallower than binary, children share a cache line. */
#define ARITY 4
#define NIL EVQ_NIL
#define WORDS (q->nb / 64)
#define MASK (q->nb - 1)
#define before evq_before

void *evq_huge_alloc(size_t bytes)
{
    if (bytes < EVQ_HUGE_MIN)
        return aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    return arena_huge_map(bytes);
}

void evq_huge_free(void *p, size_t bytes)
{
    if (bytes < EVQ_HUGE_MIN)
        free(p);
    else
        arena_huge_unmap(p, bytes);
}

void evq_init(struct evq *q)
{
    memset(q, 0, sizeof *q);
    q->nb = EVQ_BUCKETS;
}

void evq_horizon(struct evq *q, uint64_t ps)
{
    if (q->slot)
        return; /* the wheel is in use */
    uint64_t want = ps >> EVQ_SHIFT;
    q->nb = EVQ_BUCKETS;
    while (q->nb < EVQ_BUCKETS_MAX && q->nb < want)
        q->nb *= 2;
}

void evq_release(struct evq *q)
{
    free(q->h);
    for (int k = 0; k < EVQ_RINGS; k++)
        free(q->ring[k].e);
    evq_huge_free(q->pool, q->pool_cap * sizeof *q->pool);
    free(q->free_stk);
    free(q->slot);
    free(q->bits);
    free(q->unsorted);
    evq_init(q);
}

size_t evq_mem(const struct evq *q)
{
    size_t m = q->cap * sizeof *q->h +
               (size_t)q->pool_cap * (sizeof *q->pool + sizeof *q->free_stk);
    for (int k = 0; k < EVQ_RINGS; k++)
        m += q->ring[k].cap * sizeof *q->ring[k].e;
    if (q->slot)
        m += q->nb * sizeof *q->slot + 2 * WORDS * sizeof *q->bits;
    return m;
}

static int heap_push(struct evq *q, const struct event *ev)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 256;
        struct event *h = realloc(q->h, cap * sizeof *h);
        if (!h)
            return -1;
        q->h = h;
        q->cap = cap;
    }
    size_t i = q->n++;
    while (i > 0) {
        size_t p = (i - 1) / ARITY;
        if (!before(ev, &q->h[p]))
            break;
        q->h[i] = q->h[p];
        i = p;
    }
    q->h[i] = *ev;
    return 0;
}

static void heap_pop(struct evq *q, struct event *ev)
{
    *ev = q->h[0];
    struct event last = q->h[--q->n];
    size_t n = q->n, i = 0;
    for (;;) {
        size_t c = i * ARITY + 1;
        if (c >= n)
            break;
        size_t best = c, end = c + ARITY < n ? c + ARITY : n;
        for (size_t k = c + 1; k < end; k++)
            if (before(&q->h[k], &q->h[best]))
                best = k;
        if (!before(&q->h[best], &last))
            break;
        q->h[i] = q->h[best];
        i = best;
    }
    if (n)
        q->h[i] = last;
}

/* Append to a ring (grows by doubling, kept in order). */
static int ring_push(struct evq_ring *r, const struct event *ev)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 256;
        struct event *e = malloc(cap * sizeof *e);
        if (!e)
            return -1;
        for (size_t i = 0; i < r->n; i++)
            e[i] = r->e[(r->head + i) & (r->cap - 1)];
        free(r->e);
        r->e = e;
        r->cap = cap;
        r->head = 0;
    }
    r->e[(r->head + r->n++) & (r->cap - 1)] = *ev;
    return 0;
}

/* Find the earliest far event after a pop or a move. */
static void far_min_update(struct evq *q)
{
    const struct event *m = q->n ? &q->h[0] : NULL;
    int src = -1;
    for (int k = 0; k < EVQ_RINGS; k++) {
        const struct evq_ring *r = &q->ring[k];
        if (r->n && (!m || before(&r->e[r->head], m))) {
            m = &r->e[r->head];
            src = k;
        }
    }
    if (m)
        q->far_min = *m;
    q->far_src = src;
}

#define RING_GAP ((uint64_t)q->nb << EVQ_SHIFT) /* continues a ring */
#define RING_EVICT 8 /* a ring this short may go to the heap for a new one */

/* A far event continues the ring whose tail is latest but not after it (seq
 * grows, so not after in time is enough) and within RING_GAP of it, or
 * starts an empty ring. With none free, the shortest ring, if short, moves
 * to the heap to make room; else the event goes to the heap. A stream of
 * timers a fixed delay ahead thus keeps to one ring, while the odd event
 * far beyond it (a paced sender at its minimum rate) cannot block it. */
static int far_push(struct evq *q, const struct event *ev)
{
    struct evq_ring *best = NULL, *spare = NULL;
    const struct event *bt = NULL;
    for (int k = 0; k < EVQ_RINGS; k++) {
        struct evq_ring *r = &q->ring[k];
        if (!spare || r->n < spare->n)
            spare = r;
        if (!r->n)
            continue;
        const struct event *t = &r->e[(r->head + r->n - 1) & (r->cap - 1)];
        if (!before(ev, t) && ev->t - t->t < RING_GAP && (!bt || before(bt, t))) {
            best = r;
            bt = t;
        }
    }
    if (!best && spare->n <= RING_EVICT) {
        for (; spare->n; spare->n--, spare->head = (spare->head + 1) & (spare->cap - 1))
            if (heap_push(q, &spare->e[spare->head]) < 0) {
                far_min_update(q);
                return -1;
            }
        spare->head = 0;
        best = spare;
        far_min_update(q); /* the earliest may have moved to the heap */
    }
    if (best ? ring_push(best, ev) : heap_push(q, ev))
        return -1;
    /* the new event is the earliest only at the front of the heap or of an
     * empty ring (a ring's tail is not before its head) */
    if (!q->nfar || before(ev, &q->far_min)) {
        q->far_min = *ev;
        q->far_src = best ? (int)(best - q->ring) : -1;
    }
    q->nfar++;
    return 0;
}

static void far_pop(struct evq *q, struct event *ev)
{
    if (q->far_src < 0) {
        heap_pop(q, ev);
    } else {
        struct evq_ring *r = &q->ring[q->far_src];
        *ev = r->e[r->head];
        r->head = (r->head + 1) & (r->cap - 1);
        r->n--;
    }
    q->nfar--;
    far_min_update(q);
}

static int wheel_alloc(struct evq *q)
{
    q->slot = malloc(q->nb * sizeof *q->slot);
    q->bits = calloc(WORDS, sizeof *q->bits);
    q->unsorted = calloc(WORDS, sizeof *q->unsorted);
    if (!q->slot || !q->bits || !q->unsorted)
        return -1;
    memset(q->slot, 0xff, q->nb * sizeof *q->slot);
    return 0;
}

static uint32_t node_new(struct evq *q)
{
    if (!q->n_free) {
        uint32_t cap = q->pool_cap ? q->pool_cap * 2 : 1024;
        /* the stack first: the pool's size must stay pool_cap's until it
         * is replaced (evq_huge_free unmaps by size) */
        uint32_t *st = cap > q->pool_cap ? realloc(q->free_stk, cap * sizeof *st) : NULL;
        if (!st)
            return NIL;
        q->free_stk = st; /* larger than needed if the pool cannot grow: harmless */
        /* line-aligned, so a node never straddles two lines */
        struct evq_node *p = evq_huge_alloc(cap * sizeof *p);
        if (!p)
            return NIL;
        if (q->pool_cap)
            memcpy(p, q->pool, q->pool_cap * sizeof *p);
        evq_huge_free(q->pool, q->pool_cap * sizeof *p);
        q->pool = p;
        /* the new nodes, lowest on top (the order the list gave them) */
        for (uint32_t i = cap; i > q->pool_cap;)
            st[q->n_free++] = --i;
        q->pool_cap = cap;
    }
    return q->free_stk[--q->n_free];
}

int evq_push_slow(struct evq *q, uint64_t t, uint64_t seq, uint32_t type, void *obj,
                  uint32_t arg)
{
    struct event ev = {t, seq, obj, type, arg};
    uint64_t bucket = t >> EVQ_SHIFT;
    if (bucket < q->base || bucket - q->base >= q->nb || (!q->slot && wheel_alloc(q) < 0))
        return far_push(q, &ev);
    uint32_t x = node_new(q);
    if (x == NIL)
        return -1;
    struct evq_node *nd = &q->pool[x];
    *nd = (struct evq_node){seq, obj, type, arg, NIL, (uint32_t)(t & EVQ_TLO)};
    uint32_t b = (uint32_t)(bucket & MASK);
    if (q->slot[b].head == NIL) {
        q->slot[b].head = q->slot[b].tail = x;
        q->bits[b / 64] |= UINT64_C(1) << (b % 64);
    } else if (!evq_node_before(nd, &q->pool[q->slot[b].tail])) {
        q->pool[q->slot[b].tail].next = x;
        q->slot[b].tail = x;
    } else {
        evq_link_early(q, b, x, UINT64_C(1) << (b % 64));
    }
    q->wn++;
    return 0;
}

/* Merge two sorted lists; returns the head and sets *tail. */
static inline uint32_t merge(struct evq_node *pool, uint32_t a, uint32_t ta, uint32_t b,
                             uint32_t tb, uint32_t *tail)
{
    uint32_t out = NIL, *link = &out;
    for (;;) {
        if (evq_node_before(&pool[b], &pool[a])) {
            *link = b;
            link = &pool[b].next;
            if ((b = *link) == NIL) {
                *link = a;
                *tail = ta;
                return out;
            }
        } else {
            *link = a;
            link = &pool[a].next;
            if ((a = *link) == NIL) {
                *link = b;
                *tail = tb;
                return out;
            }
        }
    }
}

/* Cut the ascending run at *head (up to the next node the push marked);
 * returns its head, sets its tail and advances *head past it. */
static inline uint32_t cut_run(struct evq_node *pool, uint32_t *head, uint32_t *tail)
{
    uint32_t rh = *head, rt = rh, x;
    pool[rh].type &= ~EVQ_RUN;
    while ((x = pool[rt].next) != NIL && !(pool[x].type & EVQ_RUN))
        rt = x;
    *head = x;
    pool[rt].next = NIL;
    *tail = rt;
    return rh;
}

/* Sort of a bucket's list by (time, seq); returns the new head and sets
 * *tail. A bucket's list is a few ascending runs (most often two: events
 * pushed long ago, then a later push for an earlier time), each starting
 * at a node the push marked EVQ_RUN; it merges those runs in a binary
 * counter of merged lists rather than splitting the list blindly: O(n log
 * runs). */
static uint32_t sort_list(struct evq_node *pool, uint32_t head, uint32_t *tail)
{
    uint32_t lh[32], lt[32]; /* level k: 2^k runs merged (runs < 2^32) */
    uint32_t t1, t2, r1 = cut_run(pool, &head, &t1);
    if (head == NIL) {
        *tail = t1;
        return r1;
    }
    uint32_t r2 = cut_run(pool, &head, &t2);
    if (head == NIL) /* two runs: the common case */
        return merge(pool, r1, t1, r2, t2, tail);
    lh[0] = NIL;
    lh[1] = merge(pool, r1, t1, r2, t2, &lt[1]);
    unsigned levels = 2;
    while (head != NIL) {
        uint32_t rt, rh = cut_run(pool, &head, &rt);
        /* carry it up the counter: each full level merges with it */
        unsigned k = 0;
        for (; k < levels && lh[k] != NIL; k++) {
            rh = merge(pool, lh[k], lt[k], rh, rt, &rt);
            lh[k] = NIL;
        }
        if (k == levels)
            levels++;
        lh[k] = rh;
        lt[k] = rt;
    }
    uint32_t out = NIL, ot = NIL;
    for (unsigned k = 0; k < levels; k++) {
        if (lh[k] == NIL)
            continue;
        /* higher levels hold earlier runs */
        if (out == NIL) {
            out = lh[k];
            ot = lt[k];
        } else {
            out = merge(pool, lh[k], lt[k], out, ot, &ot);
        }
    }
    *tail = ot;
    return out;
}

/* The first non-empty bucket at or after the wheel's start, wrapping. */
static uint32_t first_bucket(const struct evq *q)
{
    uint32_t b = (uint32_t)(q->base & MASK), w = b / 64;
    uint64_t word = q->bits[w] & (~UINT64_C(0) << (b % 64));
    for (uint32_t k = 0; k <= WORDS; k++) {
        if (word)
            return w * 64 + (uint32_t)__builtin_ctzll(word);
        w = (w + 1) & (WORDS - 1); /* nb is a power of two: no division */
        word = q->bits[w];
    }
    return NIL;
}

int evq_pop_slow(struct evq *q, struct event *ev)
{
    if (q->wn) {
        uint32_t b = first_bucket(q);
        uint64_t bit = UINT64_C(1) << (b % 64);
        if (q->unsorted[b / 64] & bit) {
            q->slot[b].head = sort_list(q->pool, q->slot[b].head, &q->slot[b].tail);
            q->unsorted[b / 64] &= ~bit;
        }
        uint32_t x = q->slot[b].head;
        struct event e = evq_node_event(&q->pool[x], evq_slot_bucket(q, b));
        if (!q->nfar || !before(&q->far_min, &e)) {
            *ev = e;
            q->slot[b].head = q->pool[x].next;
            if (q->slot[b].head == NIL)
                q->bits[b / 64] &= ~bit;
            q->free_stk[q->n_free++] = x;
            q->wn--;
            q->base = ev->t >> EVQ_SHIFT; /* nothing earlier remains */
            return 1;
        }
    }
    if (!q->nfar)
        return 0;
    far_pop(q, ev);
    if (!q->wn)
        q->base = ev->t >> EVQ_SHIFT;
    return 1;
}

int evq_take_before(struct evq *q, uint64_t limit, struct event *out, size_t *n, size_t room,
                    uint32_t stop_mask, uint32_t stop_val)
{
    if (!q->wn || !limit || (q->nfar && q->far_min.t < limit))
        return 0;
    uint64_t last = (limit - 1) >> EVQ_SHIFT; /* the last bucket to look at */
    size_t k = *n, wn = q->wn;
    uint32_t nf = q->n_free, *stk = q->free_stk;
    struct evq_node *pool = q->pool;
    uint64_t base = q->base;
    int stopped = 0;
    /* the bitmap walked a word at a time from the wheel's start (nothing is
     * pushed meanwhile, so a copy of the word serves), and not past the
     * last bucket: wb is the number of word w's first bucket */
    uint32_t s0 = (uint32_t)(base & MASK), w = s0 / 64;
    uint64_t wb = base - s0 % 64;
    uint64_t word = q->bits[w] & (~UINT64_C(0) << (s0 % 64));
    while (wn && k < room) {
        if (!word) {
            wb += 64;
            if (wb > last)
                break;
            w = (w + 1) & (WORDS - 1); /* nb is a power of two */
            word = q->bits[w];
            continue;
        }
        uint32_t j = (uint32_t)__builtin_ctzll(word), b = w * 64 + j;
        uint64_t bucket = wb + j, bit = UINT64_C(1) << j;
        if (bucket > last)
            break;
        if (q->unsorted[w] & bit) {
            q->slot[b].head = sort_list(pool, q->slot[b].head, &q->slot[b].tail);
            q->unsorted[w] &= ~bit;
        }
        uint32_t x = q->slot[b].head;
        uint64_t tb = bucket << EVQ_SHIFT;
        size_t k0 = k;
        while (x != NIL && k < room) {
            const struct evq_node *nd = &pool[x];
            uint64_t t = tb | nd->tlo;
            if (t >= limit || (nd->type & stop_mask) == stop_val) {
                stopped = t < limit;
                break;
            }
            out[k++] = (struct event){t, nd->seq, nd->obj, nd->type, nd->arg};
            stk[nf++] = x;
            x = nd->next;
        }
        wn -= k - k0;
        if (k != k0)
            base = bucket;
        q->slot[b].head = x;
        if (x != NIL)
            break; /* it stopped inside this bucket */
        q->bits[w] &= ~bit;
        word &= ~bit;
    }
    q->wn = wn;
    q->n_free = nf;
    q->base = base;
    *n = k;
    return stopped;
}

int evq_shift(struct evq *q, uint64_t d, int (*keep)(const struct event *ev, void *ctx),
              void *ctx)
{
    size_t n = evq_len(q), k = 0;
    if (!n)
        return 0;
    struct event *all = malloc(n * sizeof *all);
    if (!all)
        return -1;
    while (k < n && evq_pop(q, &all[k]))
        k++;
    /* the wheel is empty: its start may move to the earliest new time, and
     * pushes in any order keep (time, seq) order */
    uint64_t first = UINT64_MAX;
    for (size_t i = 0; i < k; i++) {
        if (!keep || !keep(&all[i], ctx))
            all[i].t += d;
        first = all[i].t < first ? all[i].t : first;
    }
    q->base = first >> EVQ_SHIFT;
    int rc = 0;
    for (size_t i = 0; i < k && rc == 0; i++)
        rc = evq_push_seq(q, all[i].t, all[i].seq, all[i].type, all[i].obj, all[i].arg);
    free(all);
    return rc;
}
