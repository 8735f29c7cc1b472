/* The packet engine's event loop, set-up and the results it reports. */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE (Linux) */
#include "engine.h"

#include <sys/mman.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "../core/rng.h"
#include "../core/units.h"
#include "../stats/bound.h"
#include "../stats/training.h"
#include "capture.h"
#include "pnet.h"

/* count zeroed elements of *p's type from the arena, the first on a cache
 * line (one more is allocated for the slack) */
static void *aligned_calloc(struct pnet *n, size_t count, size_t size)
{
    char *m = arena_calloc(&n->arena, count + 1, size);
    return m ? m + (64 - (uintptr_t)m % 64) % 64 : NULL;
}
#define ALIGNED_CALLOC(n, count, p) aligned_calloc((n), (count), sizeof *(p))

struct pkt_chunk *pnet_chunk_alloc(struct pnet *n)
{
    if (!n->free_chunks) {
        struct pkt_chunk *slab = aligned_alloc(PKT_SLAB_BYTES, PKT_SLAB_BYTES);
        if (!slab) {
            n->oom = 1;
            return NULL;
        }
#ifdef MADV_HUGEPAGE
        madvise(slab, PKT_SLAB_BYTES, MADV_HUGEPAGE);
#endif
        /* the first chunk links the slabs for release */
        slab[0].next = n->slabs;
        n->slabs = slab;
        for (size_t i = PKT_SLAB_CHUNKS; i >= 1; i--)
            pnet_chunk_free(n, &slab[i]);
        n->pkts_allocated += PKT_SLAB_CHUNKS * PKT_CHUNK;
        n->slab_bytes += PKT_SLAB_BYTES;
    }
    struct pkt_chunk *c = n->free_chunks;
    n->free_chunks = c->next;
    return c;
}

void pnet_release_slabs(struct pnet *n)
{
    while (n->slabs) {
        struct pkt_chunk *next = n->slabs->next;
        free(n->slabs);
        n->slabs = next;
    }
    n->free_chunks = NULL;
}

void pnet_scenario_flags(struct pnet *n)
{
    const struct scenario *sc = n->sc;
    n->cnp_prio = (uint8_t)sc->transport.cnp_priority;
    n->strict = sc->fabric.scheduling == SCHED_STRICT;
    n->lb_adaptive = lb_scheme(sc->fabric.load_balancing)->tracks_load;
    n->lb_ecmp = lb_scheme(sc->fabric.load_balancing)->hash_only;
    n->ecn = sc->fabric.ecn != 0;
    n->rx = receiver_of(sc->transport.receiver);
}

void pnet_bare(struct pnet *n, const struct scenario *sc)
{
    memset(n, 0, sizeof *n);
    n->sc = sc;
    pnet_scenario_flags(n);
    evq_init(&n->q);
    n->pseq = &n->pseq_bare;
    n->part = n->port_part = n->part_bare;
}

static int parse_weights(const char *s, int32_t w[NPRIO])
{
    for (int i = 0; i < NPRIO; i++) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 1000 || (i < NPRIO - 1 ? *end != ',' : *end))
            return -1;
        w[i] = (int32_t)v;
        s = end + 1;
    }
    return 0;
}

/* Priorities, DSCPs and DWRR weights; scenario_validate (run by setup)
 * has refused malformed lists and clashing classes. */
static int setup_classes(struct pnet *n, struct err *e)
{
    const struct scenario *sc = n->sc;
    int mask = scenario_prio_mask(sc->fabric.pfc_priorities);
    n->lossless = sc->fabric.pfc ? (uint8_t)mask : 0;
    for (int d = 0; d < 64; d++)
        n->dscp_prio[d] = (uint8_t)(d >> 3); /* class selectors by default */
    n->dscp_prio[sc->transport.data_dscp] = (uint8_t)sc->transport.data_priority;
    n->dscp_prio[sc->transport.cnp_dscp] = (uint8_t)sc->transport.cnp_priority;
    if (n->tr) /* its own class (logical) or the checkpoint's (none) */
        n->dscp_prio[n->tr->dscp] = n->tr->prio;
    int32_t w[NPRIO];
    if (mask < 0 || parse_weights(sc->fabric.dwrr_weights, w) < 0)
        return err_set(e, "internal: packet engine given an unvalidated scenario");
    for (int i = 0; i < NPRIO; i++)
        n->dwrr_quantum[i] = w[i] * (int32_t)n->mtu_wire;
    n->tp = transport_of(sc->transport.cc);
    if (!n->tp)
        return err_set(e, "internal: no transport for transport.cc %d", (int)sc->transport.cc);
    pnet_scenario_flags(n);
    if (!n->rx)
        return err_set(e, "internal: no receiver for transport.receiver %d",
                       sc->transport.receiver);
    return 0;
}

/* A switch's latency: spines' (and super-spines') or leaves'. */
static uint64_t switch_latency_ps(const struct topo *t, const struct scenario *sc, uint32_t node)
{
    return node >= t->first_spine ? sc->fabric.spine_latency_ps : sc->fabric.leaf_latency_ps;
}

uint64_t pkt_cnp_direct_ps(const struct topo *t, const struct scenario *sc, uint32_t from,
                           uint32_t to, uint16_t sport)
{
    uint64_t wire = (uint64_t)CNP_PAYLOAD + ROCE_OVERHEAD, lat = 0;
    uint32_t path[TOPO_MAX_HOPS];
    uint32_t hops = topo_path(t, from, to, sport, path, TOPO_MAX_HOPS);
    for (uint32_t k = 0; k < hops; k++) {
        const struct tport *p = &t->ports[path[k]];
        lat += p->delay_ps + wire * 8 * UINT64_C(1000000000000) / p->bps;
        if (k) /* the switch it leaves */
            lat += switch_latency_ps(t, sc, p->node);
    }
    return lat;
}

/* transport.dcqcn.cnp_path direct: each flow's CNP latency, once. */
static int setup_cnp_direct(struct pnet *n, struct err *e)
{
    const struct scenario *sc = n->sc;
    if (!scenario_cnp_direct(sc))
        return 0;
    uint32_t nf = n->n_flows + n->n_train;
    n->cnp_lat = arena_calloc(&n->arena, (size_t)nf + 1, sizeof *n->cnp_lat);
    if (!n->cnp_lat)
        return err_set(e, "out of memory setting up the packet engine");
    for (uint32_t i = 0; i < nf; i++) {
        const struct flow *f = &n->flows[i];
        n->cnp_lat[i] = pkt_cnp_direct_ps(n->topo, sc, f->dst, f->src, f->sport);
    }
    return 0;
}

/* The transport's side table, when its row asks (transport.h): nothing is
 * allocated, and the per-packet branches stay on a NULL pointer, otherwise. */
static int setup_side(struct pnet *n, size_t flows, struct err *e)
{
    uint32_t win = n->tp->side_window;
    if (!n->tp->side)
        return 0;
    if (win == 0 || (win & (win - 1)) || win > (1u << 20))
        return err_set(e, "internal: transport side_window %u is not a power of 2 up to 2^20",
                       win);
    n->side = arena_calloc(&n->arena, flows * win, sizeof *n->side);
    if (!n->side)
        return err_set(e, "out of memory for the transport's side table (%zu flows x %u "
                          "packets)", flows, win);
    n->side_mask = win - 1;
    return 0;
}

