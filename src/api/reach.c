/* transport_reach: what a delay-target transport can carry on this fabric
 * before anything queues, said before the run (both engines). */
#include <math.h>
#include <stdio.h>

#include "api.h"
#include "../scenario/tpscheme.h"

void transport_reach(struct results *r, const struct topo *t, const struct workload *w,
                     const struct scenario *sc)
{
    r->transport_warning[0] = '\0';
    r->reach_s = 0;
    if (sc->transport.cc != CC_SWIFT || !w->n || !(r->bound_s > 0))
        return;
    const struct swift_params *p = &sc->transport.swift;
    const struct proto_scheme *ps = proto_scheme(sc->transport.protocol);
    struct wire_fmt wf = scenario_wire(sc);
    uint64_t data = wire_frame(wf), ack = ps->ack_wire ? ps->ack_wire : 16 + wf.overhead;
    /* each transfer at once at its window's reach: more than any run
     * carries (starts spread, queues lengthen the round trip) */
    double carry = 0, worst_rtt = 0, worst_win = HUGE_VAL;
    uint32_t worst_hops = 0;
    int capped = 0; /* the worst window is max_cwnd's, not the target's */
    for (uint32_t i = 0; i < w->n; i++) {
        if (!w->xfers[i].bytes)
            continue;
        /* a full data packet out, the ACK back (as Swift's send stamp and
         * ACK time it) */
        uint32_t path[TOPO_MAX_HOPS];
        uint32_t links = workload_path(w, t, i, path);
        double rtt = (double)topo_round_trip_ps(t, sc, path, links, data, ack);
        uint32_t hops = links > 1 ? links - 1 : 0;
        /* past this window every ACK of an unloaded path shrinks it */
        double at = swift_window_at(p, hops, rtt);
        double win = fmin(fmax(at, p->min_cwnd), p->max_cwnd);
        carry += win * wf.payload * 8 / (rtt * 1e-12);
        if (win < worst_win) {
            worst_win = win;
            worst_rtt = rtt;
            worst_hops = hops;
            capped = at >= p->max_cwnd;
        }
    }
    double pace = (double)r->ckpt_bytes * 8 / r->bound_s; /* the bound's bits/s */
    if (!(carry > 0) || !(carry < pace))
        return;
    r->reach_s = (double)r->ckpt_bytes * 8 / carry;
    const double us = 1e6; /* ps a microsecond */
    if (capped) { /* (a window past the round trip's target: the cap holds it) */
        snprintf(r->transport_warning, sizeof r->transport_warning,
                 "Swift's windows stop at transport.swift.max_cwnd (%.4g packets; the packet "
                 "engine keeps at most 256) over the unloaded round trip (%.4g us): the "
                 "transfers together carry at most ~%.4g Gbps, %.3g%% of the bound's pace (the "
                 "write ~%.3gx its bound or more); more transfers at once (writers, "
                 "storage.stripe_count) or a larger fabric.mtu carry more",
                 p->max_cwnd, worst_rtt / us, carry / 1e9, 100 * carry / pace, pace / carry);
        return;
    }
    snprintf(r->transport_warning, sizeof r->transport_warning,
             "Swift's target delay (transport.swift.base_target %.4g us + %u switches x %.4g us, "
             "flow scaling up to %.4g us) meets the unloaded round trip (%.4g us) at %.3g "
             "packets a window: the transfers together carry ~%.4g Gbps at it before any queue, "
             "%.3g%% of the bound's pace (the write ~%.3gx its bound); a base_target of %.4g us "
             "or more lets a window fill the path",
             (double)p->base_target_ps / us, worst_hops, (double)p->hop_scale_ps / us,
             (double)p->fs_range_ps / us, worst_rtt / us, worst_win, carry / 1e9,
             100 * carry / pace, pace / carry,
             ceil((worst_rtt - worst_hops * (double)p->hop_scale_ps) / us * 100) / 100);
}
