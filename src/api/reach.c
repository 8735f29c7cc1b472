/* transport_reach: what a window transport (Swift, NSCC, HPCC) can carry on
 * this fabric before anything queues, said before the run (both engines). */
#include <math.h>
#include <stdio.h>

#include "api.h"
#include "../scenario/tpscheme.h"

static const double us = 1e6; /* ps a microsecond */

/* Swift: past this window every ACK of an unloaded path shrinks it;
 * *capped when max_cwnd, not the round trip's target, sets it. */
static double swift_reach(const struct scenario *sc, uint32_t hops, double rtt, int *capped)
{
    const struct swift_params *p = &sc->transport.swift;
    double at = swift_window_at(p, hops, rtt);
    *capped = at >= p->max_cwnd;
    return fmin(fmax(at, p->min_cwnd), p->max_cwnd);
}

/* NSCC's base: every RTT sample lowers it, so one given above the path's
 * becomes the path's */
static double nscc_base(const struct nscc_params *p, double rtt)
{
    return p->base_rtt_ps != UINT64_MAX && (double)p->base_rtt_ps < rtt ? (double)p->base_rtt_ps
                                                                       : rtt;
}

/* NSCC on an unloaded path: no marks, so no cut; its increases run the
 * window to its largest, and a packet goes while it fits (whole packets).
 * (Quick adapt sets the window to what a period delivered, which for a
 * window sent at line rate is the window.) */
static double nscc_reach(const struct scenario *sc, double rtt, double line, double mss,
                         int *capped)
{
    const struct nscc_params *p = &sc->transport.nscc;
    double most = nscc_max_window(p, line, nscc_base(p, rtt), mss);
    *capped = most >= NSCC_MAX_PACKETS * mss;
    return floor(most / mss);
}

/* HPCC: W = line x T at most (an idle hop's utilisation only raises it to
 * there), its rate W / T then the line's; a packet goes while less than W is
 * out, and never fewer than an ACK's worth of packets. */
static double hpcc_reach(const struct scenario *sc, double line, double mss)
{
    const struct hpcc_params *p = &sc->transport.hpcc;
    return fmax(ceil(hpcc_window(line, p->base_rtt_ps) / mss), p->ack_interval);
}

/* ceil to the hundredth of a microsecond, for a setting to suggest */
static double up_us(double ps)
{
    return ceil(ps / us * 100) / 100;
}

static void swift_say(struct results *r, const struct swift_params *p, double rtt, double win,
                      uint32_t hops, int capped, double carry, double pace)
{
    if (capped) { /* (a window past the round trip's target: the cap holds it) */
        snprintf(r->transport_warning, sizeof r->transport_warning,
                 "Swift's windows stop at transport.swift.max_cwnd (%.4g packets; the packet "
                 "engine keeps at most 256) over the unloaded round trip (%.4g us): the "
                 "transfers together carry at most ~%.4g Gbps, %.3g%% of the bound's pace (the "
                 "write ~%.3gx its bound or more); more transfers at once (writers, "
                 "storage.stripe_count) or a larger fabric.mtu carry more",
                 p->max_cwnd, rtt / us, carry / 1e9, 100 * carry / pace, pace / carry);
        return;
    }
    snprintf(r->transport_warning, sizeof r->transport_warning,
             "Swift's target delay (transport.swift.base_target %.4g us + %u switches x %.4g us, "
             "flow scaling up to %.4g us) meets the unloaded round trip (%.4g us) at %.3g "
             "packets a window: the transfers together carry ~%.4g Gbps at it before any queue, "
             "%.3g%% of the bound's pace (the write ~%.3gx its bound); a base_target of %.4g us "
             "or more lets a window fill the path",
             (double)p->base_target_ps / us, hops, (double)p->hop_scale_ps / us,
             (double)p->fs_range_ps / us, rtt / us, win, carry / 1e9, 100 * carry / pace,
             pace / carry, up_us(rtt - hops * (double)p->hop_scale_ps));
}

/* The window that carries the line over rtt, whole packets, at most the
 * engine's; the base_rtt or max_window that gives it, in the words of
 * what the user set. */
static void nscc_say(struct results *r, const struct nscc_params *p, double rtt, double line,
                     double win, double mss, int capped, double carry, double pace)
{
    char fix[160];
    if (capped) {
        snprintf(r->transport_warning, sizeof r->transport_warning,
                 "NSCC's windows stop at %.4g packets (the most the packet engine keeps in "
                 "flight) over the unloaded round trip (%.4g us): the transfers together carry "
                 "at most ~%.4g Gbps, %.3g%% of the bound's pace (the write ~%.3gx its bound or "
                 "more); more transfers at once (writers, storage.stripe_count) or a larger "
                 "fabric.mtu carry more",
                 win, rtt / us, carry / 1e9, 100 * carry / pace, pace / carry);
        return;
    }
    double path = ceil(line * rtt * 1e-12 / 8 / mss), want = fmin(path, NSCC_MAX_PACKETS);
    const char *to = path > NSCC_MAX_PACKETS ? "reach 256 packets" : "fill the path";
    double need = want * mss * 8 / line * 1e12; /* max_window x base that holds it, ps */
    int given = p->base_rtt_ps != UINT64_MAX && (double)p->base_rtt_ps < rtt;
    double base = nscc_base(p, rtt);
    if (given && need / p->max_bdp <= rtt)
        snprintf(fix, sizeof fix,
                 "a base_rtt of %.4g us or more (auto: each flow's own round trip) lets the "
                 "window %s", up_us(need / p->max_bdp), to);
    else
        snprintf(fix, sizeof fix, "%sa max_window of %.3g or more lets the window %s",
                 given ? "base_rtt auto and " : "", ceil(need / rtt * 100) / 100, to);
    snprintf(r->transport_warning, sizeof r->transport_warning,
             "NSCC's window stops at transport.nscc.max_window x line x base_rtt (%.3g x %.4g "
             "Gbps x %.4g us: %.4g packets) under the unloaded round trip (%.4g us): the "
             "transfers together carry at most ~%.4g Gbps, %.3g%% of the bound's pace (the "
             "write ~%.3gx its bound or more); %s",
             p->max_bdp, line / 1e9, base / us, win, rtt / us, carry / 1e9, 100 * carry / pace,
             pace / carry, fix);
}

