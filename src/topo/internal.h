/* Private to src/topo: the builders' shared pieces (topo.c: two tiers,
 * clos.c: three). */
#ifndef CKPT_TOPO_INTERNAL_H
#define CKPT_TOPO_INTERNAL_H

#include "topo.h"

#include <stddef.h>

/* Growing next-hop arrays (set-up only). */
struct nh_buf {
    uint32_t *nh, *nw;
    size_t len, cap;
    /* set by topo__nh_reserve while the entries fit: nh, nw and next
     * (nh_next's room) are one array of the arena, 3 x cap entries, kept
     * as the tables; else nh and nw are malloc'd and routes_finish copies
     * them */
    uint32_t *next;
    /* topo__updown_routes: each switch's working links to switches, up
     * ones then down ones (adj_off[2s], [2s+1], [2s+2]), as (port, peer
     * switch) pairs; built at its first call, freed by topo__nh_buf_free */
    uint32_t *adj_off, *adj;
};
void topo__nh_buf_free(struct nh_buf *b);

/* Connect port a (on node na) and port b (on node nb) as one link of
 * delay t->delays[delay_id]. */
void topo__link(struct topo *t, uint32_t a, uint32_t na, uint32_t b, uint32_t nb,
                uint64_t bps, uint32_t delay_id, enum path_seg seg_ab, enum path_seg seg_ba);
/* A built fabric's delay table: fabric.link_delay, delay_id 0. 0 or -1. */
int topo__one_delay(struct topo *t, const struct scenario *sc, struct arena *a);
int topo__is_switch(const struct topo *t, uint32_t n);
/* Both builders' first ports: one per endpoint, then each leaf's down ports
 * (linked to its hpl hosts or spl storage nodes) followed by up_ports
 * uplinks, unlinked. Sets those nodes' kind, ports and leaf; returns the
 * next free port. */
uint32_t topo__lay_edge(struct topo *t, const struct scenario *sc, uint32_t hpl, uint32_t spl,
                        uint32_t up_ports);
/* Append ports[0..n) (and their weights) to the next-hop arrays, or reuse
 * prev's set when identical; the offset, or UINT32_MAX out of memory. */
uint32_t topo__nh_intern(struct nh_buf *b, const uint32_t *ports, const uint32_t *weights,
                         uint32_t n, const struct route *prev);
/* Build the next-hop arrays in the arena, room for n entries (the builders
 * count their defaults): no realloc growth on 4 KB pages and no copy at
 * the end. More entries (routes toward leaves a failed link touches) move
 * them to malloc'd arrays, copied back at the end, the arena's left
 * unused. 0, or -1 out of memory. */
int topo__nh_reserve(struct nh_buf *b, struct arena *a, size_t n);
/* The ports of switches s0 and after (a next hop each, at most). */
static inline size_t topo__ports_from(const struct topo *t, uint32_t s0)
{
    size_t n = 0;
    for (uint32_t s = s0; s < t->n_switches; s++)
        n += t->nodes[t->first_cleaf + s].nports;
    return n;
}
/* WCMP weight of a link of bps (Mbps, at least 1). */
static inline uint32_t topo__mbps(uint64_t bps) /* inline: once a next hop of every route */
{
    return (uint32_t)(bps / 1000000 ? bps / 1000000 : 1);
}
/* One ECMP hash seed per switch from the ecmp stream. */
int topo__ecmp_seeds(struct topo *t, uint64_t seed, struct arena *a, struct err *e);
/* Mark the link of port p down (both sides) under `name` in failed_names. */
void topo__fail(struct topo *t, uint32_t p, const char *name);

/* Append every port of node in order, weighted by speed, to the next-hop
 * arrays (cand, wgt: room for its ports); the offset, or UINT32_MAX out of
 * memory. */
uint32_t topo__node_ports(const struct topo *t, uint32_t node, struct nh_buf *b, uint32_t *cand,
                          uint32_t *wgt);