static int setup(struct pnet *n, const struct scenario *sc, const struct topo *t,
                 const struct workload *w, const struct transport_ops *tp, struct err *e)
{
    memset(n, 0, sizeof *n);
    n->sc = sc;
    n->topo = t;
    n->w = w;
    n->first_tx_ps = UINT64_MAX;
    evq_init(&n->q);
    arena_init(&n->arena);
    n->tr = w->train && w->train->on && w->train->on_fabric ? w->train : NULL;
    n->n_train = n->tr ? n->tr->n : 0;
    n->train_bit = n->tr ? (uint8_t)(1u << n->tr->prio) : 0;
    n->train_own_class = n->tr && n->tr->isolation == ISO_LOGICAL;
    train_clock_init(&n->tc, n->tr);
    if (w->n == 0)
        train_clock_ckpt_end(&n->tc, 0); /* no checkpoint (tests) */
    if (scenario_validate(sc, e) < 0) /* what the engine's model needs */
        return -1;
    if (t->n_ports >= PKT_MAX_PORTS) /* a packet names its ingress port in 24 bits */
        return err_set(e, PKT_PORTS_MSG, PKT_MAX_PORTS - 1, t->n_ports);
    /* cache-line aligned: a port's hot fields share its first lines */
    n->ports = ALIGNED_CALLOC(n, t->n_ports, n->ports);
    n->sws = ALIGNED_CALLOC(n, t->n_switches, n->sws);
    n->nics = ALIGNED_CALLOC(n, t->first_cleaf, n->nics);
    n->flows = ALIGNED_CALLOC(n, (size_t)w->n + n->n_train + 1, n->flows);
    n->qhist = arena_calloc(&n->arena, (size_t)PATH_SETS * QHIST_BUCKETS, sizeof *n->qhist);
    n->mtu_wire = (uint64_t)sc->fabric.mtu + ROCE_OVERHEAD;
    n->part = arena_calloc(&n->arena, t->n_nodes, sizeof *n->part);
    n->port_part = arena_calloc(&n->arena, t->n_ports, sizeof *n->port_part);
    n->pseq = ALIGNED_CALLOC(n, (size_t)t->n_nodes + 1, n->pseq);
    n->cur = n->whole = t->n_nodes; /* set-up */
    if (!n->ports || !n->sws || !n->nics || !n->flows || !n->qhist || !n->part ||
        !n->port_part || !n->pseq)
        return err_set(e, "out of memory setting up the packet engine");
    for (uint32_t i = 0; i < t->n_ports; i++) {
        struct port *p = &n->ports[i];
        p->bps = t->ports[i].bps;
        p->delay_ps = t->ports[i].delay_ps;
        p->node = t->ports[i].node;
        p->peer = t->ports[i].peer;
        p->is_host = p->node < t->first_cleaf;
        p->seg = (uint8_t)t->ports[i].seg;
        /* ECN thresholds scale with link speed unless given (HPCC ns-3) */
        p->kmin = sc->fabric.ecn_kmin ? sc->fabric.ecn_kmin
                                      : (uint64_t)(100000.0 * (double)p->bps / 25e9);
        p->kmax = sc->fabric.ecn_kmax ? sc->fabric.ecn_kmax
                                      : (uint64_t)(400000.0 * (double)p->bps / 25e9);
        if (p->kmax <= p->kmin)
            p->kmax = p->kmin + 1;
        n->any_failed |= t->ports[i].failed != 0;
    }
    if (setup_classes(n, e) < 0)
        return -1;
    if (tp)
        n->tp = tp;
    if (setup_side(n, (size_t)w->n + n->n_train + 1, e) < 0)
        return -1;
    for (uint32_t s = 0; s < t->n_switches; s++) {
        int spine = t->first_cleaf + s >= t->first_spine;
        n->sws[s].buffer = spine ? sc->fabric.spine_buffer : sc->fabric.leaf_buffer;
        n->sws[s].latency_ps = switch_latency_ps(t, sc, t->first_cleaf + s);
        n->sws[s].seed = t->ecmp_seed[s]; /* shared with the fluid engine */
        rng_init(&n->sws[s].ecn_rng, sc->seed, RNG_ECN + ((uint64_t)s + 1) * 256);
    }
    for (uint32_t i = 0; i < t->n_nodes; i++)
        n->part[i] = i >= t->first_storage && i < t->first_cleaf
                         ? workload_store_owner(t, sc, i) : i;
    for (uint32_t i = 0; i < t->n_ports; i++)
        n->port_part[i] = n->part[t->ports[i].node];
    for (uint32_t i = 0; i < t->n_ports; i++)
        n->ports[i].peer_part = n->port_part[t->ports[i].peer];
    n->n_flows = w->n;
    n->n_writers = w->n_writers;
    for (uint32_t i = 0; i < w->n; i++) {
        struct flow *f = &n->flows[i];
        const struct transfer *x = &w->xfers[i];
        f->id = i;
        f->src = x->src;
        f->dst = x->dst;
        f->sport = x->sport;
        f->writer = x->writer;
        f->bytes = x->bytes;
        f->start_ps = x->start_ps;
        f->cap_bps = x->rate_bps;
        /* an explicit priority travels as its class-selector DSCP (8 x prio) */
        f->prio = x->prio ? (uint8_t)(x->prio - 1) : (uint8_t)sc->transport.data_priority;
        f->dscp = x->prio ? (uint8_t)(8 * (x->prio - 1)) : (uint8_t)sc->transport.data_dscp;
    }
    for (uint32_t k = 0; k < n->n_train; k++) {
        struct flow *f = &n->flows[w->n + k];
        const struct train_flow *x = &n->tr->flows[k];
        f->id = w->n + k;
        f->src = x->src;
        f->dst = x->dst;
        f->sport = x->sport;
        f->writer = UINT32_MAX;
        f->bytes = x->bytes;
        f->prio = n->tr->prio;
        f->dscp = n->tr->dscp;
        f->done = 1; /* until its first step */
    }
    for (uint32_t i = 0; i < w->n + n->n_train; i++) {
        struct flow *f = &n->flows[i];
        const struct tnode *s = &t->nodes[f->src], *d = &t->nodes[f->dst];
        f->leaf = (struct flow_leaves){s->leaf, d->leaf, s->leaf_port, d->leaf_port,
                                       t->nodes[s->leaf].first_port};
    }
    if (mmu_setup(n, e) < 0 || nic_setup(n, e) < 0 || lb_setup(n, e) < 0 ||
        setup_cnp_direct(n, e) < 0 || nic_recovery_setup(n, e) < 0)
        return -1;
    if (n->tc.next_ps != UINT64_MAX &&
        pnet_schedule(n, n->tc.next_ps, EV_TRAIN_STEP, NULL, 0) < 0)
        return err_set(e, "out of memory scheduling training");
    n->after_send = n->recover || n->side || n->tp->may_send;
    for (uint32_t i = 0; i < w->n; i++)
        if (pnet_schedule(n, n->flows[i].start_ps, EV_FLOW_START,
                          &n->flows[i], 0) < 0)
            return err_set(e, "out of memory scheduling flows");
    return 0;
}

/* Telemetry: every flow's sending rate and delivered bytes. Stops once
 * every flow is done, so it never keeps the run alive. */
static void sample(struct pnet *n)
{
    struct results *r = n->res;
    uint32_t k = r->n_samples, nf = n->sc->telemetry.flows ? n->n_flows : 0;
    if (telemetry_sample_room(n, k) < 0)
        return;
    r->sample_t[k] = (double)n->now / (double)PS_PER_S;
    for (uint32_t i = 0; i < nf; i++) {
        const struct flow *f = &n->flows[i];
        double v = 0;
        if (f->active)
            v = n->tp->rate(n, f);
        if (f->active && f->cap_bps && (double)f->cap_bps < v)
            v = (double)f->cap_bps;
        r->sample_rate[(size_t)k * nf + i] = v;
        r->sample_delivered[(size_t)k * nf + i] = f->recv;
    }
    telemetry_sample(n); /* also sets sample_max_queue[k] */
    r->n_samples = k + 1;
    r->n_sample_flows = nf;
    if (n->flows_done < n->n_flows || n->tc.next_ps != UINT64_MAX)
        pnet_schedule(n, n->now + n->sc->telemetry.interval_ps, EV_SAMPLE, NULL, 0);
}

