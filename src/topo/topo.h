/* Topology: hosts, storage nodes, leaf and spine switches, their ports and
 * links, and next-hop tables. Engine-agnostic: both engines read it.
 *
 * Node order: compute hosts [0, n_hosts), storage nodes, compute leaves,
 * storage leaves, spines, super-spines (three tiers). Each node's ports are
 * contiguous; a link is a pair of ports pointing at each other (peer). Port
 * p is the egress side of the link p -> peer(p). All memory lives in the
 * arena passed to topo_build.
 *
 * Three tiers (fabric.tiers 3): pods of leaves and spines; spine i of every
 * pod links to every super-spine of plane i. Spines are numbered pod by pod
 * (pod q's spine i is spine q x spines_per_pod + i), super-spines plane by
 * plane. Routing is up-down, hierarchical: a leaf goes up unless the
 * destination is its own; a spine goes down to a leaf of its pod, else up;
 * a super-spine goes down to the destination's pod. Only toward leaves whose
 * routes a failed link changes is there a per-switch table.
 */
#ifndef CKPT_TOPO_H
#define CKPT_TOPO_H

#include <stdint.h>

#include "../core/arena.h"
#include "../core/err.h"
#include "../core/wire.h" /* ROCE_OVERHEAD */
#include "../scenario/scenario.h"
#include "path.h"

enum node_kind { NODE_HOST, NODE_STORAGE, NODE_LEAF, NODE_SPINE, NODE_SUPER };

struct tnode {
    enum node_kind kind;
    uint32_t first_port, nports;
    uint32_t leaf;      /* hosts/storage: node id of their leaf; leaves: self */
    uint32_t leaf_port; /* hosts/storage: the leaf's port facing this node */
    int storage_side;   /* 1 for storage nodes and storage leaves */
    uint32_t pod;       /* three tiers: leaves and spines their pod, super-spines their plane */
    uint32_t pod_pos;   /* three tiers: a leaf's place among its pod's leaves */
};

/* One switch level of the fabric's shape (topo_build fills t->level[k],
 * k < t->tiers: leaves, spines, super-spines; names and link sets in
 * path.h). Code outside src/topo walks the levels instead of testing the
 * tier count. */
struct topo_level {
    uint32_t first, n;  /* its switches: nodes [first, first + n) */
    /* equal-cost switches come in groups of this many consecutive ones:
     * a pod's spines, a plane's super-spines; all spines on two tiers */
    uint32_t group;
    /* load balance (balance_compute): the link set a switch's bytes are
     * counted on, PATH_SETS for every port (as each builder has had it) */
    enum path_seg load;
};

struct tport {
    uint32_t node, peer;
    uint64_t bps;
    uint32_t delay_id;  /* its link's delay, t->delays[delay_id] (topo_delay) */
    uint8_t seg;        /* enum path_seg: its link set */
    uint8_t failed;     /* link down (fabric.failed_links): no route uses it */
};
_Static_assert(sizeof(struct tport) == 24, "640,000 ports in 15 MB");

/* Equal-cost next hops of switch s toward leaf l:
 * ports nh_ports[off .. off+cnt) with (off, cnt) = *topo_route(t, s, l). */
struct route {
    uint32_t off, cnt;
};

