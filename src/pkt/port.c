/* One egress port and its wire: FIFO service with exact serialisation, a
 * pipe of packets in propagation, and PFC pause of the port. */
#include "pnet.h"

static inline int is_switch_node(const struct pnet *n, uint32_t node)
{
    return node >= n->topo->first_cleaf;
}

/* Serialisation time, carrying the sub-picosecond remainder so long trains
 * of packets drift by less than 1 ps in total. The quotient and remainder of
 * the last wire size are cached: trains of MTU packets need no division. */
static uint64_t ser_time(struct port *p, uint64_t wire)
{
    if (wire != p->ser_wire) {
        uint64_t num = wire * 8 * UINT64_C(1000000000000);
        p->ser_wire = wire;
        p->ser_q = num / p->bps;
        p->ser_r = num % p->bps;
    }
    uint64_t rem = p->ser_rem + p->ser_r; /* < 2 * bps */
    uint64_t carry = rem >= p->bps;
    p->ser_rem = rem - (carry ? p->bps : 0);
    return p->ser_q + carry;
}

static void start_tx(struct pnet *n, struct port *p, struct packet *pk)
{
    p->tx = pk;
    p->state = PORT_BUSY;
    pnet_schedule(n, n->now + ser_time(p, pkt_wire(pk)), EV_TX_DONE, p, 0);
}

void port_kick(struct pnet *n, struct port *p)
{
    if (p->state != PORT_IDLE || p->paused)
        return;
    if (p->is_host) {
        struct packet *pk = nic_pull(n, p->node);
        if (pk)
            start_tx(n, p, pk);
        return;
    }
    struct packet *pk = p->q.head;
    if (!pk)
        return;
    if (pk->t > n->now) {
        p->state = PORT_WAIT;
        pnet_schedule(n, pk->t, EV_WAKE, p, 0);
        return;
    }
    pktq_pop(&p->q, pkt_wire(pk));
    /* the next head is read at the end of this serialisation; deep queues
     * leave it cold, so fetch it now */
    if (p->q.head)
        __builtin_prefetch(p->q.head);
    mmu_release(n, &n->sws[p->node - n->topo->first_cleaf], pk);
    start_tx(n, p, pk);
}

void port_on_wake(struct pnet *n, struct port *p)
{
    p->state = PORT_IDLE;
    port_kick(n, p);
}

void port_on_tx_done(struct pnet *n, struct port *p)
{
    struct packet *pk = p->tx;
    uint64_t wire = pkt_wire(pk);
    p->tx = NULL;
    p->state = PORT_IDLE;
    p->tx_bytes += wire;
    p->tx_pkts++;
    pk->t = n->now + p->delay_ps;
    int was_empty = p->pipe.head == NULL;
    pktq_push(&p->pipe, pk, wire);
    if (was_empty)
        pnet_schedule(n, pk->t, EV_RX, p, 0);
    port_kick(n, p);
}

void port_on_rx(struct pnet *n, struct port *p)
{
    struct packet *pk = pktq_pop(&p->pipe, pkt_wire(p->pipe.head));
    if (p->pipe.head)
        pnet_schedule(n, p->pipe.head->t, EV_RX, p, 0);
    struct port *in = &n->ports[p->peer];
    if (is_switch_node(n, in->node))
        switch_receive(n, in->node, in, pk);
    else
        nic_receive(n, in->node, pk);
}

void port_on_pause(struct pnet *n, struct port *p, int xoff)
{
    if (xoff) {
        p->pause_rx++;
        if (!p->paused) {
            p->paused = 1;
            p->pause_since = n->now;
        }
        return;
    }
    if (p->paused) {
        p->paused = 0;
        p->paused_ps += n->now - p->pause_since;
        port_kick(n, p);
    }
}
