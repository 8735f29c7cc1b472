/* Load-balancing schemes: one descriptor row per fabric.load_balancing value,
 * read by both engines, the bound, the estimate and the reports, so that what
 * a scheme is (its name, how often it chooses, what the fluid engine and the
 * bound assume of it) is said once. The packet engine's choice functions stay
 * in src/pkt/lb.c, indexed by the same enum.
 *
 * It lives beside the scenario because the parser needs the names and every
 * reader already includes scenario.h; nothing here includes a higher layer.
 */
#ifndef CKPT_LBSCHEME_H
#define CKPT_LBSCHEME_H

#include <stddef.h>

#include "names.h"

struct scenario;

/* fabric.load_balancing: the index of its row in lb_schemes[] */
enum lb_kind { LB_ECMP, LB_WCMP, LB_FLOWLET, LB_ADAPTIVE, LB_SPRAY, LB_COUNT };

/* How often a flow's next hop may change. */
enum lb_grain {
    LB_PER_FLOW,    /* one path per flow: packets arrive in order */
    LB_PER_FLOWLET, /* a new path after a gap: reorders when flowlets move */
    LB_PER_PACKET,  /* any packet anywhere: reorders */
};

/* The path the fluid engine (and the bound) gives a per-flow transfer. */
enum lb_fluid_path {
    LB_FLUID_HASH,     /* the ECMP hash path (topo_path) */
    LB_FLUID_WEIGHTED, /* the capacity-weighted hash path (wcmp) */
};

struct lb_scheme {
    const char *name;  /* the value of fabric.load_balancing (first: names_lb) */
    enum lb_grain grain;
    /* fabric.lb.adaptive_per_packet makes the choice per packet */
    int per_packet_knob;
    /* fabric.lb.spray_random makes a per-packet choice random; the fluid
     * engine's even split then is optimistic */
    int random_knob;
    /* the choice depends on the 5-tuple hash alone: the packet engine
     * remembers it per flow at the first hop */
    int hash_only;
    enum lb_fluid_path fluid_path;
    /* what the fluid engine leaves out when flowlets can move (NULL for a
     * per-flow or per-packet scheme) */
    const char *fluid_moves;
    /* the choice reads port loads: the packet engine counts every port's
     * transmitted bytes for it */
    int tracks_load;
};

extern const struct lb_scheme lb_schemes[LB_COUNT];

/* The parser's choices and every writer's names: lb_schemes[] read as a
 * names table (a row starts with its name). */
extern const struct names names_lb;

/* The row of scheme lb; an out-of-range value (a corrupt results struct)
 * gets the first row rather than a read past the table. */
const struct lb_scheme *lb_scheme(int lb);

/* The scenario's granularity, with fabric.lb.adaptive_per_packet applied. */
enum lb_grain lb_grain(const struct scenario *sc);

/* "a or b" of the schemes with granularity g, for advice; returns buf. */
const char *lb_names_with(enum lb_grain g, char *buf, size_t len);

#endif
