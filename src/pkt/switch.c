/* Switch forwarding: DSCP to priority, up-down route lookup, ECMP over the
 * equal-cost next hops by a seeded 5-tuple hash, buffer admission, then the
 * egress queue after the switch latency. CNPs travel the reverse path of
 * their flow. */
#include "pnet.h"

static uint32_t pick_egress(struct pnet *n, uint32_t node, const struct sw *s,
                            const struct flow *f, const struct packet *pk)
{
    const struct topo *t = n->topo;
    int fwd = pk->kind == PK_DATA;
    uint32_t src = fwd ? f->src : f->dst, dst = fwd ? f->dst : f->src;
    uint32_t dleaf = t->nodes[dst].leaf;
    if (dleaf == node)
        return t->nodes[dst].leaf_port;
    const struct route *r = topo_route(t, node, dleaf);
    if (r->cnt == 1)
        return t->nh_ports[r->off];
    uint64_t h = topo_flow_hash(s->seed, src, dst, f->sport, ROCE_UDP_PORT);
    return t->nh_ports[r->off + h % r->cnt];
}

void switch_receive(struct pnet *n, uint32_t node, struct port *in,
                    struct packet *pk)
{
    struct sw *s = pnet_sw(n, node);
    struct port *out = &n->ports[pick_egress(n, node, s, &n->flows[pk->flow], pk)];
    pk->prio = n->dscp_prio[pk->dscp & 63];
    if (out->storm & (1u << pk->prio)) {
        n->drops_watchdog++;
        out->drops++;
        if (pk->kind == PK_DATA)
            n->bytes_dropped += pk->payload;
        pnet_pkt_free(n, pk);
        return;
    }
    if (mmu_admit(n, s, in, out, pk) < 0) {
        pnet_pkt_free(n, pk);
        return;
    }
    pk->t = n->now + s->latency_ps;
    port_queue(n, out, pk);
}
