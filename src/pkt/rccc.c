/* RCCC: Ultra Ethernet's receiver credit congestion control (rccc.h).
 *
 * The receiver's side: a flow asks for credit with its first packet (the
 * transfer's packets beyond the initial credit) and again with each packet
 * the receiver NACKs (its resend). The endpoint's pacer grants rccc_pull
 * packets (fewer when the flow needs fewer) to the flow at the head of its
 * ring, moves the head on, and waits the grant's wire time at rccc_rate x
 * its line rate: each of N senders that need credit gets 1/N of the
 * receiver's line, and together they fill it. A flow whose bytes are all
 * in leaves the ring (a NACK its timeout answered first owes nothing).
 * Credit packets can be dropped (a lossy control class): a flow given all
 * it needs keeps a re-grant timer until its bytes are in, and the credit
 * goes again after a retransmission timeout with nothing received.
 *
 * The sender's side: new data and NACKed resends spend credit; a timeout's
 * go-back resends do not (the receiver never asked for them, and credit
 * must not hold back the recovery of a lost grant).
 */
#include "rccc.h"

#include "../scenario/tpscheme.h"
#include "../stats/results.h"
#include "engine.h"
#include "pnet.h"

static uint32_t packets_of(const struct pnet *n, uint64_t bytes)
{
    uint64_t k = (bytes + n->mtu - 1) / n->mtu;
    return k < UINT32_MAX ? (uint32_t)k : UINT32_MAX;
}

/* The credit f starts with: the key, or one BDP of its unloaded round
 * trip at its line rate; whole packets, at least one (its first packet
 * carries the request for the rest). */
static uint32_t initial_credit(const struct pnet *n, const struct flow *f)
{
    const struct scenario *sc = n->sc;
    const struct topo *t = n->topo;
    uint64_t b = sc->transport.uec.rccc_initial;
    if (!b) {
        uint64_t rtt = pkt_cnp_direct_ps(t, sc, f->src, f->dst, f->sport) +
                       pkt_cnp_direct_ps(t, sc, f->dst, f->src, f->sport);
        double bps = (double)n->ports[t->nodes[f->src].first_port].bps;
        b = (uint64_t)((double)rtt * 1e-12 * bps / 8);
    }
    uint32_t k = packets_of(n, b);
    return k ? k : 1;
}

int rccc_setup(struct pnet *n, struct err *e)
{
    const struct scenario *sc = n->sc;
    if (!sc->transport.uec.rccc)
        return 0;
    const struct topo *t = n->topo;
    uint32_t nf = n->n_flows;
    struct rccc *c = arena_calloc(&n->arena, 1, sizeof *c);
    if (c) {
        c->tx = arena_calloc(&n->arena, (size_t)nf + 1, sizeof *c->tx);
        c->rx = arena_calloc(&n->arena, (size_t)nf + 1, sizeof *c->rx);
        c->node = arena_calloc(&n->arena, (size_t)t->n_nodes + 1, sizeof *c->node);
    }
    if (!c || !c->tx || !c->rx || !c->node)
        return err_set(e, "out of memory for RCCC's credit tables (%u flows)", nf);
    c->pull = sc->transport.uec.rccc_pull;
    c->regrant_ps = transport_rto_ps(sc, NULL);
    for (uint32_t i = 0; i < t->n_nodes; i++) {
        struct rccc_node *r = &c->node[i];
        r->head = RCCC_NONE;
        double bps = (double)n->ports[t->nodes[i].first_port].bps;
        if (bps > 0)
            r->ps_per_pkt = (double)n->mtu_wire * 8e12 / (bps * sc->transport.uec.rccc_rate);
    }
    for (uint32_t i = 0; i < nf; i++) {
        uint32_t k = initial_credit(n, &n->flows[i]);
        c->tx[i].credit = k;
        c->rx[i].granted = k;
        c->rx[i].next = c->rx[i].prev = RCCC_NONE;
    }
    n->rccc = c;
    return 0;
}

/* ---- sender ---- */

/* Whether the packet f sends next spends credit: new data, or a NACKed
 * resend (the uec sender sends those first). */
static int charged(const struct pnet *n, const struct flow *f)
{
    return !pnet_is_train(n, f->id) && (f->sr_pending || f->sent >= f->max_sent);
}

int rccc_blocked(const struct pnet *n, const struct flow *f)
{
    const struct rccc_tx *s = &n->rccc->tx[f->id];
    return s->spent >= s->credit && charged(n, f);
}

void rccc_spend(struct pnet *n, const struct flow *f)
{
    if (!pnet_is_train(n, f->id))
        n->rccc->tx[f->id].spent++;
}

void rccc_on_credit(struct pnet *n, struct flow *f, uint32_t credit)
{
    struct rccc_tx *s = &n->rccc->tx[f->id];
    if (pnet_is_train(n, f->id) || credit <= s->credit)
        return; /* an older grant overtaken by a newer one */
    s->credit = credit;
    /* held for credit (nic.c parks it at UINT64_MAX): it may go now,
     * unless its window holds it, which an ACK opens */
    if (!f->active || f->next_send != UINT64_MAX || (n->tp->may_send && !n->tp->may_send(n, f)))
        return;
    f->next_send = n->now;
    struct port *p = &n->ports[n->topo->nodes[f->src].first_port];
    if (p->state == PORT_IDLE)
        port_kick(n, p);
    else if (p->state == PORT_WAIT)
        port_wake_at(n, p, n->now);
}

