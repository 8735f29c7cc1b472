/* Event queue keyed on (time, insertion sequence), so events at the same
 * picosecond fire in the order they were scheduled.
 *
 * Near events (within 67 us of the current bucket) go to a timing wheel of
 * 1.024 ns buckets, each a list that grows at its tail and is sorted by
 * (time, seq) once, when it becomes the earliest bucket; a bitmap finds the
 * next non-empty bucket. Later events wait in a 4-ary heap. Pop takes the smaller of the two fronts, so
 * the order is exactly that of one sorted queue. The queue owns its memory;
 * obj pointers are borrowed. */
#ifndef CKPT_EVQ_H
#define CKPT_EVQ_H

#include <stddef.h>
#include <stdint.h>

struct event {
    uint64_t t;     /* ps */
    uint64_t seq;   /* insertion order, breaks ties */
    void *obj;
    uint32_t type;
    uint32_t arg;
};

#define EVQ_SHIFT 10                      /* bucket width 2^10 ps */
#define EVQ_BUCKETS (1u << 16)            /* horizon 67 us */

struct evq_node {
    struct event ev;
    uint32_t next;                        /* node index, UINT32_MAX = end */
};

struct evq {
    /* far events: 4-ary heap */
    struct event *h;
    size_t n, cap;
    /* near events: the wheel */
    struct evq_node *pool;
    uint32_t pool_cap, free_node;
    uint32_t *head, *tail;                /* per bucket */
    uint64_t *bits;                       /* non-empty buckets */
    uint64_t *unsorted;                   /* buckets whose list is out of order */
    uint64_t base;                        /* bucket number of the wheel's start */
    size_t wn;                            /* events on the wheel */
    uint64_t next_seq;
};

void evq_init(struct evq *q);
void evq_release(struct evq *q);
/* Schedule; t must not be earlier than the last event popped. Returns -1
 * only when memory runs out. */
int evq_push(struct evq *q, uint64_t t, uint32_t type, void *obj, uint32_t arg);
/* Removes the earliest event into *ev; returns 0 when the queue is empty. */
int evq_pop(struct evq *q, struct event *ev);
static inline size_t evq_len(const struct evq *q) { return q->n + q->wn; }
/* Bytes the queue holds from malloc. */
size_t evq_mem(const struct evq *q);

#endif
