/* The load-balancing registry (see lbscheme.h). */
#include "lbscheme.h"

#include <stddef.h>
#include <stdio.h>

#include "scenario.h"

const struct lb_scheme lb_schemes[LB_COUNT] = {
    [LB_ECMP] = {"ecmp", LB_PER_FLOW, 0, 0, 1, LB_FLUID_HASH, NULL, 0},
    [LB_WCMP] = {"wcmp", LB_PER_FLOW, 0, 0, 0,
                 LB_FLUID_WEIGHTED, NULL, 0},
    /* a flow at line rate has no gaps: its first flowlet is the ECMP path */
    [LB_FLOWLET] = {"flowlet", LB_PER_FLOWLET, 0, 0, 0,
                    LB_FLUID_HASH, "flowlets move when pauses outlast the timeout", 0},
    /* placed once, on the least loaded port at its start: here the ECMP one */
    [LB_ADAPTIVE] = {"adaptive", LB_PER_FLOWLET, 1, 0, 0,
                     LB_FLUID_HASH, "least-loaded placement; flowlets move", 1},
    [LB_SPRAY] = {"spray", LB_PER_PACKET, 0, 1, 0, LB_FLUID_HASH, NULL, 0},
};

/* names_lb reads a row's name as its first member */
_Static_assert(offsetof(struct lb_scheme, name) == 0, "lb_scheme.name first");
const struct names names_lb = {lb_schemes, sizeof lb_schemes[0], LB_COUNT};

const struct lb_scheme *lb_scheme(int lb)
{
    return &lb_schemes[lb >= 0 && lb < LB_COUNT ? lb : 0];
}

enum lb_grain lb_grain(const struct scenario *sc)
{
    const struct lb_scheme *s = lb_scheme(sc->fabric.load_balancing);
    return s->per_packet_knob && sc->fabric.adaptive_per_packet ? LB_PER_PACKET : s->grain;
}

const char *lb_names_with(enum lb_grain g, char *buf, size_t len)
{
    size_t o = 0, n = 0, k = 0;
    for (int i = 0; i < LB_COUNT; i++)
        n += lb_schemes[i].grain == g;
    buf[0] = '\0';
    for (int i = 0; i < LB_COUNT && o < len; i++) {
        if (lb_schemes[i].grain != g)
            continue;
        k++;
        int w = snprintf(buf + o, len - o, "%s%s", k == 1 ? "" : k == n ? " or " : ", ",
                         lb_schemes[i].name);
        o += w > 0 ? (size_t)w : 0;
    }
    return buf;
}
