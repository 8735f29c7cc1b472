/* The checkpoint path: one enum and one table for the path segments and the
 * fabric's link sets, used by topology (each port's class), bound, series,
 * reports and CSV.
 *
 * Path segments run in the order of the product's table: host path, writer
 * NIC, compute-leaf uplinks, (three tiers: spine -> super-spine, super-spine
 * -> storage pod,) spine -> storage leaf, storage NIC, storage back end. The
 * links among them are link sets (every port belongs to one); PATH_REVERSE
 * is the link set facing away from storage (ACKs, CNPs, PFC frames) and no
 * path segment. A two-tier fabric has no ports in the two three-tier sets
 * and its outputs leave them out (path_seg_shown). */
#ifndef CKPT_PATH_H
#define CKPT_PATH_H

#include <stddef.h>
#include <stdint.h>

enum path_seg {
    PATH_HOST,          /* GPU / host -> NIC: device-to-host copy and rate caps */
    PATH_WRITER_NIC,    /* compute node -> compute leaf */
    PATH_CLEAF_UP,      /* compute leaf -> spine */
    PATH_SPINE_UP,      /* spine -> super-spine (three tiers) */
    PATH_SUPER_DOWN,    /* super-spine -> spine of a pod with storage (three tiers) */
    PATH_SPINE_DOWN,    /* spine -> storage leaf */
    PATH_STORAGE_NIC,   /* storage leaf -> storage node */
    PATH_BACKEND,       /* storage node -> its back end (storage.drain_rate) */
    PATH_COUNT,         /* path segments above; link sets below too */
    PATH_REVERSE = PATH_COUNT, /* ports facing away from storage */
    PATH_SETS
};

/* Link speeds a bill of materials keeps (topo_bom, results). */
#define TOPO_BOM_SPEEDS 8
/* link classes of a bill of materials by reach: host, storage, leaf-spine,
 * spine-super-spine (design.h's enum design_link) */
#define TOPO_LINK_CLASSES 4

/* A fabric side's bill (topo_bom_compute, topo.h). */
struct topo_side_bom {
    uint32_t sw[3];
    uint32_t n[TOPO_LINK_CLASSES];
    uint64_t bps[TOPO_LINK_CLASSES][TOPO_BOM_SPEEDS];
    uint64_t links[TOPO_LINK_CLASSES][TOPO_BOM_SPEEDS];
    uint64_t ports[TOPO_LINK_CLASSES][2];
};


/* The link sets, in CSV column order: the forward ones, then reverse. */
#define PATH_LINK_SETS 7
extern const enum path_seg path_link_sets[PATH_LINK_SETS];

/* "writer_nic" (JSON, CSV, metrics) and "writer NIC" (people); "none" for
 * anything else. */
const char *path_seg_key(int s);
const char *path_seg_label(int s);
/* The label for the read (read = 1): a restore runs over the mirrored
 * fabric, where "writer NIC" is the readers' and the uplinks carry down. */
const char *path_seg_label_io(int s, int read);
/* A forward link set (writer NIC .. storage NIC). */
int path_is_fwd_link(int s);

/* The switch levels bottom up (leaves, spines, super-spines): a fabric of
 * `levels` tiers has the first `levels` of them. Each level above the
 * leaves brings the two forward link sets into it from below and out of it
 * down toward storage; outputs show a level's sets only on fabrics that
 * have it (path_seg_shown). Results keep the level count, so they name and
 * print levels after the topology is gone. */
#define PATH_MAX_LEVELS 3
/* "leaf", "spine", "super-spine"; "none" past the last */
const char *path_level_name(unsigned level);
/* Level's link sets up into it and down out of it (PATH_SETS for the leaves) */
enum path_seg path_level_up(unsigned level);
enum path_seg path_level_down(unsigned level);
/* Whether outputs show segment s on a fabric of `levels` switch levels:
 * not the sets of a level it lacks (two-tier outputs stay as they were). */
int path_seg_shown(int s, unsigned levels);
/* The link sets shown on a fabric of `levels` switch levels in CSV column
 * order (the forward ones, then PATH_REVERSE last) into out[PATH_LINK_SETS];
 * returns how many. */
unsigned path_link_sets_shown(unsigned levels, enum path_seg *out);
/* A link set's name in plot legends ("compute-leaf uplink"), "none" for a
 * path segment that is no link set. */
const char *path_set_legend(int s);
const char *path_set_legend_io(int s, int read);

/* "host12", "stor2", "cleaf3", "sleaf0", "spine0", "super1": a built
 * fabric's name of node, from where each kind starts (first_super 0: two
 * tiers). Shared by the topology and the results, which outlive it. */
const char *path_node_name(uint32_t node, uint32_t first_storage, uint32_t first_cleaf,
                           uint32_t first_sleaf, uint32_t first_spine, uint32_t first_super,
                           char *buf, size_t len);

#endif