struct topo {
    uint32_t n_hosts, n_storage, n_cleaves, n_sleaves, n_spines;
    uint32_t n_nodes, n_ports;
    uint32_t first_storage, first_cleaf, first_sleaf, first_spine;
    uint32_t n_leaves, n_switches; /* leaves = compute + storage leaves */
    struct tnode *nodes;
    struct tport *ports;
    /* the links' delays (ps), by delay_id: a built fabric's one
     * (fabric.link_delay), an imported one's a record each */
    uint64_t *delays;
    uint32_t n_delays;
    /* routes (topo_route): toward a leaf with no failed link a leaf takes
     * its working uplinks (leaf_default) and a spine its links down; toward
     * the n_affected leaves with one, a BFS's (leaf_route) */
    struct route *spine_route;  /* [spine][leaf index] */
    struct route *leaf_default; /* [leaf index] */
    struct route *leaf_route;   /* [leaf index][affected[leaf index]] */
    uint32_t *affected;         /* [leaf index]: its index among them, or UINT32_MAX */
    uint32_t n_affected;
    struct route no_route;      /* a leaf toward itself: none (local delivery) */
    uint32_t *nh_ports;   /* identical sets of one switch are shared */
    uint64_t *ecmp_seed;  /* [switch index], from the ecmp RNG stream */
    uint32_t *nh_weight;  /* WCMP weight of each nh_ports entry (Mbps behind it); NULL = equal */
    uint32_t *nh_next;    /* the node each nh_ports entry leads to (topo_path: fewer misses) */
    double oversub_compute, oversub_storage;
    uint32_t links_per_spine;  /* parallel links of each leaf-spine pair */
    uint32_t n_failed;         /* failed leaf-spine links */
    char failed_names[256];    /* "cleaf0-spine3, sleaf0-spine1" (truncated) */
    /* the shape: tiers switch levels (2 or 3), bottom up */
    uint32_t tiers;
    struct topo_level level[PATH_MAX_LEVELS];
    /* pods: the groups of leaves and spines that a level above the spines
     * joins; 0 without one (then so are the super-spine counts below) */
    uint32_t n_pods;
    /* three tiers (two tiers: 0). leaf_route is then [switch
     * index][affected] (every switch, not only leaves). */
    uint32_t n_cpods, spines_per_pod, supers_per_plane, n_supers;
    uint32_t first_super, links_per_super; /* parallel spine-super-spine links */
    uint32_t pod_width;         /* the most leaves in a pod */
    struct route *spine_route_pod; /* [spine][pod_width + 1]: down to the leaf at pod_pos; up last */
    struct route *super_route;  /* [super-spine][pod] */
    double oversub_spine;       /* a compute pod's spines: down / up capacity */
    /* imported (fabric.topology_file): each node's name in the file; NULL =
     * named by kind and index (topo_node_name) */
    const char *const *names;
};

/* Build the leaf-spine (two tiers) or Clos (three) of the scenario. Returns 0 or -1 with e set. */
int topo_build(struct topo *t, const struct scenario *sc, struct arena *a,
               struct err *e);

/* The unloaded round trip (ps) over path (hops ports from the sender's):
 * a frame of `data` wire bytes out through each link and switch, one of
 * `ack` back the same way. */
uint64_t topo_round_trip_ps(const struct topo *t, const struct scenario *sc, const uint32_t *path,
                            uint32_t hops, uint64_t data, uint64_t ack);

/* The delay (ps) of port pt's link. */
static inline uint64_t topo_delay(const struct topo *t, const struct tport *pt)
{
    return t->delays[pt->delay_id];
}

static inline uint32_t topo_switch_index(const struct topo *t, uint32_t node)
{
    return node - t->first_cleaf;
}
static inline uint32_t topo_leaf_index(const struct topo *t, uint32_t node)
{
    return node - t->first_cleaf; /* leaves precede spines */
}
/* Equal-cost next hops of switch sw toward leaf dst_leaf (the header
 * comment: up-down, per-switch tables only toward affected leaves). */
static inline const struct route *topo_route(const struct topo *t,
                                             uint32_t sw, uint32_t dst_leaf)
{
    uint32_t s = topo_switch_index(t, sw), l = topo_leaf_index(t, dst_leaf);
    /* leaf-spine: a spine's row covers every leaf, affected ones too */
    if (!t->n_pods && s >= t->n_leaves)
        return &t->spine_route[(size_t)(s - t->n_leaves) * t->n_leaves + l];
    if (s == l)
        return &t->no_route;
    uint32_t a = t->affected[l];
    if (a != UINT32_MAX)
        return &t->leaf_route[(size_t)s * t->n_affected + a];
    if (s < t->n_leaves)
        return &t->leaf_default[s];
    /* pods: a spine down to a leaf of its pod, else up; a super-spine down
     * to the leaf's pod */
    const struct tnode *d = &t->nodes[dst_leaf];
    if (s < t->n_leaves + t->n_spines)
        return &t->spine_route_pod[(size_t)(s - t->n_leaves) * (t->pod_width + 1) +
                                   (t->nodes[sw].pod == d->pod ? d->pod_pos : t->pod_width)];
    return &t->super_route[(size_t)(s - t->n_leaves - t->n_spines) * t->n_pods + d->pod];
}

