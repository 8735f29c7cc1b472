/* Packet-engine telemetry: time-series samples of every port (queue,
 * pause, bytes sent), per-segment link figures and the hottest ports at the
 * end of the run, and the progress hook. Nothing here runs per packet. */
#include <stdlib.h>
#include <string.h>

#include "../core/units.h"
#include "pnet.h"

/* The largest switch egress queue now (when the series cannot grow). */
static uint64_t max_queue(const struct pnet *n)
{
    uint64_t qmax = 0;
    for (uint32_t i = 0; i < n->topo->n_ports; i++)
        if (!n->ports[i].is_host && n->ports[i].q_bytes > qmax)
            qmax = n->ports[i].q_bytes;
    return qmax;
}

/* A back end's ingest level at time at (>= its level_t): what nic.c's
 * drain() would leave, without moving it. */
static uint64_t ingest_at(const struct nic *s, uint64_t at)
{
    if (!s->drain_bps || at <= s->level_t)
        return s->level;
    if (s->cache_cap) { /* a write cache: storage.c */
        uint64_t lv;
        double c;
        store_levels_at(s, at, &lv, &c);
        return lv;
    }
    uint64_t gone = (uint64_t)((double)(at - s->level_t) * 1e-12 * (double)s->drain_bps / 8.0);
    return gone >= s->level ? 0 : s->level - gone;
}

/* Before the first sample of a write with back ends that can fall behind:
 * the storage nodes (nic.c: a back end at each one's first NIC). */
static void backends_setup(struct pnet *n, struct series *s)
{
    const struct topo *t = n->topo;
    uint32_t k = n->sc->storage.nics_per_node > 1 ? n->sc->storage.nics_per_node : 1, c = 0;
    if (s->n || s->store_node || n->w->restore)
        return;
    for (uint32_t i = t->first_storage; i < t->first_cleaf; i += k)
        c += n->nics[i].buffered;
    if (!c)
        return;
    /* every node, those that keep up too (always empty), as the fluid */
    c = (t->first_cleaf - t->first_storage + k - 1) / k;
    if (!(s->store_node = malloc(c * sizeof *s->store_node)))
        return; /* out of memory: the series without them */
    for (uint32_t i = t->first_storage; i < t->first_cleaf; i += k)
        s->store_node[s->n_store++] = i;
    s->has_cache = n->sc->storage.cache_bytes && n->sc->storage.media_bps &&
                   n->sc->storage.media_bps < n->sc->storage.drain_bps;
}

/* Sample s->n of the back ends at time at: each one's level, their written
 * payload and what is still to write. */
static void backends_sample(struct pnet *n, struct series *s, uint64_t at)
{
    uint64_t *lv = &s->ingest[(size_t)s->n * s->n_store], held = 0;
    for (uint32_t j = 0; j < s->n_store; j++) {
        lv[j] = ingest_at(&n->nics[s->store_node[j]], at);
        held += lv[j];
        const struct nic *b = &n->nics[s->store_node[j]];
        if (s->has_cache && s->cache) { /* the write cache's level, a stuck node's 0 */
            uint64_t l;
            double c = 0;
            if (b->cache_cap)
                store_levels_at(b, at > b->level_t ? at : b->level_t, &l, &c);
            s->cache[(size_t)s->n * s->n_store + j] = (uint64_t)c;
        }
    }
    uint64_t in = n->bytes_delivered - n->train_delivered;
    uint64_t wrote = in > held ? in - held : 0;
    uint64_t *sb = &s->seg_bytes[(size_t)s->n * SERIES_SEGS];
    if (s->n && wrote < sb[PATH_BACKEND - SERIES_SEGS])
        wrote = sb[PATH_BACKEND - SERIES_SEGS];
    sb[PATH_BACKEND] = wrote;
    uint64_t ck = n->res->ckpt_bytes;
    s->remaining[s->n] = ck > wrote ? ck - wrote : 0;
}

/* Called by sample() every telemetry.interval, after the flow samples, with
 * room for sample r->n_samples in r->sample_max_queue. */
