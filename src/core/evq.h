/* Event queue keyed on (time, seq): events at the same picosecond fire in
 * seq order. evq_push numbers events in the order they are pushed; a caller
 * with its own tie rule gives each event's seq (evq_push_seq).
 *
 * Near events (within 8.4 us of the current bucket, or up to 67 us where
 * evq_horizon asks) go to a timing wheel of
 * 1.024 ns buckets, each a list that grows at its tail (or its head, for
 * an event before all of it) and is sorted by (time, seq) once, when it
 * becomes the earliest bucket, if a push left it out of order; a bitmap finds the
 * next non-empty bucket. Later events wait in one of a few FIFO rings,
 * each in time order (timers a fixed delay ahead, as DCQCN's, come in
 * order), or else in a 4-ary heap. Pop takes the smallest of the fronts, so
 * the order is exactly that of one sorted queue. The queue owns its memory;
 * obj pointers are borrowed. */
#ifndef CKPT_EVQ_H
#define CKPT_EVQ_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "prefetch.h"

struct event {
    uint64_t t;     /* ps */
    uint64_t seq;   /* insertion order, breaks ties */
    void *obj;
    uint32_t type;
    uint32_t arg;
};

#define EVQ_SHIFT 10                      /* bucket width 2^10 ps */
/* The wheel's buckets by default and at least: a horizon of 8.4 us. Most
 * pushes are a link delay ahead (pause ends and DCQCN's timers go to the
 * rings either way); 64 KB of slots stay in a 2 MB L2 where 512 KB (67 us)
 * did not, and a push's slot was a cold line (BENCHMARKS.md, session 21).
 * Longer links ask for more (evq_horizon), up to EVQ_BUCKETS_MAX. */
#define EVQ_BUCKETS (1u << 13)
#define EVQ_BUCKETS_MAX (1u << 16)

/* A wheel node: an event less the bits of its time that its bucket gives.
 * 32 bytes on 64-byte aligned memory, so a push or a take touches one
 * line (a whole struct event and a link made 40 bytes, often two). A
 * bucket's list holds events of one bucket only, so (tlo, seq) orders it. */
struct evq_node {
    uint64_t seq;
    void *obj;
    uint32_t type, arg;
    uint32_t next;                        /* node index, UINT32_MAX = end */
    uint32_t tlo;                         /* t's bits below the bucket */
};
_Static_assert(sizeof(struct evq_node) == 32, "two wheel nodes a cache line");

#define EVQ_RINGS 4

/* A bucket's list ends side by side: a push or pop reads one line. */
struct evq_slot {
    uint32_t head, tail;
};
_Static_assert(EVQ_BUCKETS * sizeof(struct evq_slot) <= 64 * 1024,
               "the default wheel's slots stay within 64 KB (a push reads its bucket's slot)");

struct evq_ring {
    struct event *e;
    size_t head, n, cap;                  /* cap: a power of two */
};

struct evq {
    /* far events: 4-ary heap, and rings each in (time, seq) order */
    struct event *h;
    size_t n, cap;
    struct evq_ring ring[EVQ_RINGS];
    size_t nfar;                          /* far events in all */
    struct event far_min;                 /* the earliest far event, if nfar */
    int far_src;                          /* where it is: a ring, or -1 the heap */
    /* near events: the wheel */
    struct evq_node *pool;
    /* free nodes as a stack of indices beside the pool, not a list through
     * the nodes: the next push's node is known without reading a cold node
     * (pools of 10^5 nodes are out of cache), and can be prefetched early */
    uint32_t *free_stk;
    uint32_t pool_cap, n_free;
    struct evq_slot *slot;                /* per bucket */
    uint64_t *bits;                       /* non-empty buckets */
    uint64_t *unsorted;                   /* buckets whose list is out of order */
    uint64_t base;                        /* bucket number of the wheel's start */
    uint32_t nb;                          /* buckets: a power of two (evq_horizon) */
    size_t wn;                            /* events on the wheel */
    uint64_t next_seq;
};

/* Arrays of bytes at least EVQ_HUGE_MIN on their own 2 MB aligned mapping
 * advised for huge pages (the hot loop's arrays: a 4 KB page a line costs a
 * TLB miss); smaller ones 64-byte aligned from malloc. Freed with the size
 * they were allocated with. */
