/* The fluid engine's event loop: flow starts and completions, rates from the
 * incremental max-min solver, per-link accounting, invariants. */
#include "fluid.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/arena.h"
#include "../core/units.h"
#include "../stats/bound.h"
#include "maxmin.h"

#define BITS_PS 8e12 /* bytes * BITS_PS / bps = ps */
#define FULL_TOL 1e-9

struct fflow {
    double rem;       /* wire bytes still to send, as of t_upd */
    uint64_t t_upd;
    uint64_t wire;    /* wire bytes of the transfer */
    uint64_t finish;  /* last byte leaves the source at the current rate */
    uint64_t lat;     /* then reaches the destination this much later */
    uint64_t done;    /* last byte received */
    uint32_t hpos;    /* in the completion heap; UINT32_MAX = not */
    int state;        /* 0 waiting, 1 sending, 2 done */
};

struct flink {
    double bytes;     /* wire bytes carried, integrated up to t_upd */
    uint64_t t_upd, busy_ps, full_ps;
    uint64_t expect;  /* wire bytes of every flow that crosses it */
};

struct centry {
    uint64_t finish;  /* key kept in the heap itself: fewer cache misses */
    uint32_t id;
};

struct fnet {
    const struct scenario *sc;
    const struct topo *t;
    const struct workload *w;
    struct arena arena;
    struct mm mm;
    struct fflow *fl;
    struct flink *lk;
    uint32_t *order, next;   /* flows by (start, id); next to start */
    struct centry *ch;       /* completion heap on (finish, id) */
    uint32_t n_ch;
    uint64_t max_ch;
    uint64_t now, events;
    int time_went_back;
    uint64_t flows_done, bytes_sent, bytes_delivered;
};

/* ---- completion heap ---------------------------------------------------- */

static int ch_less(const struct centry *a, const struct centry *b)
{
    return a->finish < b->finish || (a->finish == b->finish && a->id < b->id);
}

static void ch_set(struct fnet *n, uint32_t i, struct centry c)
{
    n->ch[i] = c;
    n->fl[c.id].hpos = i;
}

