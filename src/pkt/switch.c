/* Switch forwarding: buffer admission, up-down route lookup, ECMP over the
 * equal-cost next hops by a seeded 5-tuple hash, then the egress queue after
 * the switch latency. */
#include "pnet.h"

static uint32_t pick_egress(struct pnet *n, uint32_t node, const struct sw *s,
                            const struct flow *f)
{
    const struct topo *t = n->topo;
    uint32_t dleaf = t->nodes[f->dst].leaf;
    if (dleaf == node)
        return t->nodes[f->dst].leaf_port;
    const struct route *r = topo_route(t, node, dleaf);
    if (r->cnt == 1)
        return t->nh_ports[r->off];
    uint64_t h = topo_flow_hash(s->seed, f->src, f->dst, f->sport, ROCE_UDP_PORT);
    return t->nh_ports[r->off + h % r->cnt];
}

void switch_receive(struct pnet *n, uint32_t node, struct port *in,
                    struct packet *pk)
{
    struct sw *s = &n->sws[node - n->topo->first_cleaf];
    if (mmu_admit(n, s, in, pk) < 0) {
        n->drops++;
        n->bytes_dropped += pk->payload;
        pnet_pkt_free(n, pk);
        return;
    }
    struct port *out = &n->ports[pick_egress(n, node, s, &n->flows[pk->flow])];
    pk->t = n->now + s->latency_ps;
    pktq_push(&out->q, pk, pkt_wire(pk));
    if (out->q.bytes > out->max_q_bytes)
        out->max_q_bytes = out->q.bytes;
    if (out->state == PORT_IDLE)
        port_kick(n, out);
}