/* (all from malloc under the sanitizer, ARENA_MAP 0: it sees overruns) */
#define EVQ_HUGE_MIN (ARENA_MAP ? (size_t)256 << 10 : SIZE_MAX)
void *evq_huge_alloc(size_t bytes);
void evq_huge_free(void *p, size_t bytes);

void evq_init(struct evq *q);
/* Sizes the wheel to hold events up to ps ahead (within EVQ_BUCKETS and
 * EVQ_BUCKETS_MAX buckets); before the queue's first push. */
void evq_horizon(struct evq *q, uint64_t ps);
void evq_release(struct evq *q);
static inline size_t evq_len(const struct evq *q) { return q->nfar + q->wn; }
/* Bytes the queue holds from malloc. */
size_t evq_mem(const struct evq *q);

/* The common cases of push and pop are inline (the event loop runs one of
 * each per event); the rest -- far events, memory, sorting a bucket, a
 * bucket past the next bitmap word -- is out of line in evq.c. */
#define EVQ_NIL UINT32_MAX
/* In a wheel node's type: the event starts a new ascending run of its
 * bucket's list (it is earlier than the tail it was appended to), so the
 * sort finds the runs without comparing. Types must be below it; the sort
 * clears it before any event leaves the queue. */
#define EVQ_RUN UINT32_C(0x80000000)
#define EVQ_PREFETCH 4 /* pushes ahead */
int evq_push_slow(struct evq *q, uint64_t t, uint64_t seq, uint32_t type, void *obj,
                  uint32_t arg);
int evq_pop_slow(struct evq *q, struct event *ev);