static void ch_up(struct fnet *n, uint32_t i)
{
    struct centry c = n->ch[i];
    while (i > 0 && ch_less(&c, &n->ch[(i - 1) / 2])) {
        ch_set(n, i, n->ch[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    ch_set(n, i, c);
}

static void ch_down(struct fnet *n, uint32_t i)
{
    struct centry c = n->ch[i];
    for (;;) {
        uint32_t k = 2 * i + 1;
        if (k >= n->n_ch)
            break;
        if (k + 1 < n->n_ch && ch_less(&n->ch[k + 1], &n->ch[k]))
            k++;
        if (!ch_less(&n->ch[k], &c))
            break;
        ch_set(n, i, n->ch[k]);
        i = k;
    }
    ch_set(n, i, c);
}

static void ch_remove(struct fnet *n, uint32_t f)
{
    uint32_t i = n->fl[f].hpos;
    if (i == UINT32_MAX)
        return;
    n->fl[f].hpos = UINT32_MAX;
    struct centry last = n->ch[--n->n_ch];
    if (i == n->n_ch)
        return;
    ch_set(n, i, last);
    ch_up(n, i);
    ch_down(n, n->fl[last.id].hpos);
}

/* (Re)schedule f's completion at n->fl[f].finish. */
static void ch_put(struct fnet *n, uint32_t f)
{
    uint32_t i = n->fl[f].hpos;
    struct centry c = {n->fl[f].finish, f};
    if (i == UINT32_MAX) {
        ch_set(n, n->n_ch++, c);
        if (n->n_ch > n->max_ch)
            n->max_ch = n->n_ch;
        ch_up(n, n->n_ch - 1);
    } else {
        n->ch[i] = c;
        ch_up(n, i);
        ch_down(n, n->fl[f].hpos);
    }
}

/* ---- set-up ------------------------------------------------------------- */

/* Time from the last byte leaving the source to its arrival, for a flow paced
 * at rate bps: per hop propagation and switch latency, and the last packet's
 * serialisation on every later hop, where it may wait behind the packet
 * before it (store and forward, as in the packet engine). Exact for a flow
 * alone whose first hop is its bottleneck. */
static uint64_t flow_latency_ps(const struct topo *t, const struct scenario *sc,
                                const uint32_t *path, uint32_t np, uint64_t bytes,
                                uint64_t bps)
{
    uint32_t mtu = sc->fabric.mtu;
    uint64_t q = (bytes % mtu ? bytes % mtu : mtu) + ROCE_OVERHEAD;
    uint64_t p = bytes > mtu ? (uint64_t)mtu + ROCE_OVERHEAD : 0;
    /* departures from the current hop, counted from the previous packet's */
    uint64_t dp = 0, dq = units_ser_ps(q, bps), gap = dq;
    for (uint32_t k = 1; k < np; k++) {
        const struct tport *pk = &t->ports[path[k]];
        /* the switch this hop leaves: the packet engine's per-kind latency */
        uint64_t lat = pk->node >= t->first_spine ? sc->fabric.spine_latency_ps
                                                  : sc->fabric.leaf_latency_ps;
        uint64_t hop = t->ports[path[k - 1]].delay_ps + lat;
        uint64_t arrive = dq + hop;
        dp += hop + units_ser_ps(p, pk->bps);
        dq = (p && dp > arrive ? dp : arrive) + units_ser_ps(q, pk->bps);
    }
    return dq - gap + t->ports[path[np - 1]].delay_ps;
}

struct start_key {
    uint64_t t;
    uint32_t id;
};

static int cmp_start(const void *a, const void *b)
{
    const struct start_key *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int setup(struct fnet *n, const struct scenario *sc, const struct topo *t,
                 const struct workload *w, struct err *e)
{
    memset(n, 0, sizeof *n);
    n->sc = sc;
    n->t = t;
    n->w = w;
    arena_init(&n->arena);
    struct arena *a = &n->arena;
    uint32_t nf = w->n, nl = t->n_ports;
    n->fl = arena_calloc(a, nf ? nf : 1, sizeof *n->fl);
    n->lk = arena_calloc(a, nl, sizeof *n->lk);
    n->order = arena_calloc(a, nf ? nf : 1, sizeof *n->order);
    n->ch = arena_calloc(a, nf ? nf : 1, sizeof *n->ch);
    uint32_t *path_off = arena_calloc(a, (size_t)nf + 1, sizeof *path_off);
    uint32_t *path = arena_calloc(a, (size_t)(nf ? nf : 1) * TOPO_MAX_HOPS, sizeof *path);
    double *cap = arena_calloc(a, nl, sizeof *cap);
    double *fcap = arena_calloc(a, nf ? nf : 1, sizeof *fcap);
    struct start_key *keys = malloc((nf ? nf : 1) * sizeof *keys);
    if (!n->fl || !n->lk || !n->order || !n->ch || !path_off || !path || !cap ||
        !fcap || !keys) {
        free(keys);
        return err_set(e, "out of memory setting up the fluid engine");
    }
    for (uint32_t l = 0; l < nl; l++)
        cap[l] = (double)t->ports[l].bps;
    uint32_t np = 0;
    for (uint32_t i = 0; i < nf; i++) {
        const struct transfer *x = &w->xfers[i];
        struct fflow *f = &n->fl[i];
        uint32_t k = topo_path(t, x->src, x->dst, x->sport, path + np, TOPO_MAX_HOPS);
        if (k == 0) {
            free(keys);
            return err_set(e, "transfer %u: no path from node %u to node %u", i,
                           x->src, x->dst);
        }
        path_off[i] = np;
        f->wire = wire_bytes(x->bytes, sc->fabric.mtu);
        uint64_t pace = x->rate_bps ? x->rate_bps : UINT64_MAX;
        for (uint32_t j = 0; j < k; j++)
            if (t->ports[path[np + j]].bps < pace)
                pace = t->ports[path[np + j]].bps;
        f->lat = flow_latency_ps(t, sc, path + np, k, x->bytes, pace);
        f->hpos = UINT32_MAX;
        for (uint32_t j = 0; j < k; j++)
            n->lk[path[np + j]].expect += f->wire;
        np += k;
        /* the queue pair's cap paces what it puts on the wire */
        fcap[i] = x->rate_bps ? (double)x->rate_bps : INFINITY;
        keys[i] = (struct start_key){x->start_ps, i};
    }
    path_off[nf] = np;
    if (mm_init(&n->mm, a, nl, cap, nf, path_off, path, fcap) < 0) {
        free(keys);
        return err_set(e, "out of memory setting up the fluid engine");
    }
    qsort(keys, nf, sizeof *keys, cmp_start);
    for (uint32_t i = 0; i < nf; i++)
        n->order[i] = keys[i].id;
    free(keys);
    return 0;
}

/* ---- events ------------------------------------------------------------- */

static void flow_done(struct fnet *n, uint32_t i)
{
    struct fflow *f = &n->fl[i];
    f->state = 2;
    f->rem = 0;
    f->done = n->now + f->lat;
    n->flows_done++;
    n->bytes_delivered += n->w->xfers[i].bytes;
}

static void flow_start(struct fnet *n, uint32_t i)
{
    struct fflow *f = &n->fl[i];
    f->state = 1;
    f->t_upd = n->now;
    f->rem = (double)f->wire;
    n->bytes_sent += n->w->xfers[i].bytes;
    if (f->wire == 0)
        flow_done(n, i); /* an empty transfer takes no capacity */
    else
        mm_start(&n->mm, i);
}

/* After mm_update: bring the flows whose rate changed up to now at their old
 * rate and reschedule them; integrate the touched links' old load. */
static void apply_rates(struct fnet *n)
{
    struct mm *m = &n->mm;
    for (uint32_t k = 0; k < m->n_aff; k++) {
        uint32_t i = m->aff[k];
        const struct mm_flow *mf = &m->flows[i];
        struct fflow *f = &n->fl[i];
        if (mf->rate == mf->prev_rate && f->hpos != UINT32_MAX)
            continue; /* same rate: same finish, no round-off drift */
        f->rem -= mf->prev_rate * (double)(n->now - f->t_upd) / BITS_PS;
        if (f->rem < 0)
            f->rem = 0;
        f->t_upd = n->now;
        double d = mf->rate > 0 ? ceil(f->rem * BITS_PS / mf->rate) : INFINITY;
        if (d < (double)(UINT64_MAX - n->now) / 2) {
            f->finish = n->now + (uint64_t)d;
            ch_put(n, i);
        } else {
            ch_remove(n, i); /* no progress: left incomplete, reported */
        }
    }
    for (uint32_t k = 0; k < m->n_tl; k++) {
        uint32_t l = m->tl[k];
        struct flink *lk = &n->lk[l];
        uint64_t dt = n->now - lk->t_upd;
        double load = m->links[l].prev_load;
        lk->bytes += load * (double)dt / BITS_PS;
        if (load > 0)
            lk->busy_ps += dt;
        if (load >= m->links[l].cap * (1 - FULL_TOL))
            lk->full_ps += dt;
        lk->t_upd = n->now;
    }
}

static void loop(struct fnet *n)
{
    const struct workload *w = n->w;
    uint32_t nf = w->n;
    while (n->next < nf || n->n_ch) {
        uint64_t t = UINT64_MAX;
        if (n->next < nf)
            t = w->xfers[n->order[n->next]].start_ps;
        if (n->n_ch && n->ch[0].finish < t)
            t = n->ch[0].finish;
        if (t < n->now)
            n->time_went_back = 1;
        n->now = t;
        /* every completion and start at this picosecond, then one update */
        while (n->n_ch && n->ch[0].finish == t) {
            uint32_t i = n->ch[0].id;
            ch_remove(n, i);
            mm_stop(&n->mm, i);
            flow_done(n, i);
            n->events++;
        }
        while (n->next < nf && w->xfers[n->order[n->next]].start_ps == t) {
            flow_start(n, n->order[n->next++]);
            n->events++;
        }
        mm_update(&n->mm);
        apply_rates(n);
    }
}

/* ---- results ------------------------------------------------------------ */

static double ps_to_s(uint64_t ps)
{
    return (double)ps / (double)PS_PER_S;
}

__attribute__((format(printf, 2, 3)))
static void violate(struct results *r, const char *fmt, ...)
{
    r->ok = 0;
    size_t len = strlen(r->violation);
    if (len + 3 >= sizeof r->violation)
        return;
    if (len)
        len += (size_t)snprintf(r->violation + len, sizeof r->violation - len, "; ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->violation + len, sizeof r->violation - len, fmt, ap);
    va_end(ap);
}

static void collect(struct fnet *n, struct results *r)
{
    const struct topo *t = n->t;
    const struct workload *w = n->w;
    uint32_t nw = w->n_writers ? w->n_writers : 1;
    uint64_t *wstart = malloc(nw * sizeof *wstart), *wend = calloc(nw, sizeof *wend);
    double *wc = malloc(nw * sizeof *wc);
    uint64_t first = UINT64_MAX, last = 0, bad_flows = 0;
    uint32_t nwc = 0;
    for (uint32_t i = 0; wstart && i < nw; i++)
        wstart[i] = UINT64_MAX;
    for (uint32_t i = 0; i < w->n; i++) {
        const struct transfer *x = &w->xfers[i];
        const struct fflow *f = &n->fl[i];
        if (f->state != 2) {
            bad_flows++;
            continue;
        }
        if (x->start_ps < first)
            first = x->start_ps;
        if (f->done > last)
            last = f->done;
        if (wstart && wend && x->writer < nw) {
            if (x->start_ps < wstart[x->writer])
                wstart[x->writer] = x->start_ps;
            if (f->done > wend[x->writer])
                wend[x->writer] = f->done;
        }
    }
    for (uint32_t i = 0; wc && wstart && wend && i < w->n_writers; i++)
        if (wstart[i] != UINT64_MAX)
            wc[nwc++] = ps_to_s(wend[i] - wstart[i]);
    r->engine = "fluid";
    r->has_packet_stats = 0;
    r->writers = w->n_writers;
    r->completion_s = last > first && first != UINT64_MAX ? ps_to_s(last - first) : 0;
    if (wc) {
        r->writer_max_s = results_percentile(wc, nwc, 1.0);
        r->writer_p99_s = results_percentile(wc, nwc, 0.99);
        r->writer_p50_s = results_percentile(wc, nwc, 0.50);
    }
    free(wc);
    free(wstart);
    free(wend);

    /* links: settle what is still running (only when flows got stuck) */
    uint64_t worst_link = UINT32_MAX;
    double worst_err = 0;
    r->has_link_stats = 1;
    for (uint32_t l = 0; l < t->n_ports; l++) {
        struct flink *lk = &n->lk[l];
        double load = n->mm.links[l].load;
        lk->bytes += load * (double)(n->now - lk->t_upd) / BITS_PS;
        lk->t_upd = n->now;
        double err = fabs(lk->bytes - (double)lk->expect);
        if (err > 1e-6 * (double)lk->expect + 1 && err > worst_err) {
            worst_err = err;
            worst_link = l;
        }
        enum segment s = t->ports[l].seg;
        if (s >= RESULTS_SEGMENTS || !lk->expect)
            continue;
        double util = last > first ? lk->bytes * BITS_PS / (double)t->ports[l].bps /
                                         (double)(last - first)
                                   : 0;
        if (util > r->link_util_max[s])
            r->link_util_max[s] = util;
        if (ps_to_s(lk->busy_ps) > r->link_busy_max_s[s])
            r->link_busy_max_s[s] = ps_to_s(lk->busy_ps);
        if (ps_to_s(lk->full_ps) > r->link_full_max_s[s])
            r->link_full_max_s[s] = ps_to_s(lk->full_ps);
    }

    r->bytes_sent = n->bytes_sent;
    r->bytes_delivered = n->bytes_delivered;
    r->bytes_dropped = 0;
    r->bytes_in_flight = n->bytes_sent - n->bytes_delivered;
    r->flows_done = (uint32_t)n->flows_done;
    r->time_monotone = !n->time_went_back;
    r->events = n->events;
    r->max_pending_events = n->max_ch;
    r->rate_updates = n->mm.updates;
    r->rates_recomputed = n->mm.refilled;
    if (getenv("FLUID_DEBUG")) fprintf(stderr, "updates %llu rounds %llu full %llu refilled %llu\n", (unsigned long long)n->mm.updates, (unsigned long long)n->mm.rounds, (unsigned long long)n->mm.full_refills, (unsigned long long)n->mm.refilled);
    r->mem_bytes = n->arena.total;

    r->ok = 1;
    r->violation[0] = '\0';
    if (n->bytes_sent != n->bytes_delivered)
        violate(r, "bytes not conserved: sent %llu != delivered %llu",
                (unsigned long long)n->bytes_sent, (unsigned long long)n->bytes_delivered);
    if (worst_link != UINT32_MAX)
        violate(r, "link %llu carried %.0f wire bytes, its flows sent %llu",
                (unsigned long long)worst_link, n->lk[worst_link].bytes,
                (unsigned long long)n->lk[worst_link].expect);
    if (bad_flows)
        violate(r, "%llu of %llu transfers did not complete", (unsigned long long)bad_flows,
                (unsigned long long)w->n);
    if (n->time_went_back)
        violate(r, "time went backwards");
    if (n->mm.over_capacity)
        violate(r, "%llu link loads above capacity (worst by %.3g)",
                (unsigned long long)n->mm.over_capacity, n->mm.worst_excess);
}

int fluid_run(const struct scenario *sc, const struct topo *t,
              const struct workload *w, struct results *r, struct err *e)
{
    struct fnet *n = malloc(sizeof *n);
    if (!n)
        return err_set(e, "out of memory");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = setup(n, sc, t, w, e);
    if (rc == 0) {
        loop(n);
        collect(n, r);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    arena_release(&n->arena);
    free(n);
    return rc;
}