/* ---- receiver ---- */

static struct port *nic_port(struct pnet *n, uint32_t node)
{
    return &n->ports[n->topo->nodes[node].first_port];
}

/* Into the pacer's ring, served last in the current round. */
static void ring_add(struct rccc *c, struct rccc_node *r, uint32_t id)
{
    struct rccc_rxf *x = &c->rx[id];
    x->queued = 1;
    if (r->head == RCCC_NONE) {
        x->next = x->prev = id;
        r->head = id;
        return;
    }
    struct rccc_rxf *h = &c->rx[r->head];
    x->next = r->head;
    x->prev = h->prev;
    c->rx[h->prev].next = id;
    h->prev = id;
}

static void ring_del(struct rccc *c, struct rccc_node *r, uint32_t id)
{
    struct rccc_rxf *x = &c->rx[id];
    x->queued = 0;
    if (x->next == id) {
        r->head = RCCC_NONE;
    } else {
        c->rx[x->prev].next = x->next;
        c->rx[x->next].prev = x->prev;
        if (r->head == id)
            r->head = x->next;
    }
    x->next = x->prev = RCCC_NONE;
}

static void arm(struct pnet *n, uint32_t node, struct rccc_node *r)
{
    r->armed = 1;
    if (pnet_schedule(n, r->free_at > n->now ? r->free_at : n->now, EV_CREDIT,
                      nic_port(n, node), 0) < 0)
        r->armed = 0; /* out of memory: the run stops (n->oom) */
}

/* Flow id at node needs credit: into the ring, the pacer running. */
static void wants(struct pnet *n, uint32_t node, uint32_t id)
{
    struct rccc *c = n->rccc;
    struct rccc_rxf *x = &c->rx[id];
    if (x->queued || x->need <= x->granted)
        return;
    struct rccc_node *r = &c->node[node];
    ring_add(c, r, id);
    if (!r->armed)
        arm(n, node, r);
}

void rccc_on_arrival(struct pnet *n, uint32_t node, struct flow *f)
{
    if (pnet_is_train(n, f->id))
        return;
    struct rccc_rxf *x = &n->rccc->rx[f->id];
    if (x->asked)
        return;
    x->asked = 1;
    uint32_t k = packets_of(n, f->bytes);
    x->need = k > UINT32_MAX - x->need ? UINT32_MAX : x->need + k;
    wants(n, node, f->id);
}

void rccc_on_nack(struct pnet *n, uint32_t node, struct flow *f)
{
    if (pnet_is_train(n, f->id))
        return;
    struct rccc_rxf *x = &n->rccc->rx[f->id];
    if (x->need < UINT32_MAX)
        x->need++;
    wants(n, node, f->id);
}

/* Flow id's re-grant timer, from now. */
static void regrant_arm(struct pnet *n, uint32_t node, uint32_t id)
{
    struct rccc_rxf *x = &n->rccc->rx[id];
    x->timer = 1;
    x->mark = n->flows[id].recv;
    if (pnet_schedule(n, n->now + n->rccc->regrant_ps, EV_CREDIT, nic_port(n, node), id + 1) < 0)
        x->timer = 0;
}

static void regrant(struct pnet *n, uint32_t node, uint32_t id)
{
    struct rccc *c = n->rccc;
    struct rccc_rxf *x = &c->rx[id];
    struct flow *f = &n->flows[id];
    x->timer = 0;
    if (f->recv >= f->bytes || x->queued)
        return; /* all in, or the pacer owes it more and will arm again */
    if (f->recv == x->mark) { /* nothing in for a timeout: say it again */
        c->node[node].regrants++;
        nic_send_control(n, node, f, PK_CREDIT, x->granted);
    }
    regrant_arm(n, node, id);
}

void rccc_on_pull(struct pnet *n, struct port *p, uint32_t arg)
{
    struct rccc *c = n->rccc;
    uint32_t node = p->node;
    if (arg) {
        regrant(n, node, arg - 1);
        return;
    }
    struct rccc_node *r = &c->node[node];
    r->armed = 0;
    while (r->head != RCCC_NONE) {
        uint32_t id = r->head;
        struct rccc_rxf *x = &c->rx[id];
        struct flow *f = &n->flows[id];
        if (f->recv >= f->bytes || x->need <= x->granted) {
            ring_del(c, r, id); /* all in: what it was owed is moot */
            continue;
        }
        uint32_t g = x->need - x->granted;
        g = g < c->pull ? g : c->pull;
        x->granted += g;
        r->head = x->next;
        if (x->granted >= x->need) {
            ring_del(c, r, id);
            if (!x->timer)
                regrant_arm(n, node, id);
        }
        r->grants++;
        r->granted += g;
        nic_send_control(n, node, f, PK_CREDIT, x->granted);
        r->free_at = n->now + (uint64_t)((double)g * r->ps_per_pkt + 0.5);
        if (r->head != RCCC_NONE)
            arm(n, node, r);
        return;
    }
}

void rccc_collect(const struct pnet *n, struct results *r)
{
    r->rccc = n->rccc != NULL;
    r->credit_packets = r->credits_granted = 0;
    if (!n->rccc)
        return;
    for (uint32_t i = 0; i < n->topo->n_nodes; i++) {
        r->credit_packets += n->rccc->node[i].grants + n->rccc->node[i].regrants;
        r->credits_granted += n->rccc->node[i].granted * n->mtu;
    }
}
