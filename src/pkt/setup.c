/* The packet engine's set-up: the packet slabs, the pnet built from the
 * scenario, the topology and the workload (ports, switches, NICs, flows),
 * the traffic classes, the direct CNP latencies and the transport's side
 * table. */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE (Linux) */
#include "engine_int.h"

#include <sys/mman.h>

#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"
#include "engine.h"
#include "rccc.h"

/* count zeroed elements of *p's type from the arena, the first on a cache
 * line (one more is allocated for the slack) */
static void *aligned_calloc(struct pnet *n, size_t count, size_t size)
{
    char *m = arena_calloc(&n->arena, count + 1, size);
    return m ? m + (64 - (uintptr_t)m % 64) % 64 : NULL;
}
#define ALIGNED_CALLOC(n, count, p) aligned_calloc((n), (count), sizeof *(p))

/* Up to `want` chunks from the head of *from (of *count) onto n's list. */
static uint64_t chunks_move(struct pkt_chunk **from, uint64_t *count, struct pnet *n,
                            uint64_t want)
{
    uint64_t moved = 0;
    while (*from && moved < want) {
        struct pkt_chunk *c = *from;
        *from = c->next;
        pnet_chunk_free(n, c);
        moved++;
    }
    *count -= moved;
    return moved;
}

void pnet_chunk_share(struct pnet *n)
{
    if (!n->pool || n->n_free <= CHUNK_KEEP_MAX)
        return;
    /* the excess, cut from the head of n's list (each chunk moves once
     * per time it is freed) */
    uint64_t give = n->n_free - CHUNK_KEEP;
    struct pkt_chunk *first = n->free_chunks, *last = first;
    for (uint64_t i = 1; i < give; i++)
        last = last->next;
    n->free_chunks = last->next;
    n->n_free -= give;
    pthread_mutex_lock(&n->pool->lock);
    last->next = n->pool->head;
    n->pool->head = first;
    n->pool->n += give;
    pthread_mutex_unlock(&n->pool->lock);
}

struct pkt_chunk *pnet_chunk_alloc(struct pnet *n)
{
    if (!n->free_chunks && n->pool) {
        pthread_mutex_lock(&n->pool->lock);
        chunks_move(&n->pool->head, &n->pool->n, n, CHUNK_KEEP);
        pthread_mutex_unlock(&n->pool->lock);
    }
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
    n->n_free--;
    /* the next one's first line, which its first record is written to: a
     * chunk's first lines were read long before it was freed */
    if (n->free_chunks)
        ckpt_prefetch_w(n->free_chunks);
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
    n->n_free = 0;
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
    n->trim_at = UINT64_MAX; /* trimming: the receiver's set-up (recovery.c) */
    n->entropies = sc->transport.uec.entropies;
    n->reps = sc->transport.uec.lb == UEC_LB_REPS && n->entropies;
}

/* The packets' framing (transport.protocol): a data packet's, and the
 * protocol's own ACK and NACK where it has them (a control record carries
 * CNP_PAYLOAD: its overhead makes up the rest). */
static void pnet_framing(struct pnet *n)
{
    const struct proto_scheme *p = proto_scheme(n->sc->transport.protocol);
    struct wire_fmt wf = scenario_wire(n->sc);
    n->mtu = wf.payload;
    n->wire_overhead = wf.overhead;
    n->mtu_wire = wire_frame(wf);
    for (unsigned k = 0; k < sizeof n->kind_overhead / sizeof n->kind_overhead[0]; k++)
        n->kind_overhead[k] = wf.overhead;
    if (p->ack_wire)
        n->kind_overhead[PK_RCACK] = n->kind_overhead[PK_ACK] = p->ack_wire - CNP_PAYLOAD;
    if (p->nack_wire)
        n->kind_overhead[PK_NAK] = p->nack_wire - CNP_PAYLOAD;
}