static void hpcc_say(struct results *r, const struct hpcc_params *p, double rtt, double line,
                     double win, double mss, double carry, double pace)
{
    int floor_set = win > ceil(hpcc_window(line, p->base_rtt_ps) / mss);
    snprintf(r->transport_warning, sizeof r->transport_warning,
             "HPCC's window (line x transport.hpcc.base_rtt: %.4g Gbps x %.4g us, %.4g packets%s) "
             "bounds what is in flight over the unloaded round trip (%.4g us): the transfers "
             "together carry at most ~%.4g Gbps, %.3g%% of the bound's pace (the write ~%.3gx "
             "its bound or more); a base_rtt of %.4g us or more (0: each flow's own round "
             "trip) lets the window fill the path",
             line / 1e9, (double)p->base_rtt_ps / us, win,
             floor_set ? ", transport.hpcc.ack_interval's" : "", rtt / us,
             carry / 1e9, 100 * carry / pace, pace / carry, up_us(rtt));
}

void transport_reach(struct results *r, const struct topo *t, const struct workload *w,
                     const struct scenario *sc)
{
    r->transport_warning[0] = '\0';
    r->reach_s = 0;
    int cc = sc->transport.cc;
    if ((cc != CC_SWIFT && cc != CC_NSCC && cc != CC_HPCC) || !w->n || !(r->bound_s > 0))
        return;
    if (cc == CC_HPCC && !sc->transport.hpcc.base_rtt_ps)
        return; /* each flow's T its own round trip: W = line x T fills it */
    const struct proto_scheme *ps = proto_scheme(sc->transport.protocol);
    struct wire_fmt wf = scenario_wire(sc);
    uint64_t data = wire_frame(wf), ack = ps->ack_wire ? ps->ack_wire : 16 + wf.overhead;
    /* each transfer at once at its window's reach: more than any run
     * carries (starts spread, queues lengthen the round trip) */
    double carry = 0, worst_rtt = 0, worst_win = 0, worst_line = 0, worst = HUGE_VAL, most_rtt = 0;
    uint32_t worst_hops = 0;
    int capped = 0;  /* the worst window is a fixed cap's, not the round trip's */
    int limited = 0; /* a window holds a transfer under its line (NSCC, HPCC) */
    for (uint32_t i = 0; i < w->n; i++) {
        if (!w->xfers[i].bytes)
            continue;
        /* a full data packet out, the ACK back (as the transports' send
         * stamps and ACK times see it) */
        uint32_t path[TOPO_MAX_HOPS];
        uint32_t links = workload_path(w, t, i, path);
        double rtt = (double)topo_round_trip_ps(t, sc, path, links, data, ack);
        uint32_t hops = links > 1 ? links - 1 : 0;
        double line = links ? (double)t->ports[path[0]].bps : 0;
        most_rtt = fmax(most_rtt, rtt);
        int cap = 0;
        double win = cc == CC_SWIFT ? swift_reach(sc, hops, rtt, &cap)
                     : cc == CC_NSCC ? nscc_reach(sc, rtt, line, wf.payload, &cap)
                                     : hpcc_reach(sc, line, wf.payload);
        double bps = win * wf.payload * 8 / (rtt * 1e-12), key = win;
        if (cc != CC_SWIFT) { /* a NIC sends at most its line */
            if (!(bps < line)) {
                carry += line;
                continue;
            }
            limited = 1;
            key = bps / line;
        }
        carry += bps;
        if (key < worst) {
            worst = key;
            worst_win = win;
            worst_rtt = rtt;
            worst_hops = hops;
            worst_line = line;
            capped = cap;
        }
    }
    double pace = (double)r->ckpt_bytes * 8 / r->bound_s; /* the bound's bits/s */
    if ((cc != CC_SWIFT && !limited) || !(carry > 0) || !(carry < pace))
        return;
    r->reach_s = (double)r->ckpt_bytes * 8 / carry;
    /* a window's last packets arrive without waiting for their ACKs: at
     * most half a round trip (the ACK is the smaller) under the pace */
    if (cc != CC_SWIFT)
        r->reach_s = fmax(r->bound_s, r->reach_s - most_rtt * 1e-12 / 2);
    if (cc == CC_SWIFT)
        swift_say(r, &sc->transport.swift, worst_rtt, worst_win, worst_hops, capped, carry,
                  pace);
    else if (cc == CC_NSCC)
        nscc_say(r, &sc->transport.nscc, worst_rtt, worst_line, worst_win, wf.payload, capped,
                 carry, pace);
    else
        hpcc_say(r, &sc->transport.hpcc, worst_rtt, worst_line, worst_win, wf.payload, carry,
                 pace);
}