static inline __attribute__((always_inline)) void dispatch(struct pnet *n, const struct event *ev)
{
    switch ((enum ev_type)EV_KIND(ev->type)) {
    case EV_TX_DONE:
        port_on_tx_done(n, ev->obj);
        break;
    case EV_RX:
        port_on_rx(n, ev->obj);
        break;
    case EV_WAKE:
        port_on_wake(n, ev->obj, ev->arg);
        break;
    case EV_PAUSE:
        pfc_on_frame(n, ev->obj, ev->arg);
        break;
    case EV_PAUSE_END:
        pfc_on_pause_end(n, ev->obj, ev->arg);
        break;
    case EV_PFC_REFRESH:
        pfc_on_refresh(n, ev->obj, ev->arg);
        break;
    case EV_WATCHDOG:
        pfc_on_watchdog(n, ev->obj, ev->arg);
        break;
    case EV_SAMPLE:
        sample(n);
        break;
    case EV_CC_TIMER:
        n->tp->on_timer(n, ev->obj, ev->arg);
        break;
    case EV_DRAIN:
        nic_on_drain(n, ev->obj, ev->arg);
        break;
    case EV_FLOW_START:
        nic_flow_start(n, ev->obj);
        break;
    case EV_TRAIN_STEP:
        nic_train_step(n);
        break;
    case EV_CNP:
        nic_on_cnp(n, ev->obj, ev->arg);
        break;
    case EV_RTO:
        nic_on_rto(n, ev->obj, ev->arg);
        break;
    }
}

/* Run one event: the clock, the counters, its partition (pnet.h). */
static inline __attribute__((always_inline)) void run_event(struct pnet *n, const struct event *ev,
                                                            uint32_t part)
{
    n->now = ev->t;
    n->events++;
    if (!(n->events & 0xffff) && n->res && n->res->progress && !n->outbox_on)
        telemetry_progress(n);
    n->cur = part;
    dispatch(n, ev);
}

/* One queue in (time, tie key) order. */
static void loop_time(struct pnet *n)
{
    struct event ev;
    while (!n->interrupted && !n->oom && evq_pop(&n->q, &ev)) {
        if (ev.t < n->now)
            n->time_went_back = 1;
        if (ev.t > n->time_limit_ps) {
            n->time_limit_hit = 1; /* loop() judges it */
            break;
        }
        run_event(n, &ev, EV_PART(ev.type));
    }
}

static int grow_events(struct pnet *n, struct event **a, size_t *cap)
{
    size_t c = *cap ? 2 * *cap : 256;
    struct event *e = realloc(*a, c * sizeof *e);
    if (!e) {
        n->oom = 1;
        return -1;
    }
    *a = e;
    *cap = c;
    return 0;
}

int pnet_outbox(struct pnet *n, uint64_t t, uint64_t seq, uint32_t type, void *obj, uint32_t arg)
{
    if (EV_PART(type) == n->whole && t < n->instant_t)
        n->instant_t = t; /* thread 0's: it runs the instants */
    unsigned d = n->owner[EV_PART(type)], k = n->obk;
    if (d == n->team_id)
        return pnet_push(n, t, seq, type, obj, arg);
    if (n->obn[k][d] == n->obcap[k][d] && grow_events(n, &n->ob[k][d], &n->obcap[k][d]) < 0)
        return -1;
    n->ob[k][d][n->obn[k][d]++] = (struct event){t, seq, obj, type, arg};
    n->ob_min[k] = t < n->ob_min[k] ? t : n->ob_min[k];
    return 0;
}

/* The running partition's own events inside the window: appended to a FIFO
 * when not before its last, else into a binary heap. */
