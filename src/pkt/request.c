/* storage.protocol's requests in the packet engine (docs/storage.md,
 * Requests). A writer (rank) has requests_in_flight slots shared by its
 * transfers: a packet that starts a request (holds its first byte) goes
 * only while a slot is free; the storage node acknowledges a request once
 * all of it is in (PK_ACK, as storage.max_outstanding's), and the slot
 * frees request_latency after the sender hears it. A writer's releases
 * come in time order (hearing time + one latency), so each is a ring;
 * each transfer's requests complete in order, so their start times are a
 * FIFO per transfer threaded through its writer's slots. All O(1). */
#include <stdio.h>

#include "pnet.h"
#include "../work/request.h"

#define NONE UINT32_MAX

struct req_writer {
    uint32_t inflight;      /* started, slot not yet free */
    uint32_t free;          /* first free slot, NONE = none */
    uint32_t rel_head, rel_n; /* pending releases in rel[] */
};

struct req_state {
    uint64_t size, latency;
    uint32_t slots;         /* per writer */
    struct req_writer *w;   /* [n_writers] */
    uint64_t *rel;          /* [n_writers][slots] release times, a ring each */
    uint64_t *start;        /* [n_writers][slots] a request's start */
    uint32_t *next;         /* [n_writers][slots] next in its FIFO or free list */
    uint32_t *head, *tail;  /* [n_flows] the transfer's FIFO of slots */
    uint64_t *acked;        /* [n_flows] bytes acknowledged, sender's view */
    uint64_t *open;         /* [n_flows] requests started, not yet acknowledged */
    uint64_t count, max_ps;
    double sum_ps;
};

int req_setup(struct pnet *n, struct err *e)
{
    n->req = NULL;
    if (!request_on(n->w, n->sc))
        return 0;
    struct req_state *r = arena_calloc(&n->arena, 1, sizeof *r);
    uint32_t k = n->sc->storage.req_inflight, nw = n->n_writers, nf = n->n_flows;
    size_t cells = (size_t)nw * k;
    if (!r)
        return err_set(e, "out of memory for storage.protocol's request slots");
    r->w = arena_calloc(&n->arena, nw ? nw : 1, sizeof *r->w);
    r->rel = arena_calloc(&n->arena, cells ? cells : 1, sizeof *r->rel);
    r->start = arena_calloc(&n->arena, cells ? cells : 1, sizeof *r->start);
    r->next = arena_calloc(&n->arena, cells ? cells : 1, sizeof *r->next);
    r->head = arena_calloc(&n->arena, nf ? nf : 1, sizeof *r->head);
    r->tail = arena_calloc(&n->arena, nf ? nf : 1, sizeof *r->tail);
    r->acked = arena_calloc(&n->arena, nf ? nf : 1, sizeof *r->acked);
    r->open = arena_calloc(&n->arena, nf ? nf : 1, sizeof *r->open);
    if (!r->w || !r->rel || !r->start || !r->next || !r->head || !r->tail || !r->acked ||
        !r->open)
        return err_set(e, "storage.requests_in_flight: %u slots for each of %u ranks do not "
                       "fit in memory", k, nw);
    r->size = n->sc->storage.request_size;
    r->latency = n->sc->storage.req_latency_ps;
    r->slots = k;
    for (uint32_t i = 0; i < nw; i++) {
        r->w[i].free = 0;
        for (uint32_t s = 0; s < k; s++)
            r->next[(size_t)i * k + s] = s + 1 < k ? s + 1 : NONE;
    }
    for (uint32_t i = 0; i < nf; i++)
        r->head[i] = r->tail[i] = NONE;
    n->req = r;
    return 0;
}

/* Requests whose first byte lies below off: ceil(off / size). */
static uint64_t started_below(uint64_t off, uint64_t size)
{
    return off / size + (off % size != 0);
}

