/* A storage node's write cache, between its ingest buffer and its media
 * (docs/storage.md). The back end absorbs at drain_bps while the cache has
 * room, the media empty the cache at media_bps, and a full cache leaves
 * the back end at media_bps. Bytes arrive only at events, so between two
 * calls the ingest level only falls: each stretch is closed form, O(1). */
#include <math.h>

#include "pnet.h"

#define BYTES_PER_PS(bps) ((double)(bps) / 8e12)

void store_levels_at(const struct nic *s, uint64_t at, uint64_t *level, double *cache)
{
    double t = at > s->level_t ? (double)(at - s->level_t) : 0; /* ps */
    double lvl = (double)s->level, cap = (double)s->cache_cap, c = s->cache;
    double f = BYTES_PER_PS(s->drain_bps), m = BYTES_PER_PS(s->media_bps);
    if (lvl > 0 && c < cap && t > 0) { /* absorbing, the cache filling */
        double step = fmin(t, fmin((cap - c) / (f - m), lvl / f));
        lvl -= f * step;
        c = fmin(cap, c + (f - m) * step);
        t -= step;
        if (lvl < 0.5) /* within rounding: the ingest buffer is empty */
            lvl = 0;
        else if (t > 0)
            c = cap; /* it stopped because the cache filled */
    }
    if (lvl > 0 && t > 0) { /* cache full: the media's pace */
        double step = fmin(t, lvl / m);
        lvl -= m * step;
        t -= step;
        if (lvl < 0.5)
            lvl = 0;
    }
    if (lvl == 0 && t > 0) /* nothing to absorb: the media empty the cache */
        c = fmax(0, c - m * t);
    *level = (uint64_t)llround(lvl);
    *cache = c;
}

void store_advance(struct pnet *n, struct nic *s)
{
    store_levels_at(s, n->now, &s->level, &s->cache);
    s->level_t = n->now;
}

uint64_t store_wait_ps(const struct nic *s, uint64_t bytes)
{
    double f = BYTES_PER_PS(s->drain_bps), m = BYTES_PER_PS(s->media_bps);
    double room = (double)s->cache_cap - s->cache, b = (double)bytes;
    double fast = room > 0 ? room * f / (f - m) : 0; /* absorbed before it fills */
    double t = b <= fast ? b / f : (room > 0 ? room / (f - m) : 0) + (b - fast) / m;
    return (uint64_t)ceil(t);
}

/* The next new packet of forward f: its end must have reached the primary. */
int store_fwd_held(const struct pnet *n, const struct flow *f)
{
    const struct flow *src = &n->flows[f->feed - 1];
    uint64_t left = f->bytes - f->sent;
    return src->recv < f->sent + (left < n->mtu ? left : n->mtu);
}

void store_fwd_arrived(struct pnet *n, const struct flow *f)
{
    for (uint32_t i = f->fwd_first; i < f->fwd_first + f->fwd_n; i++) {
        struct flow *c = &n->flows[i];
        if (!c->fwd_wait || !c->active || store_fwd_held(n, c))
            continue;
        c->fwd_wait = 0;
        c->next_send = n->now;
        struct port *p = &n->ports[n->topo->nodes[c->src].first_port];
        if (p->state == PORT_IDLE)
            port_kick(n, p);
        else
            port_wake_at(n, p, n->now);
    }
}