void pnet_bare(struct pnet *n, const struct scenario *sc)
{
    memset(n, 0, sizeof *n);
    n->sc = sc;
    pnet_scenario_flags(n);
    pnet_framing(n);
    evq_init(&n->q);
    n->pseq = &n->pseq_bare;
    pnet_set_cur(n, 0);
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
    return pkt_ctrl_direct_ps(t, sc, from, to, sport, CNP_PAYLOAD + scenario_wire(sc).overhead,
                              NULL);
}

uint64_t pkt_ctrl_direct_ps(const struct topo *t, const struct scenario *sc, uint32_t from,
                            uint32_t to, uint16_t sport, uint64_t wire, uint64_t *gap)
{
    uint64_t lat = 0, slow = 0;
    uint32_t path[TOPO_MAX_HOPS];
    uint32_t hops = topo_path(t, from, to, sport, path, TOPO_MAX_HOPS);
    for (uint32_t k = 0; k < hops; k++) {
        const struct tport *p = &t->ports[path[k]];
        uint64_t ser = wire * 8 * UINT64_C(1000000000000) / p->bps;
        lat += topo_delay(t, p) + ser;
        slow = ser > slow ? ser : slow;
        if (k) /* the switch it leaves */
            lat += switch_latency_ps(t, sc, p->node);
    }
    if (gap)
        *gap = slow;
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

/* transport.ack_path direct: each flow's ACK latencies and spacings, once:
 * the protocol's ACK (NAKs too) and a bare header (TCP's pure ACK). */
static int setup_ack_direct(struct pnet *n, struct err *e)
{
    const struct scenario *sc = n->sc;
    if (!scenario_ack_direct(sc))
        return 0;
    uint32_t nf = n->n_flows + n->n_train;
    n->ack_lat = arena_calloc(&n->arena, 4 * (size_t)nf + 1, sizeof *n->ack_lat);
    if (!n->ack_lat)
        return err_set(e, "out of memory setting up the packet engine");
    for (uint32_t i = 0; i < nf; i++) {
        const struct flow *f = &n->flows[i];
        uint64_t *l = &n->ack_lat[4 * (size_t)i];
        l[0] = pkt_ctrl_direct_ps(n->topo, sc, f->dst, f->src, f->sport,
                                  pkt_ctl_wire(n, PK_RCACK), &l[2]);
        l[1] = pkt_ctrl_direct_ps(n->topo, sc, f->dst, f->src, f->sport, n->wire_overhead,
                                  &l[3]);
    }
    return 0;
}

/* The transport's side table, when its row asks (transport.h): nothing is
 * allocated, and the per-packet branches stay on a NULL pointer, otherwise. */
static int setup_side(struct pnet *n, size_t flows, struct err *e)
{
    if (!n->tp->side)
        return 0;
    uint32_t win = n->tp->side_window_of ? n->tp->side_window_of(n) : n->tp->side_window;
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

int pnet_setup(struct pnet *n, const struct scenario *sc, const struct topo *t,
               const struct workload *w, const struct transport_ops *tp, struct err *e)
{
    memset(n, 0, sizeof *n);
    n->sc = sc;
    n->topo = t;
    n->first_sw = t->first_cleaf;
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
    pnet_framing(n);
    n->part = arena_calloc(&n->arena, t->n_nodes, sizeof *n->part);
    n->port_part = arena_calloc(&n->arena, t->n_ports, sizeof *n->port_part);
    n->pseq = ALIGNED_CALLOC(n, (size_t)t->n_nodes + 1, n->pseq);
    n->whole = t->n_nodes;
    if (!n->ports || !n->sws || !n->nics || !n->flows || !n->qhist || !n->part ||
        !n->port_part || !n->pseq)
        return err_set(e, "out of memory setting up the packet engine");
    pnet_set_cur(n, n->whole); /* set-up */
    pnet_pseq_init(n->pseq, t->n_nodes + 1);
    uint64_t max_delay = 0;
    for (uint32_t i = 0; i < t->n_ports; i++) {
        struct port *p = &n->ports[i];
        p->bps = t->ports[i].bps;
        p->delay_ps = topo_delay(t, &t->ports[i]);
        if (p->delay_ps > max_delay)
            max_delay = p->delay_ps;
        p->node = p->rx_node = t->ports[i].node;
        p->peer = t->ports[i].peer;
        p->is_host = p->node < t->first_cleaf;
        p->seg = (uint8_t)t->ports[i].seg;
        /* ECN thresholds scale with link speed unless given: the
         * transport's row (a queueing delay at this speed), else HPCC
         * ns-3's per 25G */
        const struct cc_scheme *cs = cc_scheme(sc->transport.cc);
        p->kmin = sc->fabric.ecn_kmin ? sc->fabric.ecn_kmin
                  : cs->ecn_kmin_us   ? (uint64_t)(cs->ecn_kmin_us * 1e-6 * (double)p->bps / 8)
                                      : (uint64_t)(100000.0 * (double)p->bps / 25e9);
        p->kmax = sc->fabric.ecn_kmax ? sc->fabric.ecn_kmax
                  : cs->ecn_kmax_us   ? (uint64_t)(cs->ecn_kmax_us * 1e-6 * (double)p->bps / 8)
                                      : (uint64_t)(400000.0 * (double)p->bps / 25e9);
        /* DCTCP's switches mark every packet past K = kmin (a step) */
        if (sc->transport.cc == CC_DCTCP && !sc->fabric.ecn_kmax)
            p->kmax = p->kmin;
        if (p->kmax <= p->kmin)
            p->kmax = p->kmin + 1;
        n->any_failed |= t->ports[i].failed != 0;
    }
    /* arrivals and PFC frames go a link delay (and a serialisation) ahead:
     * on the wheel, not in the far heap, for links up to ~30 us */
    evq_horizon(&n->q, 2 * max_delay);
    pfc_setup(n);
    if (setup_classes(n, e) < 0)
        return -1;
    if (tp)
        n->tp = tp;
    for (uint32_t s = 0; s < t->n_switches; s++) {
        int spine = t->first_cleaf + s >= t->first_spine;
        n->sws[s].buffer = spine ? sc->fabric.spine_buffer : sc->fabric.leaf_buffer;
        n->sws[s].latency_ps = switch_latency_ps(t, sc, t->first_cleaf + s);
        n->sws[s].seed = t->ecmp_seed[s]; /* shared with the fluid engine */
        const struct tnode *sn = &t->nodes[t->first_cleaf + s];
        n->sws[s].first_port = sn->first_port;
        if (sn->nports > UINT16_MAX) {
            char nm[64];
            return err_set(e, "switch %s: %u ports, the packet engine takes at most %u",
                           topo_node_name(t, t->first_cleaf + s, nm, sizeof nm), sn->nports,
                           UINT16_MAX);
        }
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
        f->start_ps = workload_start(w, i);
        f->cap_bps = workload_rate(w, i);
        f->feed = workload_feed(w, i);
        if (f->feed) { /* forwards of one primary are consecutive */
            struct flow *pf = &n->flows[f->feed - 1];
            if (!pf->fwd_n)
                pf->fwd_first = i;
            pf->fwd_n++;
        }
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
    /* after the flows: a transport may size its table from them */
    if (setup_side(n, (size_t)w->n + n->n_train + 1, e) < 0)
        return -1;
    if (mmu_setup(n, e) < 0 || nic_setup(n, e) < 0 || lb_setup(n, e) < 0 ||
        setup_cnp_direct(n, e) < 0 || setup_ack_direct(n, e) < 0 ||
        nic_recovery_setup(n, e) < 0 || rccc_setup(n, e) < 0)
        return -1;
    if (n->tc.next_ps != UINT64_MAX &&
        pnet_schedule(n, n->tc.next_ps, EV_TRAIN_STEP, NULL, 0) < 0)
        return err_set(e, "out of memory scheduling training");
    n->after_send = n->recover || n->side || n->tp->may_send;
    nic_variants(n); /* last: it reads the flags above */
    for (uint32_t i = 0; i < w->n; i++)
        if (pnet_schedule(n, n->flows[i].start_ps, EV_FLOW_START,
                          &n->flows[i], 0) < 0)
            return err_set(e, "out of memory scheduling flows");
    return 0;
}
