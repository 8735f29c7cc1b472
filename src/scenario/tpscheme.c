/* The transports' descriptor rows (see tpscheme.h). */
#include "tpscheme.h"
#include "scenario.h"

#include <math.h>
#include <string.h>

#include "../core/wire.h" /* ROCE_OVERHEAD */

const struct cc_scheme cc_schemes[CC_COUNT] = {
    [CC_NONE] = {
        .name = "none",
        .events_scale = {1.0, 1.0},
        /* UEC lossy, bench-1024 x 256: 144.90 events a packet against
         * PFC-only's 8.08 (nothing slows the 32:1 incast: most packets are
         * trimmed, NACKed and resent, some again) */
        .trim_events = 16.9,
        .fluid = "modelled: max-min fair shares at line rate",
        .tune = "none",
    },
    [CC_DCQCN] = {
        .name = "dcqcn",
        .ecn_driven = 1,
        .keys = "transport.dcqcn.",
        /* BENCHMARKS.md's burst: 23.34 M events against 16.25 M without */
        .events_scale = {1.44, 1.17},
        .fluid = "not modelled: the fluid engine gives max-min shares at once (optimistic)",
        .fluid_leaves = "rate control",
        .rate_control = 1,
        .sends_cnps = 1,
        .tune = "dcqcn;transport.dcqcn.preset=nvidia,dcqcn;transport.dcqcn.preset=paper",
    },
    [CC_HPCC] = {
        .name = "hpcc",
        .keys = "transport.hpcc.",
        /* BENCHMARKS.md's burst: 43.38 M events against 17.41 M without
         * (an ACK per packet through the fabric; no CNPs) */
        /* [1]: ACKs direct (transport.ack_path), bench-1024 x 256:
         * BENCHMARKS.md "ACKs sent direct" */
        .events_scale = {2.49, 1.46},
        .fluid = "not modelled: the fluid engine gives max-min shares at line rate; HPCC "
                 "holds its busiest hop near transport.hpcc.eta (optimistic)",
        .fluid_leaves = "rate control: the busiest hop held near transport.hpcc.eta of its "
                        "capacity",
        .rate_control = 1,
        .window = 1,
        .tune = "hpcc;transport.hpcc.eta=0.95,hpcc;transport.hpcc.eta=0.9",
    },
    [CC_NSCC] = {
        .name = "nscc",
        .ecn_driven = 1,
        .keys = "transport.nscc.",
        /* bench-1024 x 256 under the per-ACK decrease (BENCHMARKS.md
         * NSCC): 19.27 events a packet with its ACKs through the fabric,
         * 9.80 direct, against PFC-only's 8.08; no CNPs */
        .events_scale = {2.39, 1.21},
        /* UEC lossy (trimming, ACKs direct), the same burst: 13.32 events
         * a packet, 3.52 above the lossless 9.80 */
        .trim_events = 0.44,
        .fluid = "not modelled: the fluid engine gives max-min shares at once; NSCC's "
                 "steady state is those shares on full links, less its ramp, cuts and "
                 "the queue at its target delay (optimistic)",
        .fluid_leaves = "NSCC window control",
        .rate_control = 1,
        .window = 1,
        .tune = "nscc;transport.nscc.target_delay=auto,nscc;transport.nscc.target_delay=2us",
        /* htsim's UEC switches (main_uec.cpp): RED from 0.2 to 0.8 of the
         * network's BDP, marking every packet at the top (its ECN queue's
         * probability reaches 1); BDP at htsim's reference RTT, 12 us */
        .ecn_kmin_us = 2.4,
        .ecn_kmax_us = 9.6,
        .defaults = "fabric.ecn.pmax=1",
    },
    [CC_SWIFT] = {
        .name = "swift",
        .keys = "transport.swift.",
        /* BENCHMARKS.md "Swift": 22.45 M events on the burst against 16.25 M
         * without, an ACK per 4 packets through the fabric */
        /* [1]: ACKs direct (transport.ack_path), bench-1024 x 256:
         * BENCHMARKS.md "ACKs sent direct" */
        .events_scale = {1.38, 1.07},
        .fluid = "steady state modelled: max-min shares at line rate, which Swift holds "
                 "with a standing queue of about its target delay less the base RTT at each "
                 "bottleneck; the window's additive ramp from init_cwnd and that queue's "
                 "delay are not (optimistic)",
        .fluid_leaves = "Swift's window ramp and standing queue",
        .rate_control = 1,
        .window = 1,
        .tune = "swift;transport.swift.base_target=10us,swift;transport.swift.base_target=20us,"
                "swift;transport.swift.base_target=40us",
    },
    [CC_DCTCP] = {
        .name = "dctcp",
        .ecn_driven = 1,
        .keys = "transport.dctcp.",
        /* an ACK per two segments through the fabric: bench-1024 x 256
         * (BENCHMARKS.md), 14.16 events a packet against PFC-only's 8.08 */
        /* [1]: ACKs direct (transport.ack_path), bench-1024 x 256:
         * BENCHMARKS.md "ACKs sent direct" */
        .events_scale = {1.75, 1.12},
        .fluid = "not modelled: the fluid engine gives max-min shares at once (optimistic); "
                 "where flows of different round trips share a full link, DCTCP's shares "
                 "follow 1 / RTT (its window grows a segment a round trip): listed, either way",
        .fluid_leaves = "TCP windows (slow start, cuts, timeouts)",
        .rate_control = 1,
        .window = 1,
        .tcp = 1,
        .tune = "dctcp;transport.dctcp.g=0.0625,dctcp;transport.dctcp.g=0.25",
        .fluid_rtt = "TCP windows (slow start, cuts, timeouts) and RTT bias: flows of different "
                     "round trips share a full link, shares ~ 1 / RTT, not max-min",
        /* DCTCP's switches (Alizadeh et al., SIGCOMM 2010, 3.3): marking on
         * the instantaneous queue at a single threshold K > C x RTT / 7,
         * i.e. kmin = kmax = K and every packet past it marked. RTT: 12 us,
         * a leaf-spine round trip (as the nscc row), so K > 1.7 us; 2 us
         * keeps a margin. */
        .ecn_kmin_us = 2.0,
        .ecn_kmax_us = 2.0,
        .defaults = "fabric.ecn.pmax=1",
    },
    [CC_CUBIC] = {
        .name = "cubic",
        .keys = "transport.cubic.",
        /* the same, 13.69 events a packet */
        /* [1]: ACKs direct (transport.ack_path), bench-1024 x 256:
         * BENCHMARKS.md "ACKs sent direct" */
        .events_scale = {1.69, 1.07},
        .fluid = "not modelled: the fluid engine gives max-min shares at once (optimistic); "
                 "where flows of different round trips share a full link, CUBIC's shares "
                 "lean to the shorter one, less than 1 / RTT (its window grows in time, not "
                 "per round trip): listed, either way",
        .fluid_leaves = "TCP windows (slow start, cuts, timeouts)",
        .rate_control = 1,
        .window = 1,
        .tcp = 1,
        .tune = "cubic;transport.cubic.beta=0.7,cubic;transport.cubic.beta=0.8",
        .fluid_rtt = "TCP windows (slow start, cuts, timeouts) and RTT bias: flows of different "
                     "round trips share a full link, shares lean to the shorter (less than "
                     "1 / RTT), not max-min",
    },
};

