/* Load balancing: the choice among equal-cost next hops, one small ops table
 * per scheme (fabric.load_balancing).
 *
 *  ecmp      hash of the 5-tuple with a per-switch seed (HPCC ns-3 style);
 *  wcmp      the same hash over next hops weighted by the capacity behind
 *            them (topo nh_weight), so a half-failed path gets half the flows;
 *  flowlet   a flow keeps its next hop while its packets come closer than the
 *            flowlet timeout; a new flowlet re-hashes with a new salt. The
 *            table is indexed by the 5-tuple hash: flows that share an entry
 *            share its state, as in hardware. The first flowlet uses the ECMP
 *            choice, so a timeout longer than any gap is ECMP exactly;
 *  adaptive  per flowlet or per packet, the next hop with the best quality
 *            band 0-7 = max(load band, queue band) (Broadcom DLB style), load
 *            from an EWMA of bytes sent, ties broken at random;
 *  spray     per packet, round robin or random.
 * Control packets (CNPs, NAKs) always follow ECMP.
 */
#include <math.h>
#include <stdlib.h>

#include "../scenario/lbscheme.h"
#include "pnet.h"

/* The packet engine's half of a scheme; the rest is its lb_schemes[] row. */
struct lb_ops {
    uint32_t (*pick)(struct pnet *n, struct sw *s, const struct route *r,
                     const struct flow *f, const struct packet *pk, uint64_t h);
};

static uint32_t ecmp_pick(struct pnet *n, struct sw *s, const struct route *r,
                          const struct flow *f, const struct packet *pk, uint64_t h)
{
    (void)s, (void)f, (void)pk;
    return n->topo->nh_ports[r->off + h % r->cnt];
}

static uint32_t wcmp_pick(struct pnet *n, struct sw *s, const struct route *r,
                          const struct flow *f, const struct packet *pk, uint64_t h)
{
    const struct topo *t = n->topo;
    if (!t->nh_weight)
        return ecmp_pick(n, s, r, f, pk, h);
    uint64_t total = 0;
    for (uint32_t i = 0; i < r->cnt; i++)
        total += t->nh_weight[r->off + i];
    if (!total)
        return ecmp_pick(n, s, r, f, pk, h);
    uint64_t x = h % total;
    for (uint32_t i = 0; i < r->cnt; i++) {
        uint32_t w = t->nh_weight[r->off + i];
        if (x < w)
            return t->nh_ports[r->off + i];
        x -= w;
    }
    return t->nh_ports[r->off + r->cnt - 1];
}

/* Quality band of an egress port: 0 best .. 7 worst. */
static unsigned band(struct pnet *n, struct port *p)
{
    double tau = (double)n->sc->fabric.lb_load_window_ps;
    p->load *= exp(-(double)(n->now - p->load_t) / tau);
    p->load_t = n->now;
    double util = p->load * 8e12 / ((double)p->bps * tau);
    unsigned lb = util >= 1.0 ? 7u : (unsigned)(util * 8.0);
    uint64_t qb = p->q_bytes / n->sc->fabric.lb_queue_step;
    unsigned qband = qb > 7 ? 7u : (unsigned)qb;
    return lb > qband ? lb : qband;
}

static uint32_t best_port(struct pnet *n, struct sw *s, const struct route *r)
{
    const struct topo *t = n->topo;
    unsigned best = 8, ties = 0;
    uint32_t choice = t->nh_ports[r->off];
    for (uint32_t i = 0; i < r->cnt; i++) {
        uint32_t pid = t->nh_ports[r->off + i];
        unsigned b = band(n, &n->ports[pid]);
        if (b < best) {
            best = b;
            ties = 1;
            choice = pid;
        } else if (b == best && rng_below(&s->lb_rng, ++ties) == 0) {
            choice = pid; /* reservoir: each tie equally likely */
        }
    }
    return choice;
}

static uint32_t flowlet_common(struct pnet *n, struct sw *s, const struct route *r,
                               const struct flow *f, uint64_t h, int adaptive)
{
    struct flowlet *e = &s->flowlets[h % n->sc->fabric.flowlet_table];
    int fresh = !e->tag || n->now - e->last > n->sc->fabric.flowlet_timeout_ps;
    /* an entry left by a flow toward other next hops is of no use */
    if (!fresh) {
        int valid = 0;
        for (uint32_t i = 0; i < r->cnt && !valid; i++)
            valid = n->topo->nh_ports[r->off + i] == e->port;
        fresh = !valid;
    }
    if (fresh) {
        e->epoch = e->tag == f->id + 1 ? e->epoch + 1 : 0;
        e->tag = f->id + 1;
        if (adaptive) {
            e->port = best_port(n, s, r);
        } else {
            uint64_t salted = e->epoch ? mix64(h ^ e->epoch) : h;
            e->port = n->topo->nh_ports[r->off + salted % r->cnt];
        }
    }
    e->last = n->now;
    return e->port;
}

