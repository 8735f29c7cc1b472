/* IEEE 802.1Qbb priority flow control: XOFF frames carry a pause time in
 * 512-bit quanta and are refreshed at half of it while the ingress stays
 * congested; XON is a frame with quanta 0. The PFC watchdog (as in SONiC)
 * turns a queue paused for longer than the detection time into a dropping
 * queue that ignores pause, until pause has been absent for the restoration
 * time. */
#include "pnet.h"

#include "../core/units.h"

#define WD_RESTORE 0x8u /* arg flag: a restoration check */
/* PFC_TRAIN (pnet.h), an XOFF whose refreshes are implicit: its sender
 * refreshes it every half pause until its XON, which arrives before the
 * pause could run out (refresh period < pause time, same link delay), so
 * the receiver stays paused until the XON and the refresh frames change
 * only counters, which pfc_settle adds when the train stops. */

/* Pause time of `quanta` 512-bit (64-byte) quanta at the port's rate, in ps.
 * Exact: quanta x 512 x 10^12 does not fit in 64 bits above 36,028 quanta. */
uint64_t pfc_pause_ps(uint32_t quanta, uint64_t bps)
{
    return units_ser_ps((uint64_t)quanta * 64, bps);
}

static uint64_t quanta_ps(const struct pnet *n, const struct port *p)
{
    return pfc_pause_ps(n->sc->fabric.pfc_quanta, p->bps);
}

/* The refresh period of p's XOFFs (set-up's where one fits every port). */
static uint64_t half_ps(const struct pnet *n, const struct port *p)
{
    return n->pfc_half_ps ? n->pfc_half_ps : quanta_ps(n, p) / 2;
}

void pfc_setup(struct pnet *n)
{
    uint32_t np = n->topo->n_ports;
    n->pfc_half_ps = 0;
    if (!np)
        return;
    for (uint32_t i = 0; i < np; i++) {
        const struct port *p = &n->ports[i], *peer = &n->ports[p->peer];
        if (p->bps != n->ports[0].bps || peer->delay_ps != p->delay_ps)
            return;
    }
    n->pfc_half_ps = quanta_ps(n, &n->ports[0]) / 2;
}

/* Count the implicit refreshes of (in, prio) sent up to `t`, at xoff_since +
 * k x period (k >= 1); each reaches the peer one link delay later, all of
 * them before the XON, but at the end of the run only those due by `t`. A
 * refresh due at the very picosecond of the XON counts, as its event,
 * scheduled a period earlier, would have come first. */
static void pfc_settle(struct pnet *n, struct port *in, unsigned prio, uint64_t t, int end)
{
    uint64_t per = half_ps(n, in), t0 = in->xoff_since[prio];
    uint64_t sent = (t - t0) / per, rcvd = sent;
    if (end)
        rcvd = t - t0 >= in->delay_ps ? (t - t0 - in->delay_ps) / per : 0;
    n->refresh_frames += sent;
    in->implicit_rx += rcvd; /* not the peer's counter: its partition runs apart */
    in->xoff_implicit &= (uint8_t)~(1u << prio);
}

void pfc_settle_all(struct pnet *n)
{
    for (uint32_t i = 0; i < n->topo->n_ports; i++)
        for (unsigned m = n->ports[i].xoff_implicit; m; m &= m - 1)
            pfc_settle(n, &n->ports[i], (unsigned)__builtin_ctz(m), n->now, 1);
}

void pfc_send(struct pnet *n, struct port *in, unsigned prio, int xoff)
{
    uint8_t bit = (uint8_t)(1u << prio);
    uint32_t quanta = xoff ? n->sc->fabric.pfc_quanta : 0, train = 0;
    if (in->xoff_implicit & bit)
        pfc_settle(n, in, prio, n->now, 0);
    /* refresh_gen names the refresh event of the last explicit XOFF, which
     * runs while that XOFF holds (pfc_on_refresh): bumped only where one is
     * armed, so an implicit XOFF and its XON leave that line alone */
    if (xoff) {
        in->xoff |= bit;
        in->pause_tx++;
        n->pause_frames++;
        if (pfc_trains(n, in)) {
            in->xoff_implicit |= bit;
            in->xoff_since[prio] = n->now;
            train = PFC_TRAIN;
        } else {
            in->refresh_gen[prio]++;
            pnet_schedule(n, n->now + half_ps(n, in), EV_PFC_REFRESH, in,
                          prio | in->refresh_gen[prio] << 8);
        }
    } else {
        in->xoff &= (uint8_t)~bit;
        in->resume_tx++;
        n->resume_frames++;
    }
    if (__builtin_expect(n->cap != NULL, 0))
        capture_pfc(n, in, prio, quanta);
    pnet_schedule(n, n->now + in->delay_ps, EV_PAUSE, &n->ports[in->peer],
                  pfc_arg(prio, quanta) | train);
}

