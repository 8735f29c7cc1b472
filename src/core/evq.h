/* Event queue: a 4-ary min-heap keyed on (time, insertion sequence), so
 * events at the same picosecond fire in the order they were scheduled.
 * The queue owns its array; obj pointers are borrowed. */
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

struct evq {
    struct event *h;
    size_t n, cap;
    uint64_t next_seq;
};

void evq_init(struct evq *q);
void evq_release(struct evq *q);
/* Returns -1 only when memory runs out. */
int evq_push(struct evq *q, uint64_t t, uint32_t type, void *obj, uint32_t arg);
/* Removes the earliest event into *ev; returns 0 when the queue is empty. */
int evq_pop(struct evq *q, struct event *ev);
static inline size_t evq_len(const struct evq *q) { return q->n; }

#endif
