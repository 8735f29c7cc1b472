/* Fabric designer: every valid leaf-spine (two tiers) and Clos (three
 * tiers) for a cluster and a set of switch profiles, each with its bill of
 * materials and the scenario keys that build it (docs/size.md, "The
 * designs").
 *
 * The rules, which the hand count of tests/test_design.c follows:
 * - a design names a leaf and a spine profile (three tiers: super-spines
 *   are spine profiles too); breakout 1, one NIC a port, every NIC no
 *   faster than a leaf port; fabric links run at the slower port speed;
 * - a compute leaf holds h nodes (h x NICs host ports, 1 <= h <= nodes)
 *   and u uplinks, h x NICs + u <= its ports, with no more uplink capacity
 *   than host capacity (u x link <= h x NICs x NIC speed, rounded up to a
 *   whole uplink);
 * - a storage leaf has the same u uplinks and as many storage nodes as its
 *   other ports hold (at most the storage nodes there are, at least one),
 *   or, a second design when it is fewer, as many as the uplinks carry at
 *   1:1 (u x link >= storage nodes x NICs x NIC speed);
 * - two tiers: s spines with k links to each leaf, s x k = u, and every
 *   leaf on every spine: leaves x k <= a spine's ports;
 * - three tiers: pods of p compute leaves (storage leaves in pods of their
 *   own, p a pod too), u spines a pod with one link to each leaf of the
 *   pod, and p super-spines a plane (u planes): a spine's ports split 1:1,
 *   2p <= its ports; a super-spine has one link to each pod, pods <= its
 *   ports; at least two pods; for each count of compute pods one p (the
 *   fewest leaves a pod that holds them), each p once;
 * - oversubscription above the leaves (spine_ratios): for each ratio r
 *   asked, ceil(p / r) super-spines a plane instead of p (p + ceil(p/r) <=
 *   a spine's ports), each count once (a larger r giving the same count
 *   as a smaller one is skipped) and fewer than p (r > 1 is never 1:1);
 * - breakout (breakouts): a leaf's host ports split b_d ways when a lane
 *   is no slower than every NIC; its uplinks and the spines' ports split
 *   b_u and b_s ways with lanes of one speed (b_u = b_s = 1 as before, at
 *   the slower port); super-spines split as spines. Ports count physical:
 *   ceil(h NICs / b_d) + ceil(u / b_u) <= a leaf's ports, a spine's links
 *   down and up each over b_s, rounded up, <= its ports;
 * - storage spread (storage_pods bit 1): three tiers without storage pods,
 *   storage leaf j in compute pod j mod pods (fabric.storage_pods spread),
 *   so the first pod's spines have p + ceil(storage leaves / pods) links
 *   down: that plus the super-spines a plane <= a spine's ports; at least
 *   two compute pods.
 * Radix-true: no switch has more links than its profile has ports.
 */
#ifndef CKPT_TOPO_DESIGN_H
#define CKPT_TOPO_DESIGN_H

#include <stddef.h>
#include <stdint.h>

#include "../scenario/catalog.h"

#define DESIGN_MAX_PROFILES 16

/* What a fabric has to connect. */
struct design_input {
    uint32_t nodes, nics;       /* compute nodes, NICs each */
    uint64_t nic_bps;
    uint32_t storage, snics;    /* storage nodes, NICs each */
    uint64_t snic_bps;
    const struct switch_profile *prof[DESIGN_MAX_PROFILES];
    uint32_t n_prof;
    uint32_t max_tiers;         /* 2 or 3 */
    /* three tiers: bit r (r >= 1) asks for spines with r:1 as many links
     * down to their pod as up to their super-spines (the fewest super-spines
     * a plane that carry 1/r); 0 = 1:1 only */
    uint32_t spine_ratios;
    /* bit b (1, 2, 4) asks for switch ports run as b lanes of 1/b their
     * speed (breakout), on a leaf's host side when the lanes still carry
     * every NIC, and on its uplinks with the spines' (and super-spines')
     * ports where both ends' lanes match; 0 = 1 only */
    uint32_t breakouts;
    /* three tiers: bit 0 asks for storage leaves in pods of their own, bit 1
     * for storage leaves dealt over the compute pods (fabric.storage_pods
     * spread); 0 = pods of their own only */
    uint32_t storage_pods;
    /* fabric.isolation physical: training has a fabric of its own, priced
     * as a copy of the design's compute side (design_training) */
    int train_fabric;
};

/* The ends of a link class in a bill of materials: the lower (NIC, leaf
 * uplink, spine uplink) and the upper (leaf host port, spine, super-spine)
 * one. Broken out (b > 1), an end has one part a switch port for b links:
 * ports counts those ports (each switch's links of the class over b,
 * rounded up), port_bps their speed. */
struct design_end {
    uint32_t b;
    uint64_t port_bps, ports;
};

/* The link classes of a bill of materials, by reach: host links inside a
 * rack, leaf-spine links within a row, spine-super-spine links across
 * the hall. */
enum design_link { DL_HOST, DL_STORAGE, DL_LEAF_SPINE, DL_SPINE_SUPER, DL_N };

struct design {
    uint32_t tiers;
    const struct switch_profile *leaf, *spine; /* super-spines: spine's */
    uint32_t hpl;       /* compute nodes a leaf */
    uint32_t uplinks;   /* a leaf's */
    uint32_t spines, k; /* two tiers: spines, links a leaf-spine pair; three: a pod's, 1 */
    uint32_t spl;       /* storage nodes a storage leaf */
    uint32_t lpp;       /* three tiers: compute leaves a pod (0: two tiers) */
    uint32_t cpods, spods, supers_per_plane;
    uint32_t spread;    /* three tiers: storage leaves dealt over the compute pods (spods 0) */
    /* the bill of materials */
    uint32_t cleaves, sleaves, n_spines, n_supers;
    uint64_t links[DL_N];
    uint64_t link_bps[DL_N];
    double oversub;     /* a compute leaf's host capacity over its uplinks' */
    uint32_t ratio;     /* three tiers: the r of the spines' r:1 (1: non-blocking; 0: two tiers) */
    double oversub_spine; /* three tiers: a compute pod spine's links down over its links up */
    uint32_t bo_down, bo_up, bo_spine; /* breakouts: leaf host side, leaf uplinks, spines */
    struct design_end end[DL_N][2];    /* [class][0 lower, 1 upper] */
};

static inline uint32_t design_switches(const struct design *d)
{
    return d->cleaves + d->sleaves + d->n_spines + d->n_supers;
}

/* Call fn for each valid design of in, in a fixed order (profile pairs in
 * the order given, then two tiers before three, h, u, then spines or
 * pods); stops early when fn returns nonzero. Returns the number of
 * designs seen. */
typedef int design_fn(void *ud, const struct design *d);
uint64_t design_each(const struct design_input *in, design_fn *fn, void *ud);

/* Training's own fabric under fabric.isolation physical: d's compute side
 * again (its compute leaves with their host links and uplinks, the spines
 * of the compute pods, the super-spines), without storage leaves, pods or
 * links; the links the speeds of d's. */
void design_training(const struct design *d, const struct design_input *in, struct design *t);

/* The scenario keys that build d, as "key=value" items joined by sep (";"
 * for --set style lists, "\n" for lines). Returns the length written
 * (snprintf's: truncated when >= len). */
int design_keys(const struct design *d, char *buf, size_t len, const char *sep);

/* The most links any switch of d has on each level (leaf, spine,
 * super-spine), to check against the profiles' ports. */
void design_radix(const struct design *d, const struct design_input *in, uint32_t need[3]);

#endif
