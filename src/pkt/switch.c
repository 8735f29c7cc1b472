/* Switch forwarding: DSCP to priority, up-down route lookup, the load
 * balancer's choice among equal-cost next hops (lb.c), buffer admission, then
 * the egress queue after the switch latency. CNPs and NAKs travel the reverse
 * path of their flow. */
#include "pnet.h"

static uint32_t pick_egress(struct pnet *n, uint32_t node, struct sw *s,
                            struct flow *f, const struct packet *pk)
{
    int data = pk->kind == PK_DATA;
    uint32_t dleaf = data ? f->leaf.dst : f->leaf.src;
    if (dleaf == node)
        return data ? f->leaf.dst_port : f->leaf.src_port;
    /* ECMP's remembered choice needs no route lookup (lb_pick) */
    if (data && n->lb_ecmp && f->ecmp_node == node + 1)
        return f->ecmp_port;
    uint32_t p = lb_pick(n, node, s, topo_route(n->topo, node, dleaf), f, pk);
    if (data && node == f->leaf.src) { /* p is one of this leaf's ports */
        uint64_t bit = UINT64_C(1) << ((p - f->leaf.src_first) % 64);
        if (!(f->uplinks & bit))
            f->uplinks |= bit; /* written once: every switch reads this line */
    }
    return p;
}

/* Inlined into the window loop with port_rx_inl (link-time optimisation):
 * a call a switch hop less. */
__attribute__((always_inline)) inline void switch_receive(struct pnet *n, uint32_t node,
                                                          struct port *in, struct packet *pk)
{
    struct sw *s = pnet_sw(n, node);
    uint32_t egress = pick_egress(n, node, s, &n->flows[pk->flow], pk);
    struct port *out = &n->ports[egress];
    if (__builtin_expect(n->any_failed, 0) && n->topo->ports[egress].failed) {
        /* a link that is down carries nothing: counted, reported as a
         * violated invariant (collect.c) */
        out->drops++;
        if (pk->kind == PK_DATA)
            pnet_drop_bytes(n, pk);
        return;
    }
    /* the priority kept in a register too (mmu_admit_prio) */
    unsigned prio = n->dscp_prio[pk->dscp & 63] & 7u; /* the bit field's */
    pk->prio = (uint8_t)prio;
    if (out->storm & (1u << prio)) {
        n->drops_watchdog++;
        out->drops++;
        if (pk->kind == PK_DATA)
            pnet_drop_bytes(n, pk);
        return;
    }
    int wire = mmu_admit_prio(n, s, in, out, pk, &prio);
    if (wire < 0)
        return;
    pk->t = n->now + s->latency_ps;
#ifdef CKPT_EV_KINDS
    n->ev_kinds[out->state == PORT_BUSY   ? EVC_EGRESS_BUSY
                : out->state == PORT_WAIT ? EVC_EGRESS_WAIT
                : out->qmask              ? EVC_EGRESS_PAUSED
                                          : EVC_EGRESS_IDLE]++;
#endif
    port_queue_hop(n, out, pk, (uint64_t)wire, prio);
}
