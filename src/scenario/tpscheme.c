/* The transports' descriptor rows (see tpscheme.h). */
#include "tpscheme.h"

#include <string.h>

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
    [CC_SWIFT] = {
        .name = "swift",
        .keys = "transport.swift.",
        /* BENCHMARKS.md "Swift": 22.45 M events on the burst against 16.25 M
         * without, an ACK per 4 packets through the fabric */
        .events_scale = {1.38, 1.38},
        .fluid = "steady state modelled: max-min shares at line rate, which Swift holds "
                 "with a standing queue of about its target delay less the base RTT at each "
                 "bottleneck; the window's additive ramp from init_cwnd and that queue's "
                 "delay are not (optimistic)",
        .fluid_leaves = "Swift's window ramp and standing queue",
        .rate_control = 1,
        .tune = "swift;transport.swift.base_target=10us,swift;transport.swift.base_target=20us,"
                "swift;transport.swift.base_target=40us",
    },
};

const struct rx_scheme rx_schemes[RX_COUNT] = {
    [RX_GBN] = {"gbn", 0, "reordering: go-back-N resends"},
    [RX_OOO] = {"ooo", 1, NULL},
};

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