void telemetry_sample(struct pnet *n)
{
    struct results *r = n->res;
    struct series *s = &r->series;
    const struct topo *t = n->topo;
    s->port_state = 1;
    backends_setup(n, s);
    if (s->full || series_reserve(s, t->n_ports) < 0) {
        s->full = 1; /* out of memory: keep the samples taken so far aligned */
        r->sample_max_queue[r->n_samples] = max_queue(n);
        return;
    }
    if (!s->cur && !(s->cur = calloc(t->n_ports, sizeof *s->cur))) {
        s->full = 1;
        r->sample_max_queue[r->n_samples] = max_queue(n);
        return;
    }
    uint64_t qmax = 0;
    uint64_t *sb = &s->seg_bytes[(size_t)s->n * SERIES_SEGS];
    uint32_t *sp = &s->seg_paused[(size_t)s->n * SERIES_SEGS];
    memset(sb, 0, SERIES_SEGS * sizeof *sb);
    memset(sp, 0, SERIES_SEGS * sizeof *sp);
    for (int g = 0; g < PATH_SETS && g < SERIES_SEGS; g++)
        sb[g] = n->seg_tx[g];
    /* one cache line of each port (queue, pause mask, kind, segment); an
     * entry only when its state changed: a port paused for a long time or
     * idle costs nothing */
    for (uint32_t i = 0; i < t->n_ports; i++) {
        const struct port *p = &n->ports[i];
        uint64_t q = p->is_host ? 0 : p->q_bytes;
        if (p->paused) {
            unsigned sg = p->seg < SERIES_SEGS ? p->seg : SERIES_SEGS - 1;
            sp[sg]++;
        }
        qmax = q > qmax ? q : qmax;
        uint32_t q32 = q > UINT32_MAX ? UINT32_MAX : (uint32_t)q;
        uint64_t st = (uint64_t)p->paused << 32 | q32;
        if (st != s->cur[i]) {
            s->cur[i] = st;
            s->ent[s->n_ent++] = (struct series_ent){i, p->paused, q32};
        }
    }
    uint32_t active = 0;
    for (uint32_t i = 0; i < n->n_flows; i++)
        active += n->flows[i].start_ps <= n->now &&
                  (!n->flows[i].done || n->flows[i].done_ps > n->now); /* a back end's */
    /* the checkpoint's bytes: training's deliveries are not part of it */
    uint64_t got = n->bytes_delivered - n->train_delivered;
    s->remaining[s->n] = r->ckpt_bytes > got ? r->ckpt_bytes - got : 0;
    s->active[s->n] = active;
    if (s->n_store)
        backends_sample(n, s, n->now);
    r->sample_max_queue[r->n_samples] = qmax;
    s->n++;
    s->off[s->n] = s->n_ent;
}

/* Room for sample k in the per-sample arrays, grown geometrically (a long
 * run's samples cost O(n), not O(n^2)); per flow only with telemetry.flows
 * (16 B per flow per sample). -1 and series.full set when memory runs
 * out: sampling stops and the run says so, never silently. */
int telemetry_sample_room(struct pnet *n, uint32_t k)
{
    struct results *r = n->res;
    uint32_t nf = n->sc->telemetry.flows ? n->n_flows : 0;
    if (k + 1 <= n->sample_cap)
        return 0;
    uint32_t c = n->sample_cap ? 2 * n->sample_cap : 64;
    double *t = realloc(r->sample_t, c * sizeof *t);
    if (t)
        r->sample_t = t;
    double *rate = nf ? realloc(r->sample_rate, (size_t)c * nf * sizeof *rate) : NULL;
    if (rate)
        r->sample_rate = rate;
    uint64_t *del = nf ? realloc(r->sample_delivered, (size_t)c * nf * sizeof *del) : NULL;
    if (del)
        r->sample_delivered = del;
    uint64_t *mq = realloc(r->sample_max_queue, c * sizeof *mq);
    if (mq)
        r->sample_max_queue = mq;
    uint8_t *ff = realloc(r->sample_ff, c);
    if (ff) { /* 0 unless a hybrid jump carried it */
        memset(ff + n->sample_cap, 0, c - n->sample_cap);
        r->sample_ff = ff;
    }
    if (!t || !mq || !ff || (nf && (!rate || !del))) {
        r->series.full = 1;
        return -1;
    }
    n->sample_cap = c;
    return 0;
}

/* After the last event, the back ends still write what they hold while
 * nothing else moves: the samples go on, from the state at the end, up to
 * the first that finds every draining back end empty (as sampling through
 * those instants would have found them). */
static void backends_after(struct pnet *n, struct results *r)
{
    struct series *s = &r->series;
    uint64_t iv = n->sc->telemetry.interval_ps;
    if (!s->n_store || !s->n || s->full || !iv || s->n != r->n_samples || !s->cur)
        return;
    uint32_t nf = r->n_sample_flows;
    for (;;) {
        uint32_t i = s->n;
        int busy = 0;
        for (uint32_t j = 0; j < s->n_store; j++) {
            const struct nic *b = &n->nics[s->store_node[j]];
            busy |= b->drain_bps && s->ingest[(size_t)(i - 1) * s->n_store + j] > 0;
        }
        if (!busy)
            return;
        uint64_t at = (uint64_t)(r->sample_t[i - 1] * (double)PS_PER_S + 0.5) + iv;
        if (telemetry_sample_room(n, i) < 0)
            return;
        if (series_reserve(s, n->topo->n_ports) < 0) {
            s->full = 1; /* out of memory: the run says so */
            return;
        }
        r->sample_t[i] = (double)at / (double)PS_PER_S;
        for (uint32_t k = 0; k < nf; k++) { /* every transfer has sent all */
            r->sample_rate[(size_t)i * nf + k] = 0;
            r->sample_delivered[(size_t)i * nf + k] = n->flows[k].recv;
        }
        uint64_t now = n->now;
        n->now = at; /* telemetry_sample's instant; put back below */
        telemetry_sample(n);
        n->now = now;
        r->n_samples = i + 1;
    }
}