static uint32_t flowlet_pick(struct pnet *n, struct sw *s, const struct route *r,
                             const struct flow *f, const struct packet *pk, uint64_t h)
{
    (void)pk;
    return flowlet_common(n, s, r, f, h, 0);
}

static uint32_t adaptive_pick(struct pnet *n, struct sw *s, const struct route *r,
                              const struct flow *f, const struct packet *pk, uint64_t h)
{
    (void)pk;
    if (n->sc->fabric.adaptive_per_packet)
        return best_port(n, s, r);
    return flowlet_common(n, s, r, f, h, 1);
}

static uint32_t spray_pick(struct pnet *n, struct sw *s, const struct route *r,
                           const struct flow *f, const struct packet *pk, uint64_t h)
{
    /* Round robin per flow: its packet number from an offset hashed per flow
     * and switch. One counter per switch made the choice hang on the order
     * of same-time arrivals (writers in lock-step each kept one uplink).
     * Past the first hop (three tiers) a switch sees every a-th packet of
     * the flow, a = the first hop's choices, so it counts in steps of a. */
    uint64_t i;
    if (n->entropies) { /* the sender's entropy value, hashed with the flow */
        uint64_t ev = pkt_entropy(n, pk);
        i = mix64(h ^ ev << 40 ^ ev) % r->cnt;
    } else if (n->sc->fabric.spray_random) {
        i = rng_below(&s->lb_rng, r->cnt);
    } else { /* data only: lb_pick routes CNPs and NAKs by hash */
        uint32_t a = 1;
        if (s != pnet_sw(n, f->leaf.src))
            a = topo_route(n->topo, f->leaf.src, f->leaf.dst)->cnt;
        i = (h + pk->psn / a) % r->cnt;
    }
    return n->topo->nh_ports[r->off + i];
}

static const struct lb_ops schemes[LB_COUNT] = {
    [LB_ECMP] = {ecmp_pick},
    [LB_WCMP] = {wcmp_pick},
    [LB_FLOWLET] = {flowlet_pick},
    [LB_ADAPTIVE] = {adaptive_pick},
    [LB_SPRAY] = {spray_pick},
};

/* uec entropies. Oblivious: a packet's entropy is its PSN's (mod the
 * entropies) shifted by the ev it carries: 0 on a first send, 128 more than
 * the NACKed copy's on a resend, the retry count after a timeout, so a
 * resend leaves the path that trimmed it. REPS (Bonato et al., 2024; UEC
 * 1.0's load balancing): the ev is the entropy itself; the sender recycles
 * the entropies whose ACKs came back unmarked, oldest first, and explores
 * (the PSN's entropy) when it has none; a marked or trimmed one is not
 * recycled, and a resend never takes the one that failed. */
static uint32_t reps_explore(struct pnet *n, const struct packet *pk, int failed)
{
    uint32_t ev = pk->psn % n->entropies;
    if ((int)ev == failed)
        ev = (ev + 1) % n->entropies;
    n->ev_explored++;
    return ev;
}

void lb_entropy_send(struct pnet *n, struct flow *f, struct packet *pk, int failed)
{
    if (!n->reps) {
        if (failed == LB_EV_NEW)
            return; /* ev 0: the PSN's entropy, as every first send */
        uint32_t was = failed >= 0 ? (uint32_t)(((uint64_t)pk->psn + (uint32_t)failed) %
                                                n->entropies)
                                   : UINT32_MAX;
        /* half the ev range on: +1 would share the entropy of the
         * PSN sent next, bunching the resend with new data */
        pk->ev = failed >= 0 ? (uint8_t)(failed + 128) : f->retries;
        n->ev_resend_same += pkt_entropy(n, pk) == was;
        return;
    }
    uint32_t ev = UINT32_MAX;
    if (f->reps_n) {
        uint8_t *ring = n->reps_buf + (size_t)f->id * n->reps_size;
        ev = ring[f->reps_head];
        f->reps_head = (uint8_t)((f->reps_head + 1) % n->reps_size);
        f->reps_n--;
        if ((int)ev == failed)
            ev = UINT32_MAX; /* the path that just failed: explore instead */
        else
            n->ev_recycled++;
    }
    if (ev == UINT32_MAX)
        ev = reps_explore(n, pk, failed);
    pk->ev = (uint8_t)ev;
    n->ev_resend_same += failed >= 0 && (int)ev == failed;
}