int req_gate(struct pnet *n, const struct flow *f, uint64_t *soonest)
{
    struct req_state *r = n->req;
    if (f->sent < f->max_sent || f->sr_pending || f->writer >= n->n_writers)
        return 1; /* a resend, or not the checkpoint's */
    uint64_t left = f->bytes - f->sent, pl = left < n->mtu ? left : n->mtu;
    if (started_below(f->sent + pl, r->size) == started_below(f->sent, r->size))
        return 1; /* inside a request already started */
    struct req_writer *w = &r->w[f->writer];
    const uint64_t *rel = r->rel + (size_t)f->writer * r->slots;
    while (w->rel_n && rel[w->rel_head] <= n->now) {
        w->rel_head = w->rel_head + 1 < r->slots ? w->rel_head + 1 : 0;
        w->rel_n--;
        w->inflight--;
    }
    if (w->inflight < r->slots)
        return 1;
    if (w->rel_n && rel[w->rel_head] < *soonest)
        *soonest = rel[w->rel_head]; /* else an acknowledgement kicks the port */
    return 0;
}

void req_sent(struct pnet *n, const struct flow *f, uint64_t off, uint32_t payload)
{
    struct req_state *r = n->req;
    if (f->writer >= n->n_writers)
        return;
    uint64_t c = started_below(off + payload, r->size) - started_below(off, r->size);
    struct req_writer *w = &r->w[f->writer];
    size_t base = (size_t)f->writer * r->slots;
    r->open[f->id] += c;
    for (; c; c--) {
        w->inflight++;
        uint32_t s = w->free;
        if (s == NONE)
            continue; /* a packet past the limit (requests smaller than a packet) */
        w->free = r->next[base + s];
        r->start[base + s] = n->now;
        r->next[base + s] = NONE;
        if (r->tail[f->id] == NONE)
            r->head[f->id] = s;
        else
            r->next[base + r->tail[f->id]] = s;
        r->tail[f->id] = s;
    }
}

void req_on_ack(struct pnet *n, const struct flow *f, uint32_t bytes)
{
    struct req_state *r = n->req;
    if (f->writer >= n->n_writers || f->failed)
        return; /* a failed transfer's slots were freed by req_fail */
    uint64_t old = r->acked[f->id], now_off = old + bytes;
    r->acked[f->id] = now_off;
    uint64_t c = request_done_below(now_off, f->bytes, r->size) -
                 request_done_below(old, f->bytes, r->size);
    struct req_writer *w = &r->w[f->writer];
    size_t base = (size_t)f->writer * r->slots;
    uint64_t done = n->now + r->latency; /* the server's time, then the slot is free */
    r->open[f->id] -= c < r->open[f->id] ? c : r->open[f->id];
    for (; c; c--) {
        uint32_t s = r->head[f->id];
        if (s != NONE) {
            uint64_t lat = done - r->start[base + s];
            r->count++;
            r->sum_ps += (double)lat;
            r->max_ps = lat > r->max_ps ? lat : r->max_ps;
            r->head[f->id] = r->next[base + s];
            if (r->head[f->id] == NONE)
                r->tail[f->id] = NONE;
            r->next[base + s] = w->free;
            w->free = s;
        }
        if (w->rel_n < r->slots) {
            uint32_t at = w->rel_head + w->rel_n;
            r->rel[base + (at < r->slots ? at : at - r->slots)] = done;
            w->rel_n++;
        } else if (w->inflight) {
            w->inflight--; /* past the limit: free it now */
        }
    }
}

void req_fail(struct pnet *n, const struct flow *f)
{
    struct req_state *r = n->req;
    if (f->writer >= n->n_writers)
        return;
    struct req_writer *w = &r->w[f->writer];
    size_t base = (size_t)f->writer * r->slots;
    /* its requests never complete: their slots go back to the rank now */
    w->inflight -= r->open[f->id] < w->inflight ? r->open[f->id] : w->inflight;
    r->open[f->id] = 0;
    while (r->head[f->id] != NONE) {
        uint32_t s = r->head[f->id];
        r->head[f->id] = r->next[base + s];
        r->next[base + s] = w->free;
        w->free = s;
    }
    r->tail[f->id] = NONE;
}

void req_totals(const struct pnet *n, uint64_t *count, double *sum_ps, uint64_t *max_ps)
{
    const struct req_state *r = n->req;
    *count = r ? r->count : 0;
    *sum_ps = r ? r->sum_ps : 0;
    *max_ps = r ? r->max_ps : 0;
}
