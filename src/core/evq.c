#include "evq.h"

#include <stdlib.h>

/* 4-ary heap: shallower than binary, children share a cache line. */
#define ARITY 4

static inline int before(const struct event *a, const struct event *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

void evq_init(struct evq *q)
{
    q->h = NULL;
    q->n = q->cap = 0;
    q->next_seq = 0;
}

void evq_release(struct evq *q)
{
    free(q->h);
    evq_init(q);
}

int evq_push(struct evq *q, uint64_t t, uint32_t type, void *obj, uint32_t arg)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 256;
        struct event *h = realloc(q->h, cap * sizeof *h);
        if (!h)
            return -1;
        q->h = h;
        q->cap = cap;
    }
    struct event ev = {t, q->next_seq++, obj, type, arg};
    size_t i = q->n++;
    while (i > 0) {
        size_t p = (i - 1) / ARITY;
        if (!before(&ev, &q->h[p]))
            break;
        q->h[i] = q->h[p];
        i = p;
    }
    q->h[i] = ev;
    return 0;
}

int evq_pop(struct evq *q, struct event *ev)
{
    if (q->n == 0)
        return 0;
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
    return 1;
}