/* The builders' last steps: the leaves' oversubscription (hosts or storage
 * nodes of a full leaf over up, a leaf's uplink capacity), and that no
 * route leads onto a failed link (0, or -1 with e set). */
void topo__leaf_oversub(struct topo *t, const struct scenario *sc, uint32_t hpl, uint32_t spl,
                        double up);
int topo__routes_sound(const struct topo *t, struct err *e);
/* Each leaf's default route (t->leaf_default, allocated): its working
 * uplinks, weighted by speed; cand, wgt: room for a leaf's ports. */
int topo__leaf_defaults(struct topo *t, struct nh_buf *b, uint32_t *cand, uint32_t *wgt,
                        struct err *e);

/* Fill t->nh_next from the finished next-hop arrays (len entries). */
int topo__next_nodes(struct topo *t, size_t len, struct arena *a, struct err *e);

/* Move the finished next-hop arrays into the arena (nh_ports, nh_weight)
 * and fill nh_next: the last step of both builders. */
int topo__routes_finish(struct topo *t, const struct nh_buf *b, struct arena *a, struct err *e);

/* Up-down routes toward leaf index l by BFS (two tiers; topo.c) into the
 * spine_route and leaf_route rows of l (t->affected[l] set). WCMP weights:
 * each link's speed, capped by the capacity behind it unless plain (the
 * builders' routes toward a leaf no failed link touches). */
int topo__bfs_routes(struct topo *t, uint32_t l, struct nh_buf *b, uint32_t *dist,
                     uint32_t *queue, uint32_t *cand, uint32_t *wgt, uint64_t *down,
                     uint32_t *into, int plain, struct err *e);
/* The same for three tiers (clos.c), every switch's leaf_route row toward
 * l; dd, du, cap: n_switches each. A leaf that cannot reach l up and down
 * is an error; its index goes to *cut (when not NULL). */
int topo__updown_routes(struct topo *t, uint32_t l, struct nh_buf *b, uint32_t *dd,
                        uint32_t *du, uint64_t *cap, uint32_t *cand, uint32_t *wgt,
                        int plain, uint32_t *cut, struct err *e);

/* Topology files (export.c, import.c). */
#define TOPO_FILE_VERSION 2 /* 2: links may be runs (count, parallel, a_step, b_step) */
/* topo_export writes runs past this many links; fewer, one link a line */
#define TOPO_RUNS_FROM 4096
/* topo_export with runs (1) or one link a line (0) whatever the size */
int topo__export_runs(const struct topo *t, const struct scenario *sc, const char *path,
                      int runs, struct err *e);
int topo__import(struct topo *t, const struct scenario *sc, struct arena *a, struct err *e);
/* The name of the link of port p (its lower-tier side) as failed_names
 * lists it: "a-b", "#j" for the j-th of parallel links (from 0). */
void topo__link_name(const struct topo *t, uint32_t p, char *buf, size_t len);

/* Pods one of whose spines lost an uplink to the super-spines: hit[pod]
 * set (n_pods flags, zeroed by the caller; none without pods). Returns 1
 * when a spine lost them all in a fabric of more pods than one: then every
 * leaf feels it (clos.c). */
int topo__pods_hit(const struct topo *t, uint8_t *hit);

/* Three tiers (clos.c). */
int topo__build_clos(struct topo *t, const struct scenario *sc, struct arena *a, struct err *e);

/* The builders' routes over a wired fabric of their shape (ports, pods,
 * links_per_spine and links_per_super set): the rule's defaults, and a
 * search only toward the leaves a failed link touches. Two tiers: every
 * spine's ports go leaf by leaf in leaf order, links_per_spine each (topo.c);
 * three: a spine's first ports go to its pod's leaves by pod_pos,
 * links_per_spine each, then its uplinks, and a super-spine's ports go pod
 * by pod, links_per_super each (clos.c). import.c uses them on a file of
 * that shape. 0, or -1 with e set. */
int topo__leaf_spine_routes(struct topo *t, struct arena *a, struct err *e);
int topo__clos_routes(struct topo *t, struct arena *a, struct err *e);

#endif
