/* RoCE NIC: one reliable-connection queue pair per transfer, packetised by
 * MTU and paced at the rate its transport (congestion control) allows.
 * Active queue pairs share the port round robin, one packet at a time. The
 * receiver counts payload bytes, completes a transfer on its last byte, and
 * as DCQCN notification point answers ECN marks with at most one CNP per
 * flow per interval. */
#include "../core/units.h"
#include "pnet.h"

static void ring_insert(struct nic *nic, struct flow *f)
{
    if (!nic->rr) {
        f->next = f->prev = f;
        nic->rr = f;
        return;
    }
    /* insert just before rr: it is served last in the current round */
    f->next = nic->rr;
    f->prev = nic->rr->prev;
    f->prev->next = f;
    nic->rr->prev = f;
}

static void ring_remove(struct nic *nic, struct flow *f)
{
    if (f->next == f) {
        nic->rr = NULL;
    } else {
        f->prev->next = f->next;
        f->next->prev = f->prev;
        if (nic->rr == f)
            nic->rr = f->next;
    }
    f->next = f->prev = NULL;
}

void nic_flow_start(struct pnet *n, struct flow *f)
{
    if (f->bytes == 0) {
        f->done = 1;
        f->done_ps = f->first_tx_ps = n->now;
        n->flows_done++;
        return;
    }
    struct port *p = &n->ports[n->topo->nodes[f->src].first_port];
    f->active = 1;
    f->line_bps = p->bps;
    f->next_send = n->now;
    f->min_rate = (double)p->bps;
    n->tp->start(n, f);
    ring_insert(&n->nics[f->src], f);
    if (p->state == PORT_IDLE)
        port_kick(n, p);
    else if (p->state == PORT_WAIT)
        port_wake_at(n, p, n->now);
}

static struct packet *make_data(struct pnet *n, struct flow *f)
{
    struct packet *pk = pnet_pkt_alloc(n);
    if (!pk)
        return NULL;
    uint64_t left = f->bytes - f->sent;
    uint32_t mtu = n->sc->fabric.mtu;
    pk->payload = left < mtu ? (uint32_t)left : mtu;
    pk->flow = f->id;
    pk->psn = (uint32_t)(f->sent / mtu);
    pk->kind = PK_DATA;
    pk->dscp = f->dscp;
    pk->prio = f->prio;
    pk->ce = 0;
    return pk;
}

struct packet *nic_pull(struct pnet *n, struct port *p)
{
    struct nic *nic = &n->nics[p->node];
    struct flow *f = nic->rr;
    if (!f)
        return NULL;
    /* first queue pair in round-robin order whose pacing allows a packet */
    uint64_t soonest = UINT64_MAX;
    struct flow *start = f;
    while (f->next_send > n->now || (p->paused & (1u << f->prio))) {
        if (!(p->paused & (1u << f->prio)) && f->next_send < soonest)
            soonest = f->next_send;
        f = f->next;
        if (f == start) {
            /* paused classes resume with a kick when their pause ends */
            if (soonest != UINT64_MAX)
                port_wake_at(n, p, soonest);
            return NULL;
        }
    }
    struct packet *pk = make_data(n, f);
    if (!pk)
        return NULL;
    if (f->sent == 0) {
        f->first_tx_ps = n->now;
        if (n->now < n->first_tx_ps)
            n->first_tx_ps = n->now;
    }
    f->sent += pk->payload;
    n->bytes_sent += pk->payload;
    uint64_t wire = pkt_wire(pk);
    uint64_t rate = n->tp->on_send(n, f, wire);
    if (f->cap_bps && f->cap_bps < rate)
        rate = f->cap_bps;
    /* at line rate the port itself paces; below it, the queue pair waits */
    f->last_send = n->now;
    f->last_wire = wire;
    f->next_send = rate >= f->line_bps ? n->now : n->now + units_ser_ps(wire, rate);
    nic->rr = f->next;
    if (f->sent == f->bytes) {
        f->active = 0;
        ring_remove(nic, f);
    }
    return pk;
}

/* The transport changed f's rate: move its next packet accordingly (the
 * NIC's rate limiter applies a new rate at once). */
void nic_rate_changed(struct pnet *n, struct flow *f)
{
    if (!f->active || f->next_send <= n->now)
        return;
    uint64_t rate = (uint64_t)f->cc.rc;
    if (f->cap_bps && f->cap_bps < rate)
        rate = f->cap_bps;
    uint64_t ns = rate >= f->line_bps ? f->last_send
                                      : f->last_send + units_ser_ps(f->last_wire, rate ? rate : 1);
    f->next_send = ns > n->now ? ns : n->now;
    struct port *p = &n->ports[n->topo->nodes[f->src].first_port];
    if (p->state == PORT_IDLE)
        port_kick(n, p);
    else
        port_wake_at(n, p, f->next_send);
}

static void send_cnp(struct pnet *n, uint32_t node, struct flow *f)
{
    struct packet *c = pnet_pkt_alloc(n);
    if (!c)
        return;
    c->flow = f->id;
    c->payload = CNP_PAYLOAD;
    c->kind = PK_CNP;
    c->dscp = (uint8_t)n->sc->transport.cnp_dscp;
    c->prio = (uint8_t)n->sc->transport.cnp_priority;
    c->ce = 0;
    c->psn = 0;
    c->t = n->now;
    f->last_cnp = n->now;
    f->sent_cnp = 1;
    n->cnps_sent++;
    port_queue(n, &n->ports[n->topo->nodes[node].first_port], c);
}

void nic_receive(struct pnet *n, uint32_t node, struct packet *pk)
{
    struct flow *f = &n->flows[pk->flow];
    if (pk->kind == PK_CNP) {
        f->cnps_rx++;
        n->cnps_rx++;
        n->tp->on_cnp(n, f);
        pnet_pkt_free(n, pk);
        return;
    }
    f->recv += pk->payload;
    n->bytes_delivered += pk->payload;
    n->pkts_delivered++;
    if (f->recv == f->bytes) {
        f->done = 1;
        f->done_ps = n->now;
        n->flows_done++;
        n->last_rx_ps = n->now;
    }
    if (pk->ce && n->sc->transport.cc == CC_DCQCN &&
        (!f->sent_cnp || n->now - f->last_cnp >= n->sc->transport.dcqcn.cnp_interval_ps))
        send_cnp(n, node, f);
    pnet_pkt_free(n, pk);
}