int pnet_schedule_near(struct pnet *n, uint64_t t, uint64_t seq, uint32_t type, void *obj,
                       uint32_t arg)
{
    uint32_t c = n->cur;
    struct event e = {t, seq, obj, type, arg};
    if (EV_PART(type) != c) {
        /* another partition may already have run past t: the lookahead is
         * broken, the run is reported wrong (engine.c collect) */
        n->lookahead_bad++;
        return n->outbox_on ? pnet_outbox(n, t, e.seq, type, obj, arg)
                            : pnet_push(n, t, e.seq, type, obj, arg);
    }
    if (n->wfn == n->wfh || !evq_before(&e, &n->wf[n->wfn - 1])) {
        if (n->wfn == n->wfcap && grow_events(n, &n->wf, &n->wfcap) < 0)
            return -1;
        n->wf[n->wfn++] = e;
        return 0;
    }
    if (n->whn == n->whcap && grow_events(n, &n->wh, &n->whcap) < 0)
        return -1;
    size_t i = n->whn++;
    while (i && evq_before(&e, &n->wh[(i - 1) / 2])) {
        n->wh[i] = n->wh[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    n->wh[i] = e;
    return 0;
}

/* The earliest of the partition's own events, or NULL. */
static inline const struct event *near_first(const struct pnet *n)
{
    const struct event *f = n->wfh < n->wfn ? &n->wf[n->wfh] : NULL;
    if (n->whn && (!f || evq_before(&n->wh[0], f)))
        return n->wh;
    return f;
}

static struct event heap_pop(struct pnet *n)
{
    struct event top = n->wh[0], last = n->wh[--n->whn];
    size_t i = 0, m = n->whn;
    for (size_t c; (c = 2 * i + 1) < m; i = c) {
        if (c + 1 < m && evq_before(&n->wh[c + 1], &n->wh[c]))
            c++;
        if (!evq_before(&n->wh[c], &last))
            break;
        n->wh[i] = n->wh[c];
    }
    if (m)
        n->wh[i] = last;
    return top;
}

/* Window-by-window order. A window is at most the smallest link delay long,
 * so nothing one partition does inside it reaches another before it ends:
 * each partition's events of the window run together, in (time, key) order,
 * and the results are those of loop_time (tested), with each switch's state
 * kept in cache while it runs. Events of the whole fabric (samples, training
 * steps) end a window; their instant runs in plain (time, key) order.
 * reverse runs a window's partitions in the opposite order (tests). */
struct window {
    struct event *ev;
    uint32_t *next;                   /* the partition's next event in ev */
    size_t n, cap;
    uint32_t *head, *tail, *touched;  /* per partition */
};

/* Room for one more event. */
static int window_grow(struct pnet *n, struct window *w);

static inline int window_room(struct pnet *n, struct window *w)
{
    return w->n < w->cap ? 0 : window_grow(n, w);
}

static int window_grow(struct pnet *n, struct window *w)
{
    size_t cap = w->cap ? 2 * w->cap : 4096;
    struct event *e = realloc(w->ev, cap * sizeof *e);
    if (e)
        w->ev = e;
    uint32_t *x = e ? realloc(w->next, cap * sizeof *x) : NULL;
    if (!x) {
        n->oom = 1;
        return -1;
    }
    w->next = x;
    w->cap = cap;
    return 0;
}

/* Each partition's events of the window as a list, in (time, key) order;
 * returns how many partitions have some. */
static uint32_t window_lists(struct window *w)
{
    uint32_t nt = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        uint32_t p = EV_PART(w->ev[i].type);
        w->next[i] = UINT32_MAX;
        if (w->head[p] == UINT32_MAX) {
            w->head[p] = i;
            w->touched[nt++] = p;
        } else {
            w->next[w->tail[p]] = i;
        }
        w->tail[p] = i;
    }
    return nt;
}

static void push_back(struct pnet *n, const struct event *e)
{
    pnet_push(n, e->t, e->seq, e->type, e->obj, e->arg);
}

/* Partition p's events of the window and those it schedules for itself
 * within it; returns the time of its last one. */
static uint64_t window_part(struct pnet *n, struct window *w, uint32_t p, uint64_t start)
{
    uint32_t i = w->head[p];
    uint64_t last = start, ran = 0;
    w->head[p] = UINT32_MAX;
    n->cur = p;
    for (;;) {
        struct event ev;
        const struct event *f = near_first(n);
        if (f && (i == UINT32_MAX || evq_before(f, &w->ev[i]))) {
            if (f == n->wh) {
                ev = heap_pop(n);
            } else {
                ev = *f;
                if (++n->wfh == n->wfn)
                    n->wfh = n->wfn = 0;
            }
        } else if (i != UINT32_MAX) {
            ev = w->ev[i];
            i = w->next[i];
        } else {
            break;
        }
        if (ev.t > n->time_limit_ps) {
            n->time_limit_hit = 1;
            continue;
        }
        if (ev.t < last)
            n->time_went_back = 1;
        last = ev.t;
        n->now = ev.t;
        dispatch(n, &ev);
        ran++;
        if (n->oom)
            break;
    }
    /* counted per partition, not per event; progress as run_event's (two
     * threads: at their meeting, with both threads' counts) */
    if ((n->events & ~UINT64_C(0xffff)) != ((n->events + ran) & ~UINT64_C(0xffff)) && n->res &&
        n->res->progress && !n->outbox_on) {
        n->events += ran;
        telemetry_progress(n);
    } else {
        n->events += ran;
    }
    return last;
}

/* Every event at time t, in (time, key) order: the instant of an event of
 * the whole fabric (a sample, a training step), which may touch any
 * partition. */
static void run_instant(struct pnet *n, uint64_t t)
{
    struct event ev;
    while (!n->oom && evq_pop_before(&n->q, t + 1, &ev))
        run_event(n, &ev, EV_PART(ev.type));
}

static int window_init(struct pnet *n, struct window *w)
{
    uint32_t np = n->whole + 1;
    memset(w, 0, sizeof *w);
    w->head = malloc(np * sizeof *w->head);
    w->tail = malloc(np * sizeof *w->tail);
    w->touched = malloc(np * sizeof *w->touched);
    if (!w->head || !w->tail || !w->touched || window_room(n, w) < 0) {
        n->oom = 1;
        return -1;
    }
    memset(w->head, 0xff, np * sizeof *w->head);
    return 0;
}

static void window_free(struct window *w)
{
    free(w->ev);
    free(w->next);
    free(w->head);
    free(w->tail);
    free(w->touched);
}

/* One window from start: takes n's events before wend (an event of the
 * whole fabric ends it before its instant) and runs each partition's.
 * Returns the time of the last event run; w->n = 0 when there was none. */
static uint64_t window_run(struct pnet *n, struct window *w, uint64_t start, uint64_t wend,
                           int reverse)
{
    w->n = 0;
    /* in bulk from the wheel up to the earliest far event, which is popped */
    while (window_room(n, w) == 0) {
        uint64_t lim = n->q.nfar && n->q.far_min.t < wend ? n->q.far_min.t : wend;
        int cut = evq_take_before(&n->q, lim, w->ev, &w->n, w->cap, UINT32_C(0xffffff) << 7,
                                  n->whole << 7);
        if (!cut && w->n == w->cap)
            continue; /* room for more */
        if (!cut && lim < wend) {
            if (!evq_pop_before(&n->q, wend, &w->ev[w->n]))
                break;
            cut = EV_PART(w->ev[w->n].type) == n->whole;
            if (cut)
                push_back(n, &w->ev[w->n]);
            else
                w->n++;
        }
        if (cut) {
            /* an event of the whole fabric: what is at its instant goes back */
            wend = evq_peek_t(&n->q);
            while (w->n && w->ev[w->n - 1].t == wend)
                push_back(n, &w->ev[--w->n]);
            break;
        }
        if (lim == wend)
            break;
    }
    uint64_t tmax = 0;
    if (n->oom || !w->n)
        return tmax;
    uint32_t nt = window_lists(w);
    n->wend = wend;
    for (uint32_t k = 0; k < nt; k++) {
        uint32_t p = w->touched[reverse ? nt - 1 - k : k];
        if (k + 1 < nt) {
            /* the next partition's first port, while this one runs: a
             * NIC's lines are out of cache between its few events */
            uint32_t q = w->touched[reverse ? nt - 2 - k : k + 1];
            const struct event *e = &w->ev[w->head[q]];
            uint32_t kind = EV_KIND(e->type);
            if (q < n->whole && is_switch_node(n, q)) { /* its buffer counters */
                __builtin_prefetch(pnet_sw(n, q));
                __builtin_prefetch((const char *)pnet_sw(n, q) + 64);
            }
            if (kind < EV_PORT_KINDS_END) { /* its object is a port */
                const char *o = e->obj;
                __builtin_prefetch(o);
                __builtin_prefetch(o + 64);
                __builtin_prefetch(o + 128);
                __builtin_prefetch(o + 192);
            }
        }
        uint64_t last = n->oom ? 0 : window_part(n, w, p, start);
        w->head[p] = UINT32_MAX;
        tmax = last > tmax ? last : tmax;
    }
    n->wend = 0;
    return tmax;
}

static void loop_window(struct pnet *n, uint64_t span, int reverse)
{
    struct window w;
    uint64_t tmax = n->now;
    if (window_init(n, &w) == 0) {
        while (!n->interrupted && !n->oom && !n->time_limit_hit) {
            uint64_t start = evq_peek_t(&n->q);
            if (start == UINT64_MAX)
                break;
            if (start > n->time_limit_ps) {
                n->time_limit_hit = 1;
                break;
            }
            uint64_t last = window_run(n, &w, start, start + span, reverse);
            if (!w.n) { /* the instant of an event of the whole fabric */
                run_instant(n, start);
                last = start;
            }
            tmax = last > tmax ? last : tmax;
        }
    }
    n->now = tmax;
    window_free(&w);
}

/* Several threads (sim.threads: 2 to TEAM_MAX). Each owns a set of
 * partitions (loop_team): their events wait in its own queue, and it runs
 * them on its own copy of the pnet (clock, queues, counters, packet chunks).
 * An event for another thread's partitions, always a window or more ahead,
 * goes to an outbox for that thread, which drains it after the window. Per
 * window: the threads agree on its start (the earliest of their next
 * events), run their partitions, and meet again. Each partition writes only
 * its own state (ports, switch, NIC, its end of a flow and of a wire), so the
 * results are those of one thread (tests/test_order.c). */
struct team {
    struct pnet wk[TEAM_MAX];
    pthread_t th[TEAM_MAX];
    unsigned k;                       /* threads */
    uint64_t span, limit;
    int reverse;
    _Atomic uint64_t arrived[TEAM_MAX]; /* barrier rounds each thread reached */
    /* by round parity (one may publish the next round's while another
     * still reads this one): */
    uint8_t stop[2][TEAM_MAX];        /* each thread's out of memory or stop */
    uint64_t instant[2];              /* thread 0's next whole-fabric event */
    uint64_t next_t[2][TEAM_MAX];     /* each thread's next event */
    uint64_t events[2][TEAM_MAX], delivered[2][TEAM_MAX]; /* each's counts (progress) */
    uint64_t reported;                /* events at the last progress call */
    uint64_t tmax[TEAM_MAX];
    _Atomic int go;                   /* 1: all threads started; -1: one could not */
};

static void team_barrier(struct team *tm, unsigned id, uint64_t round)
{
    atomic_store_explicit(&tm->arrived[id], round, memory_order_release);
    for (unsigned j = 0; j < tm->k; j++)
        for (unsigned s = 0;
             j != id && atomic_load_explicit(&tm->arrived[j], memory_order_acquire) < round; s++)
            if (s > (1u << 14))
                sched_yield(); /* that thread lost its core, or shares ours */
}

/* Thread b's counters into thread a's copy (b waiting): a sample reads the
 * run's totals. */
static void team_fold(struct pnet *a, struct pnet *b)
{
    for (size_t k = 0; k < sizeof a->sums / sizeof a->sums[0]; k++)
        a->sums[k] += b->sums[k], b->sums[k] = 0;
    a->first_tx_ps = b->first_tx_ps < a->first_tx_ps ? b->first_tx_ps : a->first_tx_ps;
    a->last_rx_ps = b->last_rx_ps > a->last_rx_ps ? b->last_rx_ps : a->last_rx_ps;
}

/* Every event at time t in the threads' queues, in tie-key order, on
 * thread 0's copy (its pushes go to the owners' queues or the outboxes). */
static void team_instant(struct team *tm, uint64_t t)
{
    struct pnet *a = &tm->wk[0];
    struct event e[TEAM_MAX];
    int has[TEAM_MAX];
    for (unsigned j = 1; j < tm->k; j++)
        team_fold(a, &tm->wk[j]);
    a->instant_t = UINT64_MAX;
    for (unsigned j = 0; j < tm->k; j++)
        has[j] = evq_pop_before(&tm->wk[j].q, t + 1, &e[j]);
    for (;;) {
        int m = -1;
        for (unsigned j = 0; j < tm->k; j++)
            if (has[j] && (m < 0 || e[j].seq < e[m].seq))
                m = (int)j;
        if (m < 0)
            break;
        struct event ev = e[m];
        has[m] = evq_pop_before(&tm->wk[m].q, t + 1, &e[m]);
        run_event(a, &ev, EV_PART(ev.type));
    }
}

static void team_work(struct team *tm, unsigned id)
{
    struct pnet *n = &tm->wk[id];
    struct window w;
    window_init(n, &w); /* out of memory: stops all at the next meeting */
    uint64_t round = 0, tmax = 0;
    for (;;) {
        /* one meeting a window: each tells its next event and the earliest
         * it sent to others; the outboxes alternate, so each drains the
         * others' last ones while they fill the next */
        uint64_t mine = evq_peek_t(&n->q);
        unsigned k = n->obk;
        uint64_t *next = tm->next_t[++round & 1];
        uint8_t *stop = tm->stop[round & 1];
        next[id] = mine < n->ob_min[k] ? mine : n->ob_min[k];
        stop[id] = (uint8_t)(n->oom | n->interrupted);
        if (id == 0)
            tm->instant[round & 1] = n->instant_t;
        tm->events[round & 1][id] = n->events;
        tm->delivered[round & 1][id] = n->bytes_delivered;
        team_barrier(tm, id, round);
        uint64_t start = UINT64_MAX;
        int halt = 0;
        for (unsigned j = 0; j < tm->k; j++) {
            start = next[j] < start ? next[j] : start;
            halt |= stop[j];
        }
        if (id == 0 && n->res && n->res->progress) {
            /* once every 2^16 events of the run, as on one thread */
            uint64_t ev = 0, dl = 0;
            for (unsigned j = 0; j < tm->k; j++)
                ev += tm->events[round & 1][j], dl += tm->delivered[round & 1][j];
            if (ev >> 16 > tm->reported >> 16) {
                tm->reported = ev;
                telemetry_progress_of(n, ev, dl);
            }
        }
        uint64_t instant = tm->instant[round & 1];
        for (unsigned j = 0; j < tm->k; j++) {
            struct pnet *o = &tm->wk[j];
            if (j == id)
                continue;
            for (size_t i = 0; i < o->obn[k][id]; i++) {
                const struct event *e = &o->ob[k][id][i];
                pnet_push(n, e->t, e->seq, e->type, e->obj, e->arg);
            }
            o->obn[k][id] = 0; /* ours to reset: its owner fills the other parity */
        }
        n->ob_min[k] = UINT64_MAX;
        n->obk ^= 1;
        if (start == UINT64_MAX || halt) /* all decide alike */
            break;
        if (start > tm->limit) {
            n->time_limit_hit = 1;
            break;
        }
        if (start == instant) {
            /* a whole-fabric event's instant: once all have drained their
             * outboxes, thread 0 runs it alone while the others wait */
            team_barrier(tm, id, ++round);
            if (id == 0)
                team_instant(tm, start);
            team_barrier(tm, id, ++round);
            tmax = start > tmax ? start : tmax;
            continue;
        }
        uint64_t wend = start + tm->span < instant ? start + tm->span : instant;
        uint64_t last = n->oom ? 0 : window_run(n, &w, start, wend, tm->reverse);
        tmax = last > tmax ? last : tmax;
    }
    tm->tmax[id] = tmax;
    window_free(&w);
}

struct team_arg {
    struct team *tm;
    unsigned id;
};

static void *team_thread(void *arg)
{
    struct team_arg *a = arg;
    int go;
    while (!(go = atomic_load(&a->tm->go)))
        sched_yield();
    if (go > 0)
        team_work(a->tm, a->id);
    return NULL;
}

/* Thread id's copy of n: thread 0's starts with the run's counters (a
 * sample reads them there), the others' from zero. */
static int team_copy(struct pnet *n, struct pnet *c, unsigned id)
{
    *c = *n;
    if (id) {
        memset(c->sums, 0, sizeof c->sums);
        c->first_tx_ps = UINT64_MAX;
        c->last_rx_ps = 0;
    }
    evq_init(&c->q);
    c->instant_t = UINT64_MAX;
    c->wh = c->wf = NULL;
    c->whn = c->whcap = c->wfh = c->wfn = c->wfcap = 0;
    memset(c->ob, 0, sizeof c->ob);
    memset(c->obn, 0, sizeof c->obn);
    memset(c->obcap, 0, sizeof c->obcap);
    c->ob_min[0] = c->ob_min[1] = UINT64_MAX;
    c->obk = 0;
    c->outbox_on = 1;
    c->team_id = (uint8_t)id;
    c->res = id ? NULL : n->res; /* samples and progress: thread 0 */
    c->slabs = NULL;
    c->free_chunks = id == 0 ? n->free_chunks : NULL;
    c->qhist = calloc((size_t)PATH_SETS * QHIST_BUCKETS, sizeof *c->qhist);
    return c->qhist ? 0 : -1;
}

static void loop_team(struct pnet *n, uint64_t span, int reverse, unsigned nthreads)
{
    struct team *tm = aligned_alloc(64, (sizeof *tm + 63) / 64 * 64);
    if (!tm) {
        n->oom = 1;
        return;
    }
    memset(tm, 0, sizeof *tm);
    tm->k = nthreads;
    tm->span = span;
    tm->limit = n->time_limit_ps;
    tm->reverse = reverse;
    /* a leaf, its hosts and storage nodes on one thread (a packet crosses
     * between threads at most going up and coming down); leaves and
     * spines take the threads in turn */
    uint8_t *owner = calloc((size_t)n->whole + 1, 1);
    for (uint32_t p = 0; owner && p < n->whole; p++)
        owner[p] = (uint8_t)((n->topo->nodes[p].kind >= NODE_LEAF ? p : n->topo->nodes[p].leaf) %
                             nthreads);
    n->owner = owner;
    int ok = owner != NULL;
    for (unsigned j = 0; ok && j < nthreads; j++)
        ok = team_copy(n, &tm->wk[j], j) == 0;
    n->free_chunks = NULL;
    /* the set-up's events to their owners */
    struct event ev;
    while (ok && evq_pop(&n->q, &ev)) {
        struct pnet *c = &tm->wk[n->owner[EV_PART(ev.type)]];
        if (EV_PART(ev.type) == n->whole && ev.t < c->instant_t)
            c->instant_t = ev.t;
        if (evq_push_seq(&c->q, ev.t, ev.seq, ev.type, ev.obj, ev.arg) < 0)
            ok = 0;
    }
    struct team_arg args[TEAM_MAX];
    unsigned started = 1;
    for (; ok && started < nthreads; started++) {
        args[started] = (struct team_arg){tm, started};
        if (pthread_create(&tm->th[started], NULL, team_thread, &args[started]) != 0)
            break;
    }
    /* the threads start together, or none runs (one could not start) */
    atomic_store(&tm->go, ok && started == nthreads ? 1 : -1);
    if (ok && started == nthreads)
        team_work(tm, 0);
    else
        n->oom = 1;
    for (unsigned j = 1; j < started; j++)
        pthread_join(tm->th[j], NULL);
    for (unsigned j = 1; j < nthreads; j++)
        team_fold(&tm->wk[0], &tm->wk[j]);
    memcpy(n->sums, tm->wk[0].sums, sizeof n->sums);
    n->first_tx_ps = tm->wk[0].first_tx_ps;
    n->last_rx_ps = tm->wk[0].last_rx_ps;
    n->sample_cap = tm->wk[0].sample_cap;
    for (unsigned i = 0; i < nthreads; i++) {
        struct pnet *c = &tm->wk[i];
        n->interrupted |= c->interrupted;
        n->oom |= c->oom;
        n->time_limit_hit |= c->time_limit_hit;
        n->time_went_back |= c->time_went_back;
        for (size_t k = 0; c->qhist && k < (size_t)PATH_SETS * QHIST_BUCKETS; k++)
            n->qhist[k] += c->qhist[k];
        while (c->slabs) {
            struct pkt_chunk *next = c->slabs->next;
            c->slabs->next = n->slabs;
            n->slabs = c->slabs;
            c->slabs = next;
        }
        n->now = tm->tmax[i] > n->now ? tm->tmax[i] : n->now;
        free(c->qhist);
        free(c->wh);
        free(c->wf);
        for (int k = 0; k < 2; k++)
            for (unsigned j = 0; j < TEAM_MAX; j++)
                free(c->ob[k][j]);
        evq_release(&c->q);
    }
    free(owner);
    n->owner = NULL;
    free(tm);
}

/* The window: the smallest link delay; 0 (or capture, whose file is in time
 * order, or training, whose steps may start within it) runs in time order. */
static uint64_t window_span(const struct pnet *n)
{
    if (n->cap || n->tr || n->sc->sim.event_order == ORDER_TIME)
        return 0;
    uint64_t d = UINT64_MAX;
    for (uint32_t i = 0; i < n->topo->n_ports; i++)
        d = n->ports[i].delay_ps < d ? n->ports[i].delay_ps : d;
    return d == UINT64_MAX ? 0 : d;
}

static void loop(struct pnet *n)
{
    uint64_t span = window_span(n);
    n->res->event_order = span ? ORDER_WINDOW : ORDER_TIME;
    int reverse = n->sc->sim.event_order == ORDER_WINDOW_REVERSE;
    unsigned threads = span && n->sc->sim.threads > 1 ? n->sc->sim.threads : 1;
    threads = threads > TEAM_MAX ? TEAM_MAX : threads;
    n->res->threads = threads;
    if (threads > 1)
        loop_team(n, span, reverse, threads);
    else if (span)
        loop_window(n, span, reverse);
    else
        loop_time(n);
    /* Events past the limit once every transfer and training step is done
     * are leftovers of no consequence (a superseded pacing wake-up at a
     * low DCQCN rate, a timer of an idle queue pair): the run ended at its
     * last event. Otherwise it stopped at the limit. */
    if (n->time_limit_hit) {
        if (n->flows_done == n->n_flows && n->tc.next_ps == UINT64_MAX && !n->tc.left)
            n->time_limit_hit = 0;
        else
            n->now = n->time_limit_ps;
    }
    free(n->wh);
    free(n->wf);
    n->wh = n->wf = NULL;
    n->whn = n->whcap = n->wfh = n->wfn = n->wfcap = 0;
}

static double ps_to_s(uint64_t ps);

/* Spread of the checkpoint's bytes over uplinks and spines, and how many
 * uplinks each flow used. */
static void lb_collect(struct pnet *n, struct results *r)
{
    const struct topo *t = n->topo;
    double *bytes = malloc(t->n_ports * sizeof *bytes);
    for (uint32_t p = 0; bytes && p < t->n_ports; p++)
        bytes[p] = (double)n->ports[p].tx_bytes;
    if (bytes)
        balance_compute(r, t, bytes);
    free(bytes);
    double paths = 0;
    uint32_t maxp = 0, cnt = 0;
    for (uint32_t i = 0; i < n->n_flows; i++) {
        if (!n->flows[i].uplinks)
            continue;
        uint32_t c = (uint32_t)__builtin_popcountll(n->flows[i].uplinks);
        paths += c;
        maxp = c > maxp ? c : maxp;
        cnt++;
    }
    r->lb_paths_mean = cnt ? paths / cnt : 0;
    r->lb_paths_max = maxp;
}

static double ps_to_s(uint64_t ps)
{
    return (double)ps / (double)PS_PER_S;
}

/* Payload of a data packet still in the fabric, and training's part. */
static void in_flight_add(const struct pnet *n, const struct packet *k, uint64_t *all,
                          uint64_t *train)
{
    if (k->kind != PK_DATA)
        return;
    *all += k->payload;
    *train += pnet_is_train(n, k->flow) ? k->payload : 0;
}

/* Training: its figures, and its bytes conserved on their own (the totals
 * cover both classes; the checkpoint's are the difference). */
static void collect_training(struct pnet *n, struct results *r, uint64_t in_flight,
                             uint64_t victim)
{
    if (!n->tr)
        return; /* physical isolation: ckpt_run fills the baseline steps */
    train_results(r, n->tr, &n->tc, n->flows_done == n->n_flows ? n->last_rx_ps : n->now);
    r->training.victim_paused_s = ps_to_s(victim);
    uint64_t out = n->train_sent + n->train_retx;
    uint64_t acc = n->train_delivered + n->train_dropped + n->train_discarded + in_flight;
    if (out != acc)
        results_violate(r, "training bytes not conserved: sent %llu + resent %llu != delivered + "
                           "dropped + discarded + in flight %llu",
                        (unsigned long long)n->train_sent, (unsigned long long)n->train_retx,
                        (unsigned long long)acc);
    if (!n->interrupted && !n->time_limit_hit && (n->tc.next_ps != UINT64_MAX || n->tc.left))
        results_violate(r, "training stopped at step %u of its run (time limit or a stuck step)",
                        n->tc.step);
    /* the checkpoint's own figures, without training's bytes */
    r->bytes_sent -= n->train_sent;
    r->bytes_delivered -= n->train_delivered;
    r->bytes_dropped -= n->train_dropped;
    r->bytes_in_flight -= in_flight;
    r->retx_bytes -= n->train_retx;
    r->discarded_bytes -= n->train_discarded;
}

static void collect(struct pnet *n, struct results *r)
{
    const struct topo *t = n->topo;
    uint64_t in_flight = 0, max_q = 0, max_buf = 0, paused = 0, max_paused = 0;
    uint64_t pause_rx = 0, max_hdrm = 0, max_shared = 0, onto_failed = 0;
    uint64_t train_in_flight = 0, victim = 0;
    if (n->sc->telemetry.ports) {
        r->n_ports = t->n_ports;
        r->ports = calloc(t->n_ports, sizeof *r->ports);
    }
    for (uint32_t i = 0; i < t->n_ports; i++) {
        struct port *p = &n->ports[i];
        if (t->ports[i].failed)
            onto_failed += p->drops + p->tx_pkts; /* switch.c drops them all */
        for (int q = 0; q < NPRIO; q++)
            PKTQ_FOR_EACH(&p->q[q], k, in_flight_add(n, k, &in_flight, &train_in_flight))
        struct pktq wire = wire_view(n, p);
        PKTQ_FOR_EACH(&wire, k, in_flight_add(n, k, &in_flight, &train_in_flight))
        if (p->state == PORT_BUSY)
            in_flight_add(n, &p->tx, &in_flight, &train_in_flight);
        victim_note(n, p);
        victim += p->victim_ps;
        r->training.seg_bytes[p->seg] += p->train_tx_bytes;
        if (p->max_q_bytes > max_q)
            max_q = p->max_q_bytes;
        uint64_t pp = p->paused_ps;
        for (unsigned m = p->paused; m; m &= m - 1)
            pp += n->now - p->pause_since[__builtin_ctz(m)];
        paused += pp;
        if (pp > max_paused)
            max_paused = pp;
        uint64_t prx = p->pause_rx + n->ports[p->peer].implicit_rx;
        pause_rx += prx;
        if (p->max_hdrm > max_hdrm)
            max_hdrm = p->max_hdrm;
        if (p->max_shared > max_shared)
            max_shared = p->max_shared;
        if (p->max_q_bytes > r->seg_queue_max[p->seg])
            r->seg_queue_max[p->seg] = p->max_q_bytes;
        r->seg_paused_s[p->seg] += ps_to_s(pp);
        port_qhist_flush(n, p);
        if (r->ports)
            r->ports[i] = (struct port_result){
                p->node, p->peer, p->seg, p->tx_bytes, p->max_q_bytes, p->max_hdrm,
                p->max_shared, p->pause_tx, prx, p->ecn_marked, p->drops,
                ps_to_s(pp),
                p->pause_tx ? (double)p->xoff_shared_sum / (double)p->pause_tx : 0,
                p->tx_pkts ? ps_to_s(p->last_tx_t - p->first_tx_t) : 0,
                ps_to_s(p->paused_at_last_tx)};
    }
    for (int sg = 0; sg < PATH_SETS; sg++) {
        const uint64_t *h = &n->qhist[(size_t)sg * QHIST_BUCKETS];
        double total = 0, acc = 0;
        for (unsigned b = 0; b < QHIST_BUCKETS; b++)
            total += (double)h[b];
        for (unsigned b = 0; b < QHIST_BUCKETS && total > 0; b++) {
            acc += (double)h[b];
            if (acc >= 0.99 * total) {
                r->seg_queue_p99[sg] = qhist_bucket_floor(b);
                break;
            }
        }
    }
    r->cc = n->tp->cc;
    r->drops_lossless = n->drops_lossless;
    r->drops_lossy = n->drops_lossy;
    r->drops_watchdog = n->drops_watchdog;
    r->refresh_frames = n->refresh_frames;
    r->pause_frames_rx = pause_rx;
    r->pfc_storms = n->storms;
    r->ecn_marked = n->ecn_marked;
    r->cnps_sent = n->cnps_sent;
    r->cnps_received = n->cnps_rx;
    r->max_headroom_bytes = max_hdrm;
    r->max_shared_pg_bytes = max_shared;
    r->min_rate_bps = 0;
    r->lb = n->sc->fabric.load_balancing;
    r->retx_bytes = n->retx_bytes;
    r->discarded_bytes = n->discarded_bytes;
    r->reordered = n->reordered;
    r->naks = n->naks_sent;
    r->loss_recovery = n->recover;
    r->timeouts = n->timeouts;
    r->retx_packets = n->retx_pkts;
    r->rc_acks = n->rc_acks;
    r->sack_naks = n->sr_naks;
    r->qp_errors = n->qp_errors;
    r->acks = n->acks;
    r->window_stalls = n->window_stalls;
    r->packets_allocated = n->pkts_allocated;
    lb_collect(n, r);
    for (uint32_t i = 0; i < n->n_flows; i++) {
        const struct flow *f = &n->flows[i];
        r->rate_decreases += f->decreases;
        r->data_packets += (f->bytes + n->sc->fabric.mtu - 1) / n->sc->fabric.mtu;
        if (f->line_bps && (r->min_rate_bps == 0 || f->min_rate < r->min_rate_bps))
            r->min_rate_bps = f->min_rate;
    }
    int over_buffer = 0, over_pool = -1;
    r->n_buffer_pools = n->n_pools;
    memset(r->buffer_pool, 0, sizeof r->buffer_pool);
    for (unsigned pg = 0; pg < NPRIO; pg++)
        r->buffer_pool[n->pool_of[pg]].prio_mask |= (uint8_t)(1u << pg);
    for (uint32_t s = 0; s < t->n_switches; s++) {
        const struct sw *w = &n->sws[s];
        if (w->max_used > max_buf)
            max_buf = w->max_used;
        if (w->max_used > w->buffer)
            over_buffer = 1;
        for (unsigned k = 0; k < n->n_pools; k++) {
            double f = w->pool[k] ? (double)w->max_shared[k] / (double)w->pool[k] : 0;
            if (w->max_shared[k] > r->buffer_pool[k].max_used)
                r->buffer_pool[k].max_used = w->max_shared[k];
            if (f > r->buffer_pool[k].max_fraction)
                r->buffer_pool[k].max_fraction = f;
            /* a pool admits while it has room: at most one packet past it */
            if (w->max_shared[k] > w->pool[k] + n->mtu_wire)
                over_pool = (int)k;
        }
    }
    /* per writer: its first start to the end of its last transfer */
    struct writer_acc wa;
    writer_acc_init(&wa, n->n_writers);
    uint64_t bad_flows = 0;
    /* a transfer counts once its file is durable (fsync, metadata service) */
    uint64_t *done = malloc((n->n_flows ? n->n_flows : 1) * sizeof *done);
    for (uint32_t i = 0; done && i < n->n_flows; i++) {
        const struct flow *f = &n->flows[i];
        done[i] = f->done && f->recv == f->bytes ? f->done_ps : UINT64_MAX;
    }
    if (!done || workload_durable(n->w, n->sc, done) < 0)
        results_violate(r, "out of memory completing the files");
    for (uint32_t i = 0; done && i < n->n_flows; i++) {
        const struct flow *f = &n->flows[i];
        if (!f->done || f->recv != f->bytes) {
            bad_flows++;
            continue;
        }
        writer_acc_add(&wa, f->writer, f->start_ps, f->first_tx_ps, done[i]);
    }
    free(done);
    writer_acc_finish(&wa, r);
    r->engine = ENGINE_PACKET;
    r->has_packet_stats = 1;
    r->drops = n->drops_lossless + n->drops_lossy + n->drops_watchdog;
    r->pause_frames = n->pause_frames;
    r->resume_frames = n->resume_frames;
    r->paused_s = ps_to_s(paused);
    r->max_port_paused_s = ps_to_s(max_paused);
    r->max_queue_bytes = max_q;
    r->max_buffer_bytes = max_buf;
    r->packets_delivered = n->pkts_delivered;
    r->bytes_sent = n->bytes_sent;
    r->bytes_delivered = n->bytes_delivered;
    r->bytes_dropped = n->bytes_dropped;
    r->bytes_in_flight = in_flight;
    r->flows_done = n->flows_done;
    r->time_monotone = !n->time_went_back;
    r->events = n->events;
    r->max_pending_events = n->max_pending;
    r->mem_bytes = n->arena.total + evq_mem(&n->q) + n->slab_bytes;
    telemetry_collect(n, r);

    r->ok = 1;
    r->violation[0] = '\0';
    /* every byte put on a wire, first time or again, is accounted for */
    uint64_t out = n->bytes_sent + n->retx_bytes;
    uint64_t acc = n->bytes_delivered + n->bytes_dropped + n->discarded_bytes + in_flight;
    if (out != acc)
        results_violate(r, "bytes not conserved: sent %llu + resent %llu != delivered + dropped + "
                   "discarded by receivers + in flight %llu",
                (unsigned long long)n->bytes_sent, (unsigned long long)n->retx_bytes,
                (unsigned long long)acc);
    if (n->drops_lossless)
        results_violate(r, "%llu packets of lossless priorities dropped (PFC headroom exhausted)",
                (unsigned long long)n->drops_lossless);
    /* drops of a class that can drop are results, recovered by the
     * transport (timeouts, NAKs); the bytes must still arrive exactly once */
    if (n->drops_lossy && !n->recover)
        results_violate(r, "%llu packets dropped on a lossy priority the transport does not use",
                        (unsigned long long)n->drops_lossy);
    uint64_t got = 0;
    uint32_t over = 0;
    for (uint32_t i = 0; i < n->n_flows; i++) {
        got += n->flows[i].recv;
        over += n->flows[i].recv > n->flows[i].bytes;
    }
    if (over || got != n->bytes_delivered - n->train_delivered)
        results_violate(r, "bytes not delivered exactly once: %u transfers received more than "
                           "they sent, %llu B counted against %llu B received",
                        over, (unsigned long long)(n->bytes_delivered - n->train_delivered),
                        (unsigned long long)got);
    if (n->qp_errors)
        results_violate(r, "%llu transfers failed: %u retransmission timeouts in a row without "
                           "progress (transport.retry_count; the queue pair's error state)",
                        (unsigned long long)n->qp_errors, n->sc->transport.retry_count + 1);
    if (n->drops_watchdog)
        results_violate(r, "%llu packets dropped by the PFC watchdog",
                (unsigned long long)n->drops_watchdog);
    /* an interrupted run is partial, not wrong: unfinished transfers are
     * expected (finished = 0 says so) */
    r->interrupted = n->interrupted;
    if (bad_flows && !n->interrupted)
        results_violate(r, "%llu of %llu transfers did not complete", (unsigned long long)bad_flows,
                (unsigned long long)n->n_flows);
    if (n->time_went_back)
        results_violate(r, "time went backwards");
    if (n->lookahead_bad)
        results_violate(r, "%llu events reached another switch or NIC within a link delay "
                           "(sim.event_order: window needs every link's delay)",
                        (unsigned long long)n->lookahead_bad);
    if (onto_failed)
        results_violate(r, "%llu packets routed onto failed links", (unsigned long long)onto_failed);
    if (n->time_limit_hit)
        results_violate(r, "stopped at the time limit (%.6g s simulated; sim.time_limit) with "
                   "transfers unfinished: a pause storm, a stuck receiver or a deadlock",
                (double)n->time_limit_ps / 1e12);
    if (over_buffer)
        results_violate(r, "a switch buffer held %llu B, more than its %llu B",
                (unsigned long long)max_buf,
                (unsigned long long)n->sc->fabric.buffer_bytes);
    if (over_pool >= 0)
        results_violate(r, "buffer pool %d held %llu B of shared buffer, more than its size "
                        "and a packet", over_pool,
                        (unsigned long long)r->buffer_pool[over_pool].max_used);
    collect_training(n, r, train_in_flight, victim);
}

int pkt_run(const struct scenario *sc, const struct topo *t,
            const struct workload *w, struct results *r, struct err *e)
{
    return pkt_run_capture(sc, t, w, r, NULL, e);
}

static int run(const struct scenario *sc, const struct topo *t, const struct workload *w,
               struct results *r, struct ckpt_capture *cap, const struct transport_ops *tp,
               struct err *e);

int pkt_run_capture(const struct scenario *sc, const struct topo *t,
                    const struct workload *w, struct results *r,
                    struct ckpt_capture *cap, struct err *e)
{
    return run(sc, t, w, r, cap, NULL, e);
}

int pkt_run_transport(const struct scenario *sc, const struct topo *t,
                      const struct workload *w, struct results *r,
                      const struct transport_ops *tp, struct err *e)
{
    return run(sc, t, w, r, NULL, tp, e);
}

static int run(const struct scenario *sc, const struct topo *t, const struct workload *w,
               struct results *r, struct ckpt_capture *cap, const struct transport_ops *tp,
               struct err *e)
{
    struct pnet *n = aligned_alloc(64, (sizeof *n + 63) / 64 * 64);
    if (!n)
        return err_set(e, "out of memory");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = setup(n, sc, t, w, tp, e);
    if (rc == 0 && cap) {
        rc = capture_setup(cap, sc, t, e);
        n->cap = cap;
    }
    n->tx_watch = n->cap || (n->side && (n->tp->side & SIDE_INT));
    n->res = r;
    n->time_limit_ps = train_time_limit(w->train, sc, bound_time_limit_ps(sc, r->bound_s));
    /* where packets can drop, room for a few timeouts and their retries
     * (sim.time_limit given stands) */
    if (rc == 0 && n->recover && !sc->sim.time_limit_ps && n->time_limit_ps != UINT64_MAX) {
        uint64_t k = 4 * ((uint64_t)sc->transport.retry_count + 1);
        uint64_t more = n->rto_ps > UINT64_MAX / k ? UINT64_MAX : k * n->rto_ps;
        n->time_limit_ps = n->time_limit_ps < UINT64_MAX - more ? n->time_limit_ps + more
                                                                : UINT64_MAX;
    }
    if (rc == 0 && sc->telemetry.interval_ps)
        rc = pnet_schedule(n, 0, EV_SAMPLE, NULL, 0);
    if (rc == 0) {
        loop(n);
        /* a pause still refreshed would have kept its events coming until
         * the time limit */
        int held = 0;
        for (uint32_t i = 0; i < t->n_ports && !held; i++)
            held = n->ports[i].xoff_implicit != 0;
        if (held && !n->interrupted && !n->oom && !n->time_limit_hit &&
            n->time_limit_ps != UINT64_MAX) {
            n->time_limit_hit = 1;
            n->now = n->time_limit_ps;
        }
        pfc_settle_all(n);
        collect(n, r);
        if (cap)
            capture_finish(cap);
        /* not a result: the run is cut short, and what it counted is partial */
        if (n->oom)
            rc = err_set(e, "out of memory: the packet engine stopped at %.6g s simulated "
                            "holding %.0f MB (events and packets in flight); `ckptnet describe` "
                            "estimates what a run needs, the fluid engine needs far less",
                         ps_to_s(n->now), (double)r->mem_bytes / 1e6);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    train_clock_release(&n->tc);
    evq_release(&n->q);
    pnet_release_slabs(n);
    arena_release(&n->arena);
    free(n);
    return rc;
}
