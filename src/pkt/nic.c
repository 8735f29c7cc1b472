/* RoCE NIC: one reliable-connection queue pair per flow, sending at line
 * rate, packetised by MTU. Active flows share the port round robin, one
 * packet at a time. The receiver counts payload bytes and completes the flow
 * on its last byte. (Congestion control hooks come with DCQCN.) */
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
    f->active = 1;
    ring_insert(&n->nics[f->src], f);
    port_kick(n, &n->ports[n->topo->nodes[f->src].first_port]);
}

struct packet *nic_pull(struct pnet *n, uint32_t node)
{
    struct nic *nic = &n->nics[node];
    struct flow *f = nic->rr;
    if (!f)
        return NULL;
    struct packet *pk = pnet_pkt_alloc(n);
    if (!pk)
        return NULL;
    uint64_t left = f->bytes - f->sent;
    uint32_t mtu = n->sc->fabric.mtu;
    pk->payload = left < mtu ? (uint32_t)left : mtu;
    pk->flow = f->id;
    pk->psn = (uint32_t)(f->sent / mtu);
    if (f->sent == 0) {
        f->first_tx_ps = n->now;
        if (n->now < n->first_tx_ps)
            n->first_tx_ps = n->now;
    }
    f->sent += pk->payload;
    n->bytes_sent += pk->payload;
    nic->rr = f->next;
    if (f->sent == f->bytes) {
        f->active = 0;
        ring_remove(nic, f);
    }
    return pk;
}

void nic_receive(struct pnet *n, uint32_t node, struct packet *pk)
{
    struct flow *f = &n->flows[pk->flow];
    (void)node;
    f->recv += pk->payload;
    n->bytes_delivered += pk->payload;
    n->pkts_delivered++;
    if (f->recv == f->bytes) {
        f->done = 1;
        f->done_ps = n->now;
        n->flows_done++;
        n->last_rx_ps = n->now;
    }
    pnet_pkt_free(n, pk);
}