/* An echo ACK carries the entropy and mark of the last of the ack_pkts
 * arrivals it stands for: unmarked, the entropy joins the ring (the oldest
 * goes when it is full) once for each, so a window sender recycles about
 * as many entropies as it sends. */
void lb_entropy_ack(struct pnet *n, struct flow *f, const struct packet *ack)
{
    if (ack->echo_ce)
        return;
    uint32_t k = n->uec_ack_pkts < n->reps_size ? n->uec_ack_pkts : n->reps_size;
    uint8_t *ring = n->reps_buf + (size_t)f->id * n->reps_size;
    for (uint32_t i = 0; i < k; i++) {
        if (f->reps_n == n->reps_size) {
            f->reps_head = (uint8_t)((f->reps_head + 1) % n->reps_size);
            f->reps_n--;
        }
        ring[(f->reps_head + f->reps_n) % n->reps_size] = (uint8_t)ack->ev;
        f->reps_n++;
    }
}

int lb_setup(struct pnet *n, struct err *e)
{
    const struct scenario *sc = n->sc;
    if (n->reps) {
        uint32_t nf = n->n_flows + n->n_train;
        n->reps_size = sc->transport.uec.reps_buffer;
        n->reps_buf = arena_calloc(&n->arena, (size_t)nf * n->reps_size + 1, 1);
        if (!n->reps_buf)
            return err_set(e, "transport.uec.reps_buffer: out of memory for %u entropies "
                              "x %u flows", n->reps_size, nf);
    }
    for (uint32_t s = 0; s < n->topo->n_switches; s++)
        rng_init(&n->sws[s].lb_rng, sc->seed, RNG_LB + ((uint64_t)s + 1) * 256);
    int table = lb_grain(sc) == LB_PER_FLOWLET;
    for (uint32_t s = 0; table && s < n->topo->n_switches; s++) {
        n->sws[s].flowlets = arena_calloc(&n->arena, sc->fabric.flowlet_table,
                                          sizeof *n->sws[s].flowlets);
        if (!n->sws[s].flowlets)
            return err_set(e, "fabric.lb.flowlet_table: out of memory for %u entries "
                              "per switch", sc->fabric.flowlet_table);
    }
    return 0;
}

uint32_t lb_pick(struct pnet *n, uint32_t node, struct sw *s, const struct route *r,
                 struct flow *f, const struct packet *pk)
{
    const struct topo *t = n->topo;
    if (r->cnt == 1)
        return t->nh_ports[r->off];
    int fwd = pk->kind == PK_DATA;
    int ecmp = fwd && lb_schemes[n->sc->fabric.load_balancing].hash_only;
    /* a flow's data meets the same route at a switch every time (routes
     * and failures are fixed for the run): its ECMP choice is remembered */
    if (ecmp && f->ecmp_node == node + 1)
        return f->ecmp_port;
    uint32_t src = fwd ? f->src : f->dst, dst = fwd ? f->dst : f->src;
    uint64_t h = topo_flow_hash(s->seed, src, dst, f->sport, ROCE_UDP_PORT);
    if (!fwd)
        return ecmp_pick(n, s, r, f, pk, h);
    uint32_t p = schemes[n->sc->fabric.load_balancing].pick(n, s, r, f, pk, h);
    if (ecmp && node == f->leaf.src) { /* one writer: the flow's first hop */
        f->ecmp_node = node + 1;
        f->ecmp_port = p;
    }
    return p;
}

int lb_path(struct pnet *n, const struct flow *f, uint32_t *ports, uint32_t max)
{
    const struct topo *t = n->topo;
    if (lb_grain(n->sc) != LB_PER_FLOW) /* (ecmp, wcmp: the hash alone) */
        return -1;
    uint32_t node = f->leaf.src, k = 0;
    while (node != f->leaf.dst) {
        const struct route *r = topo_route(t, node, f->leaf.dst);
        if (k == max || !r->cnt)
            return -1;
        struct sw *s = pnet_sw(n, node);
        uint32_t p = t->nh_ports[r->off];
        if (r->cnt > 1) /* as lb_pick: the hash of the flow's data */
            p = schemes[n->sc->fabric.load_balancing].pick(
                n, s, r, f, NULL, topo_flow_hash(s->seed, f->src, f->dst, f->sport, ROCE_UDP_PORT));
        ports[k++] = p;
        node = t->ports[t->ports[p].peer].node;
    }
    return (int)k;
}

void lb_note_tx(struct pnet *n, struct port *p, uint64_t wire)
{
    double tau = (double)n->sc->fabric.lb_load_window_ps;
    p->load = p->load * exp(-(double)(n->now - p->load_t) / tau) + (double)wire;
    p->load_t = n->now;
}