/* The ports a flow crosses from src to dst under ECMP (src's NIC port
 * first, dst's leaf port last), the same choice the packet engine's switches
 * make: hash(ecmp_seed[switch], src, dst, sport, 4791) mod next hops.
 * Writes at most max ports; returns how many, or 0 when there is no path
 * within max hops. */
uint32_t topo_path(const struct topo *t, uint32_t src, uint32_t dst,
                   uint16_t sport, uint32_t *ports, uint32_t max);
#define TOPO_MAX_HOPS 8

/* Links of the longest up-down path between two endpoints of a fabric of
 * `levels` switch levels: up to the top and down again. */
static inline uint32_t topo_path_links(uint32_t levels)
{
    return 2 * levels;
}

/* Next hops in the route table that lead onto a failed link (0 for a
 * sound table; topo_build refuses any other). */
uint32_t topo_failed_routes(const struct topo *t);

/* Bill of materials: switches per level (sw[0] leaves, [1] spines, [2]
 * super-spines; 0 for a level the fabric lacks) and links by speed, fastest
 * first: speeds[i], links[i] for i < *n (at most TOPO_BOM_SPEEDS speeds;
 * slower ones join the last). */
void topo_bom(const struct topo *t, uint32_t sw[PATH_MAX_LEVELS], uint64_t *speeds,
              uint32_t *links, uint32_t *n);

/* Links by class (TOPO_LINK_CLASSES: a compute node's, a storage node's,
 * leaf-spine, spine-super-spine; any other switch-switch link counts as
 * leaf-spine) and, within a class, by speed as topo_bom: bps[c][i],
 * links[c][i] for i < n[c]. */
void topo_bom_classes(const struct topo *t, uint32_t n[TOPO_LINK_CLASSES],
                      uint64_t bps[TOPO_LINK_CLASSES][TOPO_BOM_SPEEDS],
                      uint64_t links[TOPO_LINK_CLASSES][TOPO_BOM_SPEEDS]);

/* Broken-out switch ports by class and end (0: the lower, a leaf's uplinks
 * or a spine's; 1: the upper, a leaf's host side, a spine's down side or a
 * super-spine's): each switch's links of that class and end over its
 * breakout (bd a leaf's host side, bu its uplinks, bs spines and
 * super-spines), rounded up; 0 where the breakout is 1. */
void topo_bom_breakout(const struct topo *t, uint32_t bd, uint32_t bu, uint32_t bs,
                       uint64_t ports[TOPO_LINK_CLASSES][2]);

/* The fabric's compute side (fabric.isolation physical prices a second one
 * for training): the leaves with a compute node, the spines linked to them,
 * the super-spines linked to those, and the links among these and the
 * compute nodes; switches per tier, links by class and speed and broken-out
 * ports as topo_bom, topo_bom_classes and topo_bom_breakout count them
 * (struct topo_side_bom, path.h). Returns -1 when out of memory. */
int topo_bom_compute(const struct topo *t, uint32_t bd, uint32_t bu, uint32_t bs,
                     struct topo_side_bom *b);

/* Node's name: the topology file's, else by kind and index as outputs
 * name them (host3, stor0, cleaf2, sleaf0, spine1, super4). Returns buf. */
const char *topo_node_name(const struct topo *t, uint32_t node, char *buf, size_t len);

/* Write t as a topology file (JSON, docs/scenario.md "Imported
 * topologies") that fabric.topology_file reads back into the same struct
 * topo: nodes in order, each node's ports in the order of its links in the
 * file. sc names the switch profiles. Returns 0 or -1 with e set. */
int topo_export(const struct topo *t, const struct scenario *sc, const char *path,
                struct err *e);

/* ECMP hash of a RoCEv2 5-tuple with a per-switch seed. */
uint64_t topo_flow_hash(uint64_t seed, uint32_t src, uint32_t dst,
                        uint16_t sport, uint16_t dport);

#define ROCE_UDP_PORT 4791


#endif