void pfc_on_refresh(struct pnet *n, struct port *in, uint32_t arg)
{
    unsigned prio = arg & 0xff;
    if ((arg >> 8) != in->refresh_gen[prio] || !(in->xoff & (1u << prio)))
        return;
    n->refresh_frames++;
    if (__builtin_expect(n->cap != NULL, 0))
        capture_pfc(n, in, prio, n->sc->fabric.pfc_quanta);
    pnet_schedule(n, n->now + in->delay_ps, EV_PAUSE, &n->ports[in->peer],
                  pfc_arg(prio, n->sc->fabric.pfc_quanta));
    pnet_schedule(n, n->now + half_ps(n, in), EV_PFC_REFRESH, in, arg);
}

static void unpause(struct pnet *n, struct port *p, unsigned prio)
{
    uint8_t bit = (uint8_t)(1u << prio);
    if (!(p->paused & bit))
        return;
    victim_note(n, p);
    p->paused &= (uint8_t)~bit;
    p->paused_ps += n->now - p->pause_since[prio];
    port_kick(n, p);
}

void pfc_on_frame(struct pnet *n, struct port *p, uint32_t arg)
{
    unsigned prio = pfc_arg_prio(arg);
    uint32_t quanta = pfc_arg_quanta(arg);
    uint8_t bit = (uint8_t)(1u << prio);
    if (n->sc->fabric.pfc_watchdog) /* only its restoration reads it */
        p->last_pause_rx[prio] = n->now;
    if (p->storm & bit)
        return; /* the watchdog ignores pause on a stormed queue */
    if (!quanta) {
        unpause(n, p, prio);
        return;
    }
    p->pause_rx++;
    if (!(p->paused & bit)) {
        victim_note(n, p);
        p->paused |= bit;
        p->pause_since[prio] = n->now;
        if (n->sc->fabric.pfc_watchdog && !p->is_host)
            pnet_schedule(n, n->now + n->sc->fabric.watchdog_detect_ps, EV_WATCHDOG,
                          p, prio | ++p->wd_gen[prio] << 8);
    }
    if (arg & PFC_TRAIN) {
        /* until the XON; read only by an expiry event already armed */
        if (p->end_armed & bit)
            p->pause_end[prio] = UINT64_MAX;
        return;
    }
    p->pause_end[prio] = n->now + pfc_pause_ps(quanta, p->bps);
    /* one expiry event per pause: a refresh only moves pause_end, and the
     * event re-arms itself when it finds the pause extended */
    if (!(p->end_armed & bit)) {
        p->end_armed |= bit;
        pnet_schedule(n, p->pause_end[prio], EV_PAUSE_END, p, prio);
    }
}

void pfc_on_pause_end(struct pnet *n, struct port *p, uint32_t arg)
{
    unsigned prio = arg & 0xff;
    uint8_t bit = (uint8_t)(1u << prio);
    if (!(p->paused & bit) || p->pause_end[prio] == UINT64_MAX) {
        p->end_armed &= (uint8_t)~bit; /* resumed by XON meanwhile, or held until it */
        return;
    }
    if (n->now < p->pause_end[prio]) {
        pnet_schedule(n, p->pause_end[prio], EV_PAUSE_END, p, arg);
        return;
    }
    p->end_armed &= (uint8_t)~bit;
    unpause(n, p, prio);
}

void pfc_on_watchdog(struct pnet *n, struct port *p, uint32_t arg)
{
    unsigned prio = arg & 0x7;
    uint8_t bit = (uint8_t)(1u << prio);
    const struct scenario *sc = n->sc;
    if (arg & WD_RESTORE) {
        uint64_t quiet = n->now - p->last_pause_rx[prio];
        if (quiet >= sc->fabric.watchdog_restore_ps)
            p->storm &= (uint8_t)~bit;
        else
            pnet_schedule(n, p->last_pause_rx[prio] + sc->fabric.watchdog_restore_ps,
                          EV_WATCHDOG, p, arg);
        return;
    }
    /* still paused since the pause this check was armed for? */
    if ((arg >> 8) != p->wd_gen[prio] || !(p->paused & bit))
        return;
    p->storm |= bit;
    n->storms++;
    unpause(n, p, prio);
    struct sw *s = pnet_sw(n, p->node);
    while (p->q[prio].len) {
        uint64_t wire = pkt_wire(n, pktq_head(&p->q[prio]));
        struct packet drop, *pk = &drop;
        pktq_pop(n, &p->q[prio], wire, pk);
        p->q_bytes -= wire;
        if (pk->kind == PK_DATA && pnet_is_train(n, pk->flow)) {
            victim_note(n, p);
            p->train_q--;
        }
        mmu_release(n, s, pk);
        n->drops_watchdog++;
        p->drops++;
        if (pk->kind == PK_DATA)
            pnet_drop_bytes(n, pk);
    }
    p->qmask &= (uint8_t)~bit;
    pnet_schedule(n, n->now + sc->fabric.watchdog_restore_ps, EV_WATCHDOG, p,
                  prio | WD_RESTORE);
}
