/* Switch buffer admission with basic PFC.
 *
 * Static partition: each ingress port owns buffer/ports bytes; the top of
 * that share is PFC headroom sized for the worst case after an XOFF is sent
 * (the wire toward us, the upstream's reaction time of one propagation delay
 * and the frames in serialisation at both ends), so a lossless switch cannot
 * overflow. XOFF when the port's bytes reach share - headroom, XON two MTUs
 * lower. The shared-buffer MMU with dynamic thresholds replaces this file.
 */

#include "../core/units.h"
#include "pnet.h"

static uint64_t headroom(const struct port *p, uint32_t mtu)
{
    uint64_t wire = (uint64_t)mtu + ROCE_OVERHEAD;
    /* bytes the upstream can put on the wire during one delay, rounded up */
    uint64_t inflight = (p->delay_ps * p->bps + 8 * PS_PER_S - 1) / (8 * PS_PER_S);
    return 2 * inflight + 3 * wire;
}

int mmu_setup(struct pnet *n, struct err *e)
{
    const struct topo *t = n->topo;
    const struct scenario *sc = n->sc;
    uint64_t wire = (uint64_t)sc->fabric.mtu + ROCE_OVERHEAD;
    char b1[32], b2[32];
    for (uint32_t s = 0; s < t->n_switches; s++) {
        const struct tnode *nd = &t->nodes[t->first_cleaf + s];
        uint64_t share = sc->fabric.buffer_bytes / nd->nports;
        for (uint32_t i = 0; i < nd->nports; i++) {
            struct port *p = &n->ports[nd->first_port + i];
            uint64_t h = headroom(p, sc->fabric.mtu);
            if (sc->fabric.pfc && share < h + 2 * wire)
                return err_set(e,
                    "fabric.buffer: %s is too small for lossless PFC: each of "
                    "the %u ports of a %s needs %llu B of headroom plus 2 MTU, "
                    "at least %s per switch",
                    units_fmt_size(sc->fabric.buffer_bytes, b1, sizeof b1),
                    nd->nports, nd->kind == NODE_SPINE ? "spine" : "leaf",
                    (unsigned long long)h,
                    units_fmt_size((h + 2 * wire) * nd->nports, b2, sizeof b2));
            p->xoff = share > h ? share - h : 0;
            p->xon = p->xoff > 2 * wire ? p->xoff - 2 * wire : 0;
        }
    }
    return 0;
}

static void send_pfc(struct pnet *n, struct port *in, int xoff)
{
    in->xoff_sent = (uint8_t)xoff;
    if (xoff)
        n->pause_frames++;
    else
        n->resume_frames++;
    pnet_schedule(n, n->now + in->delay_ps, EV_PAUSE, &n->ports[in->peer],
                  (uint32_t)xoff);
}

int mmu_admit(struct pnet *n, struct sw *s, struct port *in, struct packet *pk)
{
    uint64_t wire = pkt_wire(pk);
    if (s->used + wire > s->buffer)
        return -1;
    s->used += wire;
    if (s->used > s->max_used)
        s->max_used = s->used;
    in->in_bytes += wire;
    pk->in_port = (uint32_t)(in - n->ports);
    if (n->sc->fabric.pfc && !in->xoff_sent && in->in_bytes >= in->xoff)
        send_pfc(n, in, 1);
    return 0;
}

void mmu_release(struct pnet *n, struct sw *s, struct packet *pk)
{
    uint64_t wire = pkt_wire(pk);
    struct port *in = &n->ports[pk->in_port];
    s->used -= wire;
    in->in_bytes -= wire;
    if (in->xoff_sent && in->in_bytes <= in->xon)
        send_pfc(n, in, 0);
}