const struct rx_scheme rx_schemes[RX_COUNT] = {
    [RX_GBN] = {"gbn", 0, "reordering: go-back-N resends"},
    [RX_OOO] = {"ooo", 1, NULL},
    [RX_UEC] = {"uec", 1, NULL},
    [RX_TCP] = {"tcp", 1, NULL},
};

const struct proto_scheme proto_schemes[PROTO_COUNT] = {
    /* RoCEv2: IB path MTU of payload; 8 preamble+SFD, 12 gap, 14 Ethernet,
     * 20 IPv4, 8 UDP, 12 BTH, 4 ICRC, 4 FCS (IBTA Annex A17) */
    [PROTO_ROCE] = {"roce", 0, ROCE_OVERHEAD,
                    "preamble+gap 20, Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4, FCS 4", 0, 0},
    /* TCP/IPv4 with timestamps (Linux's default, RFC 7323): fabric.mtu is
     * the IP MTU (9000 B jumbo frames), MSS = MTU - 52 */
    [PROTO_TCP] = {"tcp", 52, 90,
                   "preamble+gap 20, Ethernet 14, FCS 4; in the MTU: IPv4 20, TCP 20, "
                   "timestamps 12", 0, 0},
    /* Ultra Ethernet Transport over UDP (UEC 1.0, June 2025; each byte and
     * its source in docs/engine.md): fabric.mtu is the payload. Data: UDP
     * (its source port is the entropy, so no entropy header), PDS RUD
     * request 12, SES standard request 44. ACK: PDS ACK_CC 32 (NSCC's CC
     * state, the SACK bitmap) and the SES response 12, 110 on the wire;
     * NACK: PDS NACK 16, a 62 B frame padded to Ethernet's 64, 84 on the
     * wire. A lossy fabric that trims, sprays by entropy and recovers
     * selectively; its congestion control NSCC unless transport.cc names
     * another. */
    [PROTO_UEC] = {"uec", 0, 122,
                   "preamble+gap 20, Ethernet 14, IPv4 20, UDP 8, PDS 12, SES 44, FCS 4",
                   20 + 14 + 20 + 8 + 32 + 12 + 4, 20 + 64},
};

/* BENCHMARKS.md "RCCC", bench-1024 x 256, cc none: 16.12 events a packet
 * through the fabric, 10.52 direct, against PFC-only's 8.08 (a grant of
 * transport.uec.rccc_pull packets: a pacer event and a credit packet, the
 * ACKs direct with them). NSCC + RCCC direct: 11.49, the sum's 1.35 x 8.08
 * = 10.9 within 6%. */
const double rccc_events_scale[2] = {2.00, 1.30};