static uint64_t port_paused_ps(const struct pnet *n, const struct port *p)
{
    uint64_t pp = p->paused_ps;
    for (unsigned m = p->paused; m; m &= m - 1)
        pp += n->now - p->pause_since[__builtin_ctz(m)];
    return pp;
}

/* Called at the end of collect(), once r->completion_s is known: bytes per
 * segment, the busiest link of each segment, the hottest ports, and what the
 * reports need to name ports. */
void telemetry_collect(struct pnet *n, struct results *r)
{
    const struct topo *t = n->topo;
    struct series *s = &r->series;
    backends_after(n, r);
    uint32_t k = n->sc->telemetry.hot_ports;
    if (k > SERIES_MAX_HOT)
        k = SERIES_MAX_HOT;
    r->has_link_stats = 1;
    for (uint32_t i = 0; i < t->n_ports; i++) {
        const struct port *p = &n->ports[i];
        unsigned sg = p->seg < SERIES_SEGS ? p->seg : SERIES_SEGS - 1;
        r->seg_tx_bytes[sg] += p->tx_bytes;
        if (path_is_fwd_link((int)sg) && p->tx_pkts && p->bps) {
            /* a packet link is at capacity exactly while it serialises */
            double full = (double)p->tx_bytes * 8.0 / (double)p->bps;
            double busy = (double)(p->last_tx_t - p->first_tx_t) / (double)PS_PER_S;
            double util = r->completion_s > 0 ? full / r->completion_s : 0;
            if (util > r->link_util_max[sg])
                r->link_util_max[sg] = util;
            if (full > r->link_full_max_s[sg])
                r->link_full_max_s[sg] = full;
            if (busy > r->link_busy_max_s[sg])
                r->link_busy_max_s[sg] = busy;
        }
        /* top k switch ports by peak queue, kept sorted (k <= 64) */
        if (p->is_host || !p->max_q_bytes)
            continue;
        uint32_t j = s->n_hot;
        if (j == k && s->hot[k - 1].max_queue >= p->max_q_bytes)
            continue;
        if (j == k)
            j--;
        else
            s->n_hot++;
        while (j > 0 && s->hot[j - 1].max_queue < p->max_q_bytes) {
            s->hot[j] = s->hot[j - 1];
            j--;
        }
        s->hot[j] = (struct hot_port){i, p->node, t->ports[p->peer].node, p->seg,
                                      p->max_q_bytes,
                                      (double)port_paused_ps(n, p) / (double)PS_PER_S};
    }
    s->n_ports = t->n_ports;
    s->first_storage = t->first_storage;
    s->first_cleaf = t->first_cleaf;
    s->first_sleaf = t->first_sleaf;
    s->first_spine = t->first_spine;
    s->first_super = t->first_super; /* 0 without super-spines */
    series_names(s, t); /* out of memory: names by kind and index */
    if (s->n) {
        s->port_node = malloc(t->n_ports * sizeof *s->port_node);
        s->port_peer = malloc(t->n_ports * sizeof *s->port_peer);
        s->port_seg = malloc(t->n_ports);
        for (uint32_t i = 0; s->port_node && s->port_peer && s->port_seg && i < t->n_ports;
             i++) {
            s->port_node[i] = t->ports[i].node;
            s->port_peer[i] = t->ports[t->ports[i].peer].node;
            s->port_seg[i] = (uint8_t)t->ports[i].seg;
        }
    }
}

void telemetry_progress(struct pnet *n)
{
    telemetry_progress_of(n, n->events, n->bytes_delivered);
}

void telemetry_progress_of(struct pnet *n, uint64_t events, uint64_t delivered)
{
    const struct ckpt_progress *pr = n->res->progress;
    struct ckpt_progress_info info = {(double)n->now / (double)PS_PER_S,
                                      delivered, n->res->ckpt_bytes, events};
    pr->fn(pr->ud, &info);
    if (pr->stop && *pr->stop)
        n->interrupted = 1;
}
