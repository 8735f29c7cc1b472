/* The transports' descriptor rows (see tpscheme.h). */
#include "tpscheme.h"

#include <string.h>

#include "../core/wire.h" /* ROCE_OVERHEAD */

const struct cc_scheme cc_schemes[CC_COUNT] = {
    [CC_NONE] = {
        .name = "none",
        .events_scale = {1.0, 1.0},
        .fluid = "modelled: max-min fair shares at line rate",
        .tune = "none",
    },
    [CC_DCQCN] = {
        .name = "dcqcn",
        .keys = "transport.dcqcn.",
        /* BENCHMARKS.md's burst: 23.34 M events against 16.25 M without */
        .events_scale = {1.44, 1.17},
        .fluid = "not modelled: the fluid engine gives max-min shares at once (optimistic)",
        .fluid_leaves = "rate control",
        .rate_control = 1,
        .sends_cnps = 1,
        .tune = "dcqcn;transport.dcqcn.preset=nvidia,dcqcn;transport.dcqcn.preset=paper",
    },
    [CC_DCTCP] = {
        .name = "dctcp",
        .keys = "transport.dctcp.",
        /* an ACK per two segments through the fabric: bench-1024 x 256
         * (BENCHMARKS.md), 14.16 events a packet against PFC-only's 8.08 */
        .events_scale = {1.75, 1.75},
        .fluid = "not modelled: the fluid engine gives max-min shares at once (optimistic)",
        .fluid_leaves = "TCP windows (slow start, cuts, timeouts, RTT bias of the shares)",
        .rate_control = 1,
        .tcp = 1,
        .tune = "dctcp;transport.dctcp.g=0.0625,dctcp;transport.dctcp.g=0.25",
    },
    [CC_CUBIC] = {
        .name = "cubic",
        .keys = "transport.cubic.",
        /* the same, 13.69 events a packet */
        .events_scale = {1.69, 1.69},
        .fluid = "not modelled: the fluid engine gives max-min shares at once (optimistic)",
        .fluid_leaves = "TCP windows (slow start, cuts, timeouts, RTT bias of the shares)",
        .rate_control = 1,
        .tcp = 1,
        .tune = "cubic;transport.cubic.beta=0.7,cubic;transport.cubic.beta=0.8",
    },
};

const struct rx_scheme rx_schemes[RX_COUNT] = {
    [RX_GBN] = {"gbn", 0, "reordering: go-back-N resends"},
    [RX_OOO] = {"ooo", 1, NULL},
    [RX_TCP] = {"tcp", 1, NULL},
};

const struct proto_scheme proto_schemes[PROTO_COUNT] = {
    /* RoCEv2: IB path MTU of payload; 8 preamble+SFD, 12 gap, 14 Ethernet,
     * 20 IPv4, 8 UDP, 12 BTH, 4 ICRC, 4 FCS (IBTA Annex A17) */
    [PROTO_ROCE] = {"roce", 0, ROCE_OVERHEAD,
                    "preamble+gap 20, Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4, FCS 4"},
    /* TCP/IPv4 with timestamps (Linux's default, RFC 7323): fabric.mtu is
     * the IP MTU (9000 B jumbo frames), MSS = MTU - 52 */
    [PROTO_TCP] = {"tcp", 52, 90,
                   "preamble+gap 20, Ethernet 14, FCS 4; in the MTU: IPv4 20, TCP 20, "
                   "timestamps 12"},
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