const char *const proto_defaults[PROTO_COUNT] = {
    /* UEC: lossy (PFC off), its receiver, spraying over htsim's 256
     * entropies, trimming, NSCC (the 256-node transports burst: 100.8% of
     * its bound against 125.5% with no congestion control) */
    [PROTO_UEC] = "fabric.pfc.enabled=false;transport.receiver=uec;fabric.load_balancing=spray;"
                  "fabric.trim.enabled=true;transport.uec.entropies=256;transport.cc=nscc",
};

const struct proto_scheme *proto_scheme(int protocol)
{
    return &proto_schemes[protocol >= 0 && protocol < PROTO_COUNT ? protocol : 0];
}

const struct cc_scheme *cc_scheme(int cc)
{
    return &cc_schemes[cc >= 0 && cc < CC_COUNT ? cc : 0];
}

const struct rx_scheme *rx_scheme(int kind)
{
    return &rx_schemes[kind >= 0 && kind < RX_COUNT ? kind : 0];
}

const struct cc_scheme *cc_scheme_by_name(const char *name)
{
    for (int i = 0; i < CC_COUNT; i++)
        if (!strcmp(cc_schemes[i].name, name))
            return &cc_schemes[i];
    return NULL;
}

uint64_t uec_auto_rto_ps(const struct scenario *sc, uint64_t *queue, uint64_t *bps)
{
    /* htsim's UEC (main_uec.cpp): min_rto = 15 us + 6 x the time to drain
     * one full queue at line rate (2 priority queues, 3 hops). Its queue
     * trims at its size: here fabric.trim.threshold where set, else the
     * most one lossy egress queue takes of a switch's shared buffer (its
     * dynamic threshold alone: lossy_alpha / (1 + lossy_alpha)); the line
     * is the slower host link, where an incast's queue drains. */
    uint64_t buf = sc->fabric.leaf_buffer > sc->fabric.spine_buffer ? sc->fabric.leaf_buffer
                                                                    : sc->fabric.spine_buffer;
    double a = sc->fabric.mmu_lossy_alpha;
    uint64_t q = (uint64_t)((double)buf * a / (1 + a));
    if (sc->fabric.trim && sc->fabric.trim_threshold && sc->fabric.trim_threshold < q)
        q = sc->fabric.trim_threshold;
    uint64_t line = sc->cluster.nic_bps < sc->storage.nic_bps ? sc->cluster.nic_bps
                                                              : sc->storage.nic_bps;
    if (queue)
        *queue = q;
    if (bps)
        *bps = line;
    double drain = line ? (double)q * 8 / (double)line * 1e12 : 0;
    return UINT64_C(15000000) + (uint64_t)(6 * drain);
}

uint64_t transport_rto_ps(const struct scenario *sc, const char **key)
{
    const char *k;
    uint64_t ps;
    switch (sc->transport.receiver) {
    case RX_GBN: /* IB's local ACK timeout: 4.096 us x 2^n */
        k = "ack_timeout";
        ps = (uint64_t)4096000 << sc->transport.ack_timeout;
        break;
    case RX_TCP:
        k = "tcp.rto_min";
        ps = sc->transport.tcp.rto_min_ps;
        break;
    default: /* ooo and uec: the selective receivers' timer */
        k = "sack_timeout";
        ps = sc->transport.sack_timeout_ps;
        if (ps == UINT64_MAX)
            ps = sc->transport.receiver == RX_UEC ? uec_auto_rto_ps(sc, NULL, NULL)
                                                  : SACK_TIMEOUT_IRN_PS;
        break;
    }
    if (key)
        *key = k;
    return ps;
}

/* flow scaling's alpha: fs = alpha / sqrt(w) - alpha / sqrt(fs_max_cwnd)
 * runs from fs_range at fs_min_cwnd to 0 at fs_max_cwnd */
static double swift_alpha(const struct swift_params *p)
{
    return (double)p->fs_range_ps / (1 / sqrt(p->fs_min_cwnd) - 1 / sqrt(p->fs_max_cwnd));
}

double swift_target_ps(const struct swift_params *p, uint32_t hops, double w)
{
    double range = (double)p->fs_range_ps, alpha = swift_alpha(p);
    double fs = alpha / sqrt(w) - alpha / sqrt(p->fs_max_cwnd);
    fs = fs < 0 ? 0 : fs > range ? range : fs;
    return (double)p->base_target_ps + (double)hops * (double)p->hop_scale_ps + fs;
}

double swift_window_at(const struct swift_params *p, uint32_t hops, double d)
{
    double fixed = (double)p->base_target_ps + (double)hops * (double)p->hop_scale_ps;
    if (fixed >= d)
        return HUGE_VAL;
    double need = d - fixed;
    if (need > (double)p->fs_range_ps)
        return 0;
    double s = need / swift_alpha(p) + 1 / sqrt(p->fs_max_cwnd);
    return 1 / (s * s);
}

double nscc_max_window(const struct nscc_params *p, double line_bps, double base_ps, double mss)
{
    double w = p->max_bdp * (base_ps * 1e-12 * line_bps / 8);
    if (w > NSCC_MAX_PACKETS * mss)
        w = NSCC_MAX_PACKETS * mss;
    return w < mss ? mss : w;
}

double hpcc_window(double bps, uint64_t t_ps)
{
    return bps * (double)t_ps * 1e-12 / 8;
}