static inline int evq_before(const struct event *a, const struct event *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

#define EVQ_TLO ((UINT64_C(1) << EVQ_SHIFT) - 1)

/* Order of two nodes of one bucket. */
static inline int evq_node_before(const struct evq_node *a, const struct evq_node *b)
{
    return a->tlo < b->tlo || (a->tlo == b->tlo && a->seq < b->seq);
}

/* The event node nd of bucket (absolute bucket number) holds. */
static inline struct event evq_node_event(const struct evq_node *nd, uint64_t bucket)
{
    return (struct event){bucket << EVQ_SHIFT | nd->tlo, nd->seq, nd->obj, nd->type, nd->arg};
}

/* The absolute number of wheel slot b (the wheel covers base up to
 * q->nb buckets on). */
static inline uint64_t evq_slot_bucket(const struct evq *q, uint32_t b)
{
    /* b < q->nb: adding the wheel's size first keeps this from wrapping */
    return q->base + ((b + q->nb - ((uint32_t)q->base & (q->nb - 1))) & (q->nb - 1));
}

/* Node x of bucket slot b (bit: its bit in its bitmap word), earlier than
 * its list's tail. Before the head (most such pushes: the same time, a
 * lower tie key) it becomes the head: no node is before a list's head
 * (each node not put in front is not before it), so the list's order is
 * the sort's. Else it is appended, starting a new run, and the list is
 * sorted when it is first taken from, not walked on every push. */
static inline void evq_link_early(struct evq *q, uint32_t b, uint32_t x, uint64_t bit)
{
    struct evq_node *nd = &q->pool[x];
    if (evq_node_before(nd, &q->pool[q->slot[b].head])) {
        nd->next = q->slot[b].head;
        q->slot[b].head = x;
        return;
    }
    q->unsorted[b / 64] |= bit;
    nd->type |= EVQ_RUN;
    q->pool[q->slot[b].tail].next = x;
    q->slot[b].tail = x;
}

/* Schedule with tie key seq; t must not be earlier than the last event
 * popped. Returns -1 only when memory runs out. Forced inline: gcc
 * otherwise keeps one out-of-line copy for every caller. */
static inline __attribute__((always_inline)) int
evq_push_seq(struct evq *q, uint64_t t, uint64_t seq, uint32_t type, void *obj, uint32_t arg)
{
    uint64_t bucket = t >> EVQ_SHIFT;
    if (bucket < q->base || bucket - q->base >= q->nb || !q->n_free)
        return evq_push_slow(q, t, seq, type, obj, arg);
    uint32_t x = q->free_stk[--q->n_free];
    struct evq_node *nd = &q->pool[x];
    /* the node of a push a few ahead: freed a window ago, out of cache */
    if (q->n_free >= EVQ_PREFETCH)
        ckpt_prefetch_w(&q->pool[q->free_stk[q->n_free - EVQ_PREFETCH]]);
    *nd = (struct evq_node){seq, obj, type, arg, EVQ_NIL, (uint32_t)(t & EVQ_TLO)};
    uint32_t b = (uint32_t)(bucket & (q->nb - 1));
    uint64_t bit = UINT64_C(1) << (b % 64);
    if (q->slot[b].head == EVQ_NIL) {
        q->slot[b].head = q->slot[b].tail = x;
        q->bits[b / 64] |= bit;
    } else if (!evq_node_before(nd, &q->pool[q->slot[b].tail])) {
        q->pool[q->slot[b].tail].next = x; /* in order: appended */
        q->slot[b].tail = x;
    } else {
        evq_link_early(q, b, x, bit);
    }
    q->wn++;
    return 0;
}

/* Schedule after everything pushed so far at the same time. */
static inline int evq_push(struct evq *q, uint64_t t, uint32_t type, void *obj, uint32_t arg)
{
    return evq_push_seq(q, t, q->next_seq++, type, obj, arg);
}

/* Removes the earliest event into *ev; returns 0 when the queue is empty. */
static inline int evq_pop(struct evq *q, struct event *ev)
{
    if (q->wn) {
        uint32_t b = (uint32_t)(q->base & (q->nb - 1)), w = b / 64;
        uint64_t word = q->bits[w] & (~UINT64_C(0) << (b % 64));
        if (!word) { /* the next word: still within the horizon */
            w = (w + 1) & (q->nb / 64 - 1);
            word = q->bits[w];
        }
        if (word) {
            b = w * 64 + (uint32_t)__builtin_ctzll(word);
            uint64_t bit = UINT64_C(1) << (b % 64);
            uint32_t x = q->slot[b].head;
            struct evq_node *nd = &q->pool[x];
            struct event e = evq_node_event(nd, evq_slot_bucket(q, b));
            if (!(q->unsorted[w] & bit) && (!q->nfar || !evq_before(&q->far_min, &e))) {
                *ev = e;
                q->slot[b].head = nd->next;
                if (nd->next == EVQ_NIL)
                    q->bits[w] &= ~bit;
                q->free_stk[q->n_free++] = x;
                q->wn--;
                q->base = ev->t >> EVQ_SHIFT; /* nothing earlier remains */
                return 1;
            }
        }
    }
    return evq_pop_slow(q, ev);
}

/* Removes the earliest event into *ev if it is before `limit`; else leaves
 * the queue as it was (the wheel's start too, so events before that one
 * may still be pushed) and returns 0. */
static inline int evq_pop_before(struct evq *q, uint64_t limit, struct event *ev)
{
    uint64_t base = q->base;
    if (!evq_pop(q, ev))
        return 0;
    if (ev->t < limit)
        return 1;
    q->base = base; /* first: the push places it against the old start */
    evq_push_seq(q, ev->t, ev->seq, ev->type, ev->obj, ev->arg);
    return 0;
}

/* Moves the events before limit, in (time, seq) order, to out[*n..room),
 * as many pops would; it stops before an event whose type has
 * (type & stop_mask) == stop_val (it stays), and when out is full. Returns
 * 1 when it stopped before such an event, else 0. With a far event before
 * limit it moves none (the caller pops). */
int evq_take_before(struct evq *q, uint64_t limit, struct event *out, size_t *n, size_t room,
                    uint32_t stop_mask, uint32_t stop_val);

/* Moves every event d later, except those keep(ev, ctx) names (1): they
 * keep their time (engine: hybrid's fast-forward; events taken out of the
 * window are put back first). Ties keep their seq. Returns -1 only when
 * memory runs out (events may then be lost: the caller stops the run). */
int evq_shift(struct evq *q, uint64_t d, int (*keep)(const struct event *ev, void *ctx),
              void *ctx);

/* An empty queue's wheel made to start at t, as if it had last popped
 * there: a queue emptied by moving its events out (the packet engine's
 * threads, sched.c) keeps its last event's start, and pushes before it
 * would wait in the far heap. No-op on a queue that is not empty. */
static inline void evq_restart(struct evq *q, uint64_t t)
{
    if (!evq_len(q))
        q->base = t >> EVQ_SHIFT;
}

/* The earliest event's time (UINT64_MAX: none), the queue left as it was. */
static inline uint64_t evq_peek_t(struct evq *q)
{
    struct event ev;
    if (!evq_len(q))
        return UINT64_MAX;
    evq_pop_before(q, 0, &ev);
    return ev.t;
}

#endif
